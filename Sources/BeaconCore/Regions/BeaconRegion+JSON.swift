extension BeaconRegion {
    /// The keys a region object may have.
    static let jsonKeys = ["id", "uuid", "major", "minor", "notifyOnEntry", "notifyOnExit"]

    /// A region from its JSON object at `path` (docs/MQTT.md):
    /// `{"id":"office","uuid":"…","major":1,"minor":2,"notifyOnEntry":true,"notifyOnExit":true}`.
    public init(json value: JSONValue, at path: FieldPath) throws(ConfigError) {
        let reader = try JSONFieldReader(value, at: path)
        try reader.rejectUnknownKeys(Self.jsonKeys)
        let id = try reader.id(try reader.required("id"), key: "id")
        let uuidText = try reader.string(try reader.required("uuid"), key: "uuid")
        guard let uuid = BeaconUUID(uuidText) else {
            throw ConfigError(.invalidValue, path: path.appending("uuid"), message: "\(ConfigError.quoted(uuidText)) is not a UUID")
        }
        let major = try reader.optional("major").map { (value) throws(ConfigError) in
            UInt16(try reader.integer(value, key: "major", in: 0...65535))
        }
        let minor = try reader.optional("minor").map { (value) throws(ConfigError) in
            UInt16(try reader.integer(value, key: "minor", in: 0...65535))
        }
        let notifyOnEntry = try reader.optional("notifyOnEntry").map { (value) throws(ConfigError) in
            try reader.bool(value, key: "notifyOnEntry")
        }
        let notifyOnExit = try reader.optional("notifyOnExit").map { (value) throws(ConfigError) in
            try reader.bool(value, key: "notifyOnExit")
        }
        guard
            let region = BeaconRegion(
                id: id, uuid: uuid, major: major, minor: minor,
                notifyOnEntry: notifyOnEntry ?? true, notifyOnExit: notifyOnExit ?? true)
        else {
            throw ConfigError(.invalidValue, path: path.appending("minor"), message: "minor requires major")
        }
        self = region
    }

    /// The region as a JSON object, in the form `init(json:at:)` reads (defaults written out).
    public var jsonText: String {
        var out = "{\"id\":"
        JSONText.appendQuoted(id.rawValue, to: &out)
        out += ",\"uuid\":\"\(uuid)\""
        if let major { out += ",\"major\":\(major)" }
        if let minor { out += ",\"minor\":\(minor)" }
        out += ",\"notifyOnEntry\":\(notifyOnEntry),\"notifyOnExit\":\(notifyOnExit)}"
        return out
    }
}
