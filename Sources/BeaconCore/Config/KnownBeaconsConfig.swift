/// The `<root>/config/beacons` message: known beacons with aliases, names and measured power.
///
/// `{"revision":3,"beacons":[{"beacon":"ibeacon-…","id":"alice-keys","name":"Alice's keys","measuredPower":-59}]}`
public struct KnownBeaconsConfig: Hashable, Sendable {
    /// The operator's revision number of the message, echoed in the status answer and the node's info.
    public var revision: Int64
    /// In message order; each beacon and each alias appears once.
    public var beacons: [KnownBeacon]

    /// Creates the message from its revision and entries.
    public init(revision: Int64, beacons: [KnownBeacon]) {
        self.revision = revision
        self.beacons = beacons
    }

    /// Parses and validates a payload as a whole; `.cleared` for the empty payload.
    /// `crypto`: see `KnownBeacon.init(json:at:crypto:)`.
    public static func parse(
        _ payload: [UInt8], maximumBytes: Int = JSONParser.defaultMaximumBytes, crypto: (any IdentityKeyCrypto)? = nil
    ) throws(ConfigError) -> ConfigPayload<KnownBeaconsConfig> {
        try ConfigRevision.parse(payload, maximumBytes: maximumBytes) { (value) throws(ConfigError) in
            try KnownBeaconsConfig(json: value, crypto: crypto)
        }
    }

    /// Validates an already parsed message. Besides each entry's own rules: a beacon appears once,
    /// an alias appears once, and no alias equals another entry's canonical id (their topics would
    /// collide).
    public init(json value: JSONValue, crypto: (any IdentityKeyCrypto)? = nil) throws(ConfigError) {
        let reader = try JSONFieldReader(value, at: .root)
        try reader.rejectUnknownKeys(["revision", "beacons"])
        let revision = try ConfigRevision.read(reader)
        let elements = try reader.array(try reader.required("beacons"), key: "beacons")
        let listPath = FieldPath.root.appending("beacons")
        var beacons: [KnownBeacon] = []
        beacons.reserveCapacity(elements.count)
        var topicIDs = Set<String>()
        var canonicalIDs = Set<BeaconID>()
        for (position, element) in elements.enumerated() {
            let path = listPath.appending(index: position)
            let entry = try KnownBeacon(json: element, at: path, crypto: crypto)
            guard canonicalIDs.insert(entry.beacon).inserted else {
                // The same key twice has the same `irk-…` id; the id, not the key, is named.
                throw ConfigError(.duplicate, path: path.appending(entry.irk == nil ? "beacon" : "irk"),
                                  message: "duplicate beacon '\(entry.beacon)'")
            }
            if let alias = entry.alias {
                guard topicIDs.insert(alias.rawValue).inserted else {
                    throw ConfigError(.duplicate, path: path.appending("id"), message: "duplicate id '\(alias)'")
                }
            }
            beacons.append(entry)
        }
        // Second pass: an alias may not be some entry's canonical id (two beacons, one topic).
        for (position, entry) in beacons.enumerated() {
            if let alias = entry.alias, alias.rawValue != entry.beacon.rawValue,
                canonicalIDs.contains(BeaconID(rawValue: alias.rawValue))
            {
                throw ConfigError(.duplicate,
                    path: listPath.appending(index: position).appending("id"),
                    message: "'\(alias)' is the id of another beacon")
            }
        }
        self.init(revision: revision, beacons: beacons)
    }
}
