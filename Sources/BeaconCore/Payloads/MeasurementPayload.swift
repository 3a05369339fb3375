/// One measurement as a node publishes it on `<root>/beacons/<beacon>/<node>` (MQTT.md).
///
/// Its `id` and `distance` make it usable by Home Assistant's `mqtt_room` as it is. Fields the
/// node does not know (a beacon's name, a distance while the beacon is not heard) are left out.
public struct MeasurementPayload: Hashable, Sendable {
    /// The alias of a known beacon, else the canonical id; also the topic level.
    public var id: String
    /// The canonical id.
    public var beacon: BeaconID
    public var name: String?
    public var node: String
    public var room: String
    /// The last raw RSSI heard, dBm.
    public var rssi: Int?
    public var rssiFiltered: Double?
    public var sigma: Double?
    /// The RSSI at 1 m used for the distance.
    public var measuredPower: Int?
    public var distance: Double?
    public var proximity: Proximity
    public var address: BluetoothAddress?
    /// `ibeacon`, `altbeacon`, `eddystone-uid`, … when the beacon has a format.
    public var format: String?
    public var uuid: BeaconUUID?
    public var major: UInt16?
    public var minor: UInt16?
    public var timestamp: Instant

    public init(
        id: String, beacon: BeaconID, name: String? = nil, node: String, room: String, rssi: Int?,
        rssiFiltered: Double?, sigma: Double?, measuredPower: Int?, distance: Double?, proximity: Proximity,
        address: BluetoothAddress?, format: String? = nil, uuid: BeaconUUID? = nil, major: UInt16? = nil,
        minor: UInt16? = nil, timestamp: Instant
    ) {
        self.id = id
        self.beacon = beacon
        self.name = name
        self.node = node
        self.room = room
        self.rssi = rssi
        self.rssiFiltered = rssiFiltered
        self.sigma = sigma
        self.measuredPower = measuredPower
        self.distance = distance
        self.proximity = proximity
        self.address = address
        self.format = format
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.timestamp = timestamp
    }

    /// MQTT.md's key order; RSSI to 0.1 dB, σ to 0.1 dB, distance to the centimetre.
    public var json: String {
        var out: [UInt8] = []
        out.reserveCapacity(320)
        write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `json`'s bytes to `out` (the agent reuses one buffer for every payload).
    public func write(to out: inout [UInt8]) {
        JSONBytes.append("{\"id\":", to: &out)
        JSONBytes.appendQuoted(id, to: &out)
        JSONBytes.append(",\"beacon\":", to: &out)
        JSONBytes.appendQuoted(beacon.rawValue, to: &out)
        if let name {
            JSONBytes.append(",\"name\":", to: &out)
            JSONBytes.appendQuoted(name, to: &out)
        }
        JSONBytes.append(",\"node\":", to: &out)
        JSONBytes.appendQuoted(node, to: &out)
        JSONBytes.append(",\"room\":", to: &out)
        JSONBytes.appendQuoted(room, to: &out)
        Self.writeReadings(
            rssi: rssi, rssiFiltered: rssiFiltered, sigma: sigma, measuredPower: measuredPower, distance: distance,
            proximity: proximity, to: &out)
        if let address {
            JSONBytes.append(",\"address\":", to: &out)
            JSONBytes.appendQuoted(address, to: &out)
        }
        if let format {
            JSONBytes.append(",\"format\":", to: &out)
            JSONBytes.appendQuoted(format, to: &out)
        }
        Self.writeIdentity(uuid: uuid, major: major, minor: minor, to: &out)
        JSONBytes.append(",\"timestamp\":", to: &out)
        JSONBytes.appendQuotedTimestamp(timestamp, to: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// `,"rssi":…` through `,"proximity":"…"`: the part that changes with every reading.
    @inline(__always)
    public static func writeReadings(
        rssi: Int?, rssiFiltered: Double?, sigma: Double?, measuredPower: Int?, distance: Double?,
        proximity: Proximity, to out: inout [UInt8]
    ) {
        if let rssi {
            JSONBytes.append(",\"rssi\":", to: &out)
            JSONBytes.append(rssi, to: &out)
        }
        if let rssiFiltered {
            JSONBytes.append(",\"rssiFiltered\":", to: &out)
            JSONBytes.append(rssiFiltered, decimals: 1, to: &out)
        }
        if let sigma {
            JSONBytes.append(",\"sigma\":", to: &out)
            JSONBytes.append(sigma, decimals: 1, to: &out)
        }
        if let measuredPower {
            JSONBytes.append(",\"measuredPower\":", to: &out)
            JSONBytes.append(measuredPower, to: &out)
        }
        if let distance {
            JSONBytes.append(",\"distance\":", to: &out)
            JSONBytes.append(distance, decimals: 2, to: &out)
        }
        switch proximity {
        case .immediate: JSONBytes.append(",\"proximity\":\"immediate\"", to: &out)
        case .near: JSONBytes.append(",\"proximity\":\"near\"", to: &out)
        case .far: JSONBytes.append(",\"proximity\":\"far\"", to: &out)
        case .unknown: JSONBytes.append(",\"proximity\":\"unknown\"", to: &out)
        }
    }

    /// `,"uuid":…,"major":…,"minor":…` for the fields present.
    @inline(__always)
    public static func writeIdentity(uuid: BeaconUUID?, major: UInt16?, minor: UInt16?, to out: inout [UInt8]) {
        if let uuid {
            JSONBytes.append(",\"uuid\":", to: &out)
            JSONBytes.appendQuoted(uuid, to: &out)
        }
        if let major {
            JSONBytes.append(",\"major\":", to: &out)
            JSONBytes.append(Int(major), to: &out)
        }
        if let minor {
            JSONBytes.append(",\"minor\":", to: &out)
            JSONBytes.append(Int(minor), to: &out)
        }
    }
}
