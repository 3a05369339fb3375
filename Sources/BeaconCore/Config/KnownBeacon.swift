/// One entry of the known-beacons message: a beacon the agent measures even outside every region,
/// with an optional alias for its topics, a display name and its measured power.
public struct KnownBeacon: Hashable, Sendable {
    /// The canonical id, as the agent derives it from advertisements.
    public var beacon: BeaconID
    /// The alias used in topics and as the payloads' `id` (MQTT.md); nil means the canonical id.
    public var alias: TopicLevelID?
    /// A display name (`Alice's keys`), any text.
    public var name: String?
    /// RSSI at 1 m in dBm, overriding what the beacon advertises.
    public var measuredPower: Int?

    /// The range accepted for `measuredPower`, in dBm.
    public static let measuredPowerRange: ClosedRange<Int64> = -127...0
    /// The longest display name accepted, in characters.
    public static let maximumNameLength = 128

    public init(beacon: BeaconID, alias: TopicLevelID? = nil, name: String? = nil, measuredPower: Int? = nil) {
        self.beacon = beacon
        self.alias = alias
        self.name = name
        self.measuredPower = measuredPower
    }

    /// The id topics and payloads use: the alias, or else the canonical id.
    public var topicID: String { alias?.rawValue ?? beacon.rawValue }

    /// One entry from its JSON object: `{"beacon":"ibeacon-…","id":"alice-keys","name":"Alice's keys","measuredPower":-59}`.
    public init(json value: JSONValue, at path: FieldPath) throws(ConfigError) {
        let reader = try JSONFieldReader(value, at: path)
        try reader.rejectUnknownKeys(["beacon", "id", "name", "measuredPower"])
        let text = try reader.string(try reader.required("beacon"), key: "beacon")
        guard let canonical = BeaconIDSyntax.canonical(text) else {
            throw ConfigError(.invalidValue,
                path: path.appending("beacon"),
                message: "\(ConfigError.quoted(text, limit: 80)) is not a beacon id (\(BeaconIDSyntax.rule))")
        }
        guard canonical == text else {
            throw ConfigError(.invalidValue,
                path: path.appending("beacon"),
                message: "\(ConfigError.quoted(text, limit: 80)) is not in canonical form; write '\(canonical)'")
        }
        let alias = try reader.optional("id").map { (value) throws(ConfigError) in try reader.id(value, key: "id") }
        let name = try reader.optional("name").map { (value) throws(ConfigError) in
            try reader.string(value, key: "name")
        }
        if let name, name.count > Self.maximumNameLength || name.isEmpty {
            throw ConfigError(.invalidValue,
                path: path.appending("name"), message: "must be 1–\(Self.maximumNameLength) characters")
        }
        let power = try reader.optional("measuredPower").map { (value) throws(ConfigError) in
            Int(try reader.integer(value, key: "measuredPower", in: Self.measuredPowerRange))
        }
        self.init(beacon: BeaconID(rawValue: canonical), alias: alias, name: name, measuredPower: power)
    }
}
