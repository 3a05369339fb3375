/// One measurement as a node publishes it on `<root>/beacons/<beacon>/<node>` (docs/MQTT.md).
///
/// Its `id` and `distance` make it usable by Home Assistant's `mqtt_room` as it is. Fields the
/// node does not know (a beacon's name, a distance while the beacon is not heard) are left out.
/// Its own shape because it is the wire's: every field of the message, written in docs/MQTT.md's order.
public struct MeasurementPayload: Hashable, Sendable {
    /// The alias of a known beacon, else the canonical id; also the topic level.
    public var id: String
    /// The canonical id.
    public var beacon: BeaconID
    /// The known beacon's display name, when the operator gave one.
    public var name: String?
    /// The node that measured.
    public var node: String
    /// The room the node serves.
    public var room: String
    /// The last raw RSSI heard, dBm.
    public var rssi: Int?
    /// The Kalman-filtered RSSI, dBm.
    public var rssiFiltered: Double?
    /// The standard deviation of `rssiFiltered`, dB.
    public var sigma: Double?
    /// The RSSI at 1 m used for the distance.
    public var measuredPower: Int?
    /// The estimated distance, metres; absent while the beacon is not heard.
    public var distance: Double?
    /// The proximity class; `unknown` once the beacon is no longer heard.
    public var proximity: Proximity
    /// The address the beacon advertised from.
    public var address: BluetoothAddress?
    /// `ibeacon`, `altbeacon`, `eddystone-uid`, … when the beacon has a format.
    public var format: String?
    /// The proximity UUID, for beacons that have one.
    public var uuid: BeaconUUID?
    /// The major, for beacons that have one.
    public var major: UInt16?
    /// The minor, for beacons that have one.
    public var minor: UInt16?
    /// When the measurement was made.
    public var timestamp: Instant

    /// Creates a payload from its fields.
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

    /// docs/MQTT.md's key order; RSSI to 0.1 dB, σ to 0.1 dB, distance to the centimetre.
    public var json: String {
        var out: [UInt8] = []
        out.reserveCapacity(320)
        write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `json`'s bytes to `out` (the agent reuses one buffer for every payload).
    public func write(to out: inout [UInt8]) {
        var textBytes = id.utf8.count + beacon.rawValue.utf8.count + node.utf8.count + room.utf8.count
        textBytes += (name?.utf8.count ?? 0) + (format?.utf8.count ?? 0)
        var scratch: [UInt8] = []
        JSONBytes.append(to: &out, capacity: Self.capacity(textBytes: textBytes), scratch: &scratch) { entry in
            Self.writeHead(id: id, beacon: beacon, name: name, to: &entry)
            entry.append(",\"node\":")
            entry.appendQuoted(node)
            entry.append(",\"room\":")
            entry.appendQuoted(room)
            Self.writeReadings(
                rssi: rssi, rssiFiltered: rssiFiltered, sigma: sigma, measuredPower: measuredPower, distance: distance,
                proximity: proximity, to: &entry)
            if let address {
                entry.append(",\"address\":")
                entry.appendQuoted(address)
            }
            if let format {
                entry.append(",\"format\":")
                entry.appendQuoted(format)
            }
            Self.writeIdentity(uuid: uuid, major: major, minor: minor, to: &entry)
            entry.append(",\"timestamp\":")
            entry.appendQuotedTimestamp(timestamp)
            entry.append(UInt8(ascii: "}"))
        }
    }

    /// The most a payload takes whose strings (ids, name, node, room, format) have `textBytes` UTF-8
    /// bytes in all: those escaped at worst and their quotes (`JSONBytes.quotedCapacity`), plus its
    /// keys, numbers, address, identity and timestamp: 417 bytes at most, rounded up with room to spare.
    @inlinable
    public static func capacity(textBytes: Int) -> Int { 576 + 6 * textBytes + 12 }

    /// `,"rssi":…` through `,"proximity":"…"`: the part that changes with every reading.
    @inline(__always)
    public static func writeReadings(
        rssi: Int?, rssiFiltered: Double?, sigma: Double?, measuredPower: Int?, distance: Double?,
        proximity: Proximity, to out: inout JSONByteCursor
    ) {
        if let rssi {
            out.append(",\"rssi\":")
            out.append(rssi)
        }
        if let rssiFiltered {
            out.append(",\"rssiFiltered\":")
            out.append(rssiFiltered, decimals: 1)
        }
        if let sigma {
            out.append(",\"sigma\":")
            out.append(sigma, decimals: 1)
        }
        if let measuredPower {
            out.append(",\"measuredPower\":")
            out.append(measuredPower)
        }
        if let distance {
            out.append(",\"distance\":")
            out.append(distance, decimals: 2)
        }
        switch proximity {
        case .immediate: out.append(",\"proximity\":\"immediate\"")
        case .near: out.append(",\"proximity\":\"near\"")
        case .far: out.append(",\"proximity\":\"far\"")
        case .unknown: out.append(",\"proximity\":\"unknown\"")
        }
    }

    /// The opening every measurement and ranging entry shares: `{"id":…,"beacon":…[,"name":…]`.
    public static func writeHead(id: String, beacon: BeaconID, name: String?, to out: inout JSONByteCursor) {
        out.append("{\"id\":")
        out.appendQuoted(id)
        out.append(",\"beacon\":")
        out.appendQuoted(beacon.rawValue)
        if let name {
            out.append(",\"name\":")
            out.appendQuoted(name)
        }
    }

    /// `,"uuid":…,"major":…,"minor":…` for the fields present.
    @inline(__always)
    public static func writeIdentity(uuid: BeaconUUID?, major: UInt16?, minor: UInt16?, to out: inout JSONByteCursor) {
        if let uuid {
            out.append(",\"uuid\":")
            out.appendQuoted(uuid)
        }
        if let major {
            out.append(",\"major\":")
            out.append(Int(major))
        }
        if let minor {
            out.append(",\"minor\":")
            out.append(Int(minor))
        }
    }
}
