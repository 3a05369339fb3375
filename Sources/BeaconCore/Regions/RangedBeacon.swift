/// One entry of a region's ranging list (Core Location's `CLBeacon`).
public struct RangedBeacon: Hashable, Sendable {
    /// The beacon's canonical id.
    public var beacon: BeaconID
    /// The address it advertised from.
    public var address: BluetoothAddress
    /// The proximity UUID, when the beacon has one.
    public var uuid: BeaconUUID?
    /// The major, when the beacon has one.
    public var major: UInt16?
    /// The minor, when the beacon has one.
    public var minor: UInt16?
    /// The RSSI of the last sighting, in dBm.
    public var rssi: Double
    /// Metres; nil when unknown — no estimate, or not heard for `rangingUnknownAfter`.
    public var distance: Double?
    /// `unknown` once the beacon was not heard for `rangingUnknownAfter`.
    public var proximity: Proximity
    /// When it was last heard.
    public var lastSeen: Instant

    /// Creates an entry from a sighting heard at `lastSeen`.
    public init(sighting: BeaconSighting, lastSeen: Instant) {
        beacon = sighting.beacon
        address = sighting.address
        uuid = sighting.uuid
        major = sighting.major
        minor = sighting.minor
        rssi = sighting.rssi
        distance = sighting.distance
        proximity = sighting.proximity
        self.lastSeen = lastSeen
    }

    /// Ranging order: beacons with a distance nearest first, ties by stronger RSSI; then those
    /// without a distance by RSSI; `unknown` proximity last; then by id and address, so the order is
    /// total and stable between publishes.
    static func nearerFirst(_ a: RangedBeacon, _ b: RangedBeacon) -> Bool {
        if let decided = nearerFirst(
            unknown: a.proximity == .unknown, distance: a.distance, rssi: a.rssi,
            than: b.proximity == .unknown, distance: b.distance, rssi: b.rssi)
        { return decided }
        if a.beacon != b.beacon { return a.beacon < b.beacon }
        return a.address < b.address
    }

    /// `nearerFirst` on the readings alone: nil on a tie, which the id and address then break.
    @inline(__always)
    static func nearerFirst(
        unknown aUnknown: Bool, distance aDistance: Double?, rssi aRSSI: Double,
        than bUnknown: Bool, distance bDistance: Double?, rssi bRSSI: Double
    ) -> Bool? {
        if aUnknown != bUnknown { return !aUnknown }
        switch (aDistance, bDistance) {
        case (let x?, let y?) where x != y: return x < y
        case (.some, nil): return true
        case (nil, .some): return false
        default: break
        }
        if aRSSI != bRSSI { return aRSSI > bRSSI }
        return nil
    }
}
