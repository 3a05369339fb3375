/// One beacon heard once, as the tracker hands it to the region monitor: identity, address and the
/// tracker's current estimate.
public struct BeaconSighting: Hashable, Sendable {
    /// Canonical id (or alias-independent identity) of the beacon.
    public var beacon: BeaconID
    /// Proximity UUID, major and minor when the beacon has them (iBeacon; AltBeacon ids that start
    /// with a UUID); a sighting without a uuid matches no region.
    public var uuid: BeaconUUID?
    /// The major, when the beacon has one.
    public var major: UInt16?
    /// The minor, when the beacon has one.
    public var minor: UInt16?
    /// The device that sent it; beacons with the same identity stay apart by address in ranging.
    public var address: BluetoothAddress
    /// RSSI in dBm (the tracker's filtered value is the better choice).
    public var rssi: Double
    /// Estimated distance in metres; nil when there is no estimate.
    public var distance: Double?
    /// The tracker's proximity class.
    public var proximity: Proximity

    /// Creates a sighting from the tracker's view of one advertisement.
    public init(
        beacon: BeaconID, uuid: BeaconUUID?, major: UInt16?, minor: UInt16?, address: BluetoothAddress,
        rssi: Double, distance: Double?, proximity: Proximity
    ) {
        self.beacon = beacon
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.address = address
        self.rssi = rssi
        self.distance = distance
        self.proximity = proximity
    }
}
