/// One entry of the known-beacons message: a beacon the agent measures even outside every region,
/// with an optional alias for its topics, a display name and its measured power; or a phone or
/// watch known by its Identity Resolving Key (`irk`), whose alias is then required.
public struct KnownBeacon: Hashable, Sendable {
    /// The canonical id, as the agent derives it from advertisements (`irk-…` for a key).
    public var beacon: BeaconID
    /// The device's key, for a phone or watch followed across its resolvable private addresses.
    /// Kept in memory and in the agent's state file only; never in a topic, payload or log line.
    public var irk: IdentityResolvingKey?
    /// Seconds this device may stay unheard before the aggregator says it is away, when it should
    /// be longer than the site's `decision.awayTimeout` (a locked phone advertises seldom).
    public var awayTimeout: Double?
    /// The alias used in topics and as the payloads' `id` (docs/MQTT.md); nil means the canonical id.
    public var alias: TopicLevelID?
    /// A display name (`Alice's keys`), any text.
    public var name: String?
    /// RSSI at 1 m in dBm, overriding what the beacon advertises.
    public var measuredPower: Int?
    /// Worn on a body (a wristband, a watch, a phone in a pocket; a key fob on a person), default
    /// false (fixed, carried on something, or on a pet). It reaches the agents with the rest of the
    /// entry (`<root>/config/beacons`, `BeaconTrack.worn`); the room decision decides a worn beacon
    /// as any other.
    public var worn: Bool

    /// The range accepted for `measuredPower`, in dBm.
    public static let measuredPowerRange: ClosedRange<Int64> = -127...0
    /// The longest display name accepted, in characters.
    public static let maximumNameLength = 128
    /// The range accepted for `awayTimeout`, seconds (up to a day).
    public static let awayTimeoutRange: ClosedRange<Double> = 1...86_400

    /// Creates an entry; only the canonical id is required (a key entry needs an alias too, which parsing checks).
    public init(
        beacon: BeaconID, alias: TopicLevelID? = nil, name: String? = nil, measuredPower: Int? = nil,
        irk: IdentityResolvingKey? = nil, awayTimeout: Double? = nil, worn: Bool = false
    ) {
        self.worn = worn
        self.beacon = beacon
        self.alias = alias
        self.name = name
        self.measuredPower = measuredPower
        self.irk = irk
        self.awayTimeout = awayTimeout
    }

    /// The id topics and payloads use: the alias, or else the canonical id.
    public var topicID: String { alias?.rawValue ?? beacon.rawValue }

    /// One entry from its JSON object: `{"beacon":"ibeacon-…","id":"alice-keys","name":"Alice's keys","measuredPower":-59}`
    /// or `{"irk":"<32 hex or base64>","id":"alice-phone","name":"Alice's iPhone","awayTimeout":600,"worn":true}`.
    /// `crypto` gives the SHA-256 an `irk` entry's canonical id is cut from; without it (a program
    /// that resolves no keys) an `irk` entry is refused.
    public init(json value: JSONValue, at path: FieldPath, crypto: (any IdentityKeyCrypto)? = nil) throws(ConfigError) {
        let reader = try JSONFieldReader(value, at: path)
        try reader.rejectUnknownKeys(["beacon", "irk", "id", "name", "measuredPower", "awayTimeout", "worn"])
        let canonical: String
        var key: IdentityResolvingKey?
        if let irkValue = reader.optional("irk") {
            guard reader.optional("beacon") == nil else {
                throw ConfigError(.invalidValue, path: path.appending("beacon"),
                    message: "an entry has either beacon or irk, not both (a key's id is derived from it)")
            }
            // The key is never quoted back, not even cut short: a mistyped key is still most of a key.
            guard case .string(let text) = irkValue else {
                throw ConfigError(.wrongType, path: path.appending("irk"), message: "expected text (32 hex digits or base64)")
            }
            do {
                key = try IdentityResolvingKey(parsing: text)
            } catch {
                throw ConfigError(.invalidValue, path: path.appending("irk"), message: error.description)
            }
            guard let crypto else {
                throw ConfigError(.invalidValue, path: path.appending("irk"),
                    message: "keys belong in the agents' configuration only; name the device here by its id, beacon: irk-<12 hex> (presence-agent irk import prints it)")
            }
            guard reader.optional("id") != nil else {
                throw ConfigError(.missing, path: path.appending("id"),
                    message: "required for a device known by its irk: the alias its topics use (e.g. alice-phone)")
            }
            canonical = BeaconID(key!.canonicalID(sha256: crypto.sha256)).rawValue
        } else {
            let text = try reader.string(try reader.required("beacon"), key: "beacon")
            guard let form = BeaconIDSyntax.canonical(text) else {
                throw ConfigError(.invalidValue,
                    path: path.appending("beacon"),
                    message: "\(ConfigError.quoted(text, limit: 80)) is not a beacon id (\(BeaconIDSyntax.rule))")
            }
            guard form == text else {
                throw ConfigError(.invalidValue,
                    path: path.appending("beacon"),
                    message: "\(ConfigError.quoted(text, limit: 80)) is not in canonical form; write '\(form)'")
            }
            canonical = form
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
        let away = try reader.optional("awayTimeout").map { (value) throws(ConfigError) in
            try reader.number(value, key: "awayTimeout", in: Self.awayTimeoutRange)
        }
        let worn = try reader.optional("worn").map { (value) throws(ConfigError) in try reader.bool(value, key: "worn") }
        self.init(beacon: BeaconID(rawValue: canonical), alias: alias, name: name, measuredPower: power, irk: key,
                  awayTimeout: away, worn: worn ?? false)
    }
}
