/// The `<root>/nodes/<node>/config` message: one node's settings, pushed by the operator.
///
/// `{"revision":2,"room":"kitchen","rssiOffset":-3,"pathLossExponent":2.7,"exitDelay":30,
/// "reportUnknown":false,"heartbeat":60,"rssiStep":3}`
///
/// Every setting is optional: an absent one (or `null`) leaves the agent's own configuration (file,
/// environment, flags) in force. Each has a range; outside it the whole message is rejected.
public struct NodeSettings: Hashable, Sendable {
    /// The operator's revision number of the message, echoed in the status answer and the node's info.
    public var revision: Int64
    /// The room this node serves.
    public var room: TopicLevelID?
    /// Calibration added to the beacon's measured power, in dB.
    public var rssiOffset: Double?
    /// The log-distance model's path-loss exponent `n`.
    public var pathLossExponent: Double?
    /// Seconds without a matching beacon before a region is left (also how long a new region stays
    /// `unknown`).
    public var exitDelay: Double?
    /// Whether every decodable beacon is measured, not only known ones and region members.
    public var reportUnknown: Bool?
    /// Seconds between measurements of a beacon that is heard but does not change.
    public var heartbeat: Double?
    /// dB the filtered RSSI must move before a new measurement is published (the publish
    /// policy's step; a dB change is a distance ratio, the same at 1 m and at 10 m).
    public var rssiStep: Double?

    /// Accepted ranges, for the agent's own configuration file to share.
    public enum Limits {
        /// `rssiOffset`, in dB.
        public static let rssiOffset: ClosedRange<Double> = -30...30
        /// `pathLossExponent`.
        public static let pathLossExponent: ClosedRange<Double> = 1...6
        /// `exitDelay`, in seconds.
        public static let exitDelay: ClosedRange<Double> = 1...3600
        /// `heartbeat`, in seconds.
        public static let heartbeat: ClosedRange<Double> = 1...3600
        /// `rssiStep`, in dB.
        public static let rssiStep: ClosedRange<Double> = 0.5...20
    }

    static let jsonKeys = [
        "revision", "room", "rssiOffset", "pathLossExponent", "exitDelay", "reportUnknown", "heartbeat",
        "rssiStep",
    ]

    /// Creates settings; an absent setting leaves the agent's own configuration in force.
    public init(
        revision: Int64, room: TopicLevelID? = nil, rssiOffset: Double? = nil, pathLossExponent: Double? = nil,
        exitDelay: Double? = nil, reportUnknown: Bool? = nil, heartbeat: Double? = nil, rssiStep: Double? = nil
    ) {
        self.revision = revision
        self.room = room
        self.rssiOffset = rssiOffset
        self.pathLossExponent = pathLossExponent
        self.exitDelay = exitDelay
        self.reportUnknown = reportUnknown
        self.heartbeat = heartbeat
        self.rssiStep = rssiStep
    }

    /// Parses and validates a payload as a whole; `.cleared` for the empty payload.
    public static func parse(
        _ payload: [UInt8], maximumBytes: Int = JSONParser.defaultMaximumBytes
    ) throws(ConfigError) -> ConfigPayload<NodeSettings> {
        try ConfigRevision.parse(payload, maximumBytes: maximumBytes) { (value) throws(ConfigError) in
            try NodeSettings(json: value)
        }
    }

    /// Validates an already parsed message.
    public init(json value: JSONValue) throws(ConfigError) {
        let reader = try JSONFieldReader(value, at: .root)
        try reader.rejectUnknownKeys(Self.jsonKeys)
        func number(_ key: String, _ range: ClosedRange<Double>) throws(ConfigError) -> Double? {
            guard let value = reader.optional(key) else { return nil }
            return try reader.number(value, key: key, in: range)
        }
        self.init(revision: try ConfigRevision.read(reader))
        room = try reader.optional("room").map { (value) throws(ConfigError) in try reader.id(value, key: "room") }
        rssiOffset = try number("rssiOffset", Limits.rssiOffset)
        pathLossExponent = try number("pathLossExponent", Limits.pathLossExponent)
        exitDelay = try number("exitDelay", Limits.exitDelay)
        reportUnknown = try reader.optional("reportUnknown").map { (value) throws(ConfigError) in
            try reader.bool(value, key: "reportUnknown")
        }
        heartbeat = try number("heartbeat", Limits.heartbeat)
        rssiStep = try number("rssiStep", Limits.rssiStep)
    }
}
