/// The `<root>/config/regions` message: the regions every node monitors (docs/MQTT.md).
///
/// `{"revision":7,"regions":[{"id":"office","uuid":"…","major":1}, …]}`
public struct RegionsConfig: Hashable, Sendable {
    /// The operator's revision number of the message, echoed in the status answer and the node's info.
    public var revision: Int64
    /// In message order; ids are unique.
    public var regions: [BeaconRegion]

    /// Creates the message from its revision and regions.
    public init(revision: Int64, regions: [BeaconRegion]) {
        self.revision = revision
        self.regions = regions
    }

    /// Parses and validates a payload as a whole: `.cleared` for the empty payload, otherwise every
    /// region valid or the first error, named by its field (`regions[2].uuid: 'abc' is not a UUID`).
    public static func parse(
        _ payload: [UInt8], maximumBytes: Int = JSONParser.defaultMaximumBytes
    ) throws(ConfigError) -> ConfigPayload<RegionsConfig> {
        try ConfigRevision.parse(payload, maximumBytes: maximumBytes) { (value) throws(ConfigError) in
            try RegionsConfig(json: value)
        }
    }

    /// Validates an already parsed message.
    public init(json value: JSONValue) throws(ConfigError) {
        let reader = try JSONFieldReader(value, at: .root)
        try reader.rejectUnknownKeys(["revision", "regions"])
        let revision = try ConfigRevision.read(reader)
        let elements = try reader.array(try reader.required("regions"), key: "regions")
        var regions: [BeaconRegion] = []
        regions.reserveCapacity(elements.count)
        var seen = Set<TopicLevelID>()
        let listPath = FieldPath.root.appending("regions")
        for (position, element) in elements.enumerated() {
            let path = listPath.appending(index: position)
            let region = try BeaconRegion(json: element, at: path)
            guard seen.insert(region.id).inserted else {
                throw ConfigError(.duplicate, path: path.appending("id"), message: "duplicate id '\(region.id)'")
            }
            regions.append(region)
        }
        self.init(revision: revision, regions: regions)
    }

    /// The message as JSON, in the form `parse` reads (for the agent's state directory).
    public var jsonText: String {
        var out = "{\"revision\":\(revision),\"regions\":["
        for (position, region) in regions.enumerated() {
            if position > 0 { out += "," }
            out += region.jsonText
        }
        return out + "]}"
    }
}
