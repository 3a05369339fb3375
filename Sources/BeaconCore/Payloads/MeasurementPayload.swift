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
        var json = JSONObjectWriter()
        json.add("id", id)
        json.add("beacon", beacon.rawValue)
        if let name { json.add("name", name) }
        json.add("node", node)
        json.add("room", room)
        if let rssi { json.add("rssi", rssi) }
        if let rssiFiltered { json.add("rssiFiltered", rssiFiltered, decimals: 1) }
        if let sigma { json.add("sigma", sigma, decimals: 1) }
        if let measuredPower { json.add("measuredPower", measuredPower) }
        if let distance { json.add("distance", distance, decimals: 2) }
        json.add("proximity", proximity.rawValue)
        if let address { json.add("address", address.description) }
        if let format { json.add("format", format) }
        if let uuid { json.add("uuid", uuid.description) }
        if let major { json.add("major", Int(major)) }
        if let minor { json.add("minor", Int(minor)) }
        json.add("timestamp", ISO8601Timestamp.string(from: timestamp))
        return json.json
    }
}
