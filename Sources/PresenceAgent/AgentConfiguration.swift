import BeaconCore
import BluetoothHCI
import MQTTClient

/// Everything `presence-agent run` needs, with documented defaults. Read from the YAML file
/// (`etc/presence-agent.yaml` documents every key), then the environment, then flags — each later
/// source overrides the earlier. Every error names the field.
public struct AgentConfiguration: Sendable, Equatable {
    /// This receiver's id (topic level): required.
    public var node: String?
    /// The room it serves: required unless the node config from the broker sets it.
    public var room: String?
    /// `hci0`, `hci:N`, `uart:/dev/ttyACM0[@1000000]`, `btsnoop:FILE`, `simulate[:FILE]`. Default `hci0`.
    public var source = "hci0"
    /// Replay pace of captures and the simulator: 1 real time, 0 as fast as possible.
    public var speed = 1.0
    /// With a capture: deliver what is left, publish `offline` and exit at its end.
    public var exitAtEnd = false
    public var broker = "mqtt://127.0.0.1:1883"
    public var username: String?
    public var password: String?
    /// A file whose first line is the password (keeps it out of the config and the process list).
    public var passwordFile: String?
    public var caFile: String?
    public var certFile: String?
    public var keyFile: String?
    /// Default `presence-agent-<node>`.
    public var clientID: String?
    /// Topic root, default `presence`.
    public var root = "presence"
    /// Where the last applied configuration is kept, default `/var/lib/presence-agent`.
    public var stateDir = "/var/lib/presence-agent"
    /// Measure every decodable beacon, not just known ones and those in a region.
    public var reportUnknown = false
    /// Seconds between telemetry messages.
    public var telemetryInterval = 30.0
    /// At most this many beacons tracked at once (YAML `maxTrackedBeacons`, `--max-tracked-beacons`;
    /// default 10,000): bounds memory under a flood of random addresses. Known beacons are always
    /// tracked; beacons that match nothing (discovery) give way first, the longest silent first.
    public var maxTrackedBeacons = 10_000
    /// Write every advertisement of a measured beacon to this file as a trace (TRACE.md), for
    /// `presence-aggregator replay`. Flag only.
    public var record: String?
    /// How long a replay (btsnoop, simulate) waits for the retained configuration before it
    /// starts, seconds (default 10). Flag only.
    public var configurationWait = 10.0
    /// Tracking overrides; nil keeps the measured defaults (README: Tracking).
    public var pathLossExponent: Double?
    public var rssiOffset: Double?
    public var measuredPower: Double?
    public var heartbeat: Double?
    public var rssiStep: Double?
    /// Region exit delay, seconds (default 30).
    public var exitDelay: Double?
    /// Known beacons and devices (YAML `beacons`, the entries of `config/beacons`): for a node
    /// without a broker-pushed list; one pushed replaces them. An entry with an `irk` puts a key in
    /// this file, so keep it readable by the agent only (mode 0600).
    public var knownBeacons: [KnownBeacon] = []

    public init() {}

    public struct Error: Swift.Error, CustomStringConvertible, Equatable, Sendable {
        public let field: String
        public let message: String
        public var description: String { "\(field): \(message)" }

        public init(_ field: String, _ message: String) {
            self.field = field
            self.message = message
        }
    }

    // MARK: - YAML

    static let fileKeys: Set<String> = [
        "node", "room", "source", "speed", "broker", "root", "stateDir", "reportUnknown", "telemetryInterval", "tracking",
        "maxTrackedBeacons",
        "regions", "beacons",
    ]
    static let brokerKeys: Set<String> = ["url", "username", "password", "passwordFile", "caFile", "certFile", "keyFile", "clientId"]
    static let trackingKeys: Set<String> = ["pathLossExponent", "rssiOffset", "measuredPower", "heartbeat", "rssiStep"]
    static let regionKeys: Set<String> = ["exitDelay"]

    /// Applies a YAML document over the current values. `file` names the file in errors.
    public mutating func apply(yaml text: String, file: String) throws(Error) {
        let document: YAMLNode?
        do {
            document = try YAMLParser.parse(text)
        } catch {
            throw Error(file, "not valid YAML (\(error))")
        }
        guard let document else { return }  // an empty file sets nothing
        guard let mapping = document.mapping else { throw Error(file, "expected a mapping of settings at the top level") }
        let reader = YAMLFieldReader(mapping: mapping, path: "")
        try reader.rejectUnknown(Self.fileKeys)
        if let value = try reader.string("node") { node = value }
        if let value = try reader.string("room") { room = value }
        if let value = try reader.string("source") { source = value }
        if let value = try reader.number("speed") { speed = value }
        if let value = try reader.string("root") { root = value }
        if let value = try reader.string("stateDir") { stateDir = value }
        if let value = try reader.bool("reportUnknown") { reportUnknown = value }
        if let value = try reader.number("telemetryInterval") { telemetryInterval = value }
        if let value = try reader.number("maxTrackedBeacons") {
            guard value == value.rounded(), let count = Int(exactly: value) else {
                throw Error("maxTrackedBeacons", "\(value) is not a whole number")
            }
            maxTrackedBeacons = count
        }
        if let broker = try reader.child("broker") {
            try broker.rejectUnknown(Self.brokerKeys)
            if let value = try broker.string("url") { self.broker = value }
            if let value = try broker.string("username") { username = value }
            if let value = try broker.string("password") { password = value }
            if let value = try broker.string("passwordFile") { passwordFile = value }
            if let value = try broker.string("caFile") { caFile = value }
            if let value = try broker.string("certFile") { certFile = value }
            if let value = try broker.string("keyFile") { keyFile = value }
            if let value = try broker.string("clientId") { clientID = value }
        }
        if let tracking = try reader.child("tracking") {
            try tracking.rejectUnknown(Self.trackingKeys)
            if let value = try tracking.number("pathLossExponent") { pathLossExponent = value }
            if let value = try tracking.number("rssiOffset") { rssiOffset = value }
            if let value = try tracking.number("measuredPower") { measuredPower = value }
            if let value = try tracking.number("heartbeat") { heartbeat = value }
            if let value = try tracking.number("rssiStep") { rssiStep = value }
        }
        if let beacons = mapping["beacons"], !beacons.isNull {
            do {
                knownBeacons = try KnownBeaconsConfig.beacons(yaml: beacons, crypto: AgentCore.crypto)
            } catch {
                throw Error(error.path.description, error.message)
            }
        }
        if let regions = try reader.child("regions") {
            try regions.rejectUnknown(Self.regionKeys)
            if let value = try regions.number("exitDelay") { exitDelay = value }
        }
    }

    // MARK: - Environment

    /// `PRESENCE_NODE`, `PRESENCE_ROOM`, `PRESENCE_SOURCE`, `PRESENCE_BROKER`, `PRESENCE_USERNAME`,
    /// `PRESENCE_PASSWORD`, `PRESENCE_PASSWORD_FILE`, `PRESENCE_ROOT`, `PRESENCE_STATE_DIR`.
    public mutating func apply(environment: [String: String]) {
        if let value = environment["PRESENCE_NODE"] { node = value }
        if let value = environment["PRESENCE_ROOM"] { room = value }
        if let value = environment["PRESENCE_SOURCE"] { source = value }
        if let value = environment["PRESENCE_BROKER"] { broker = value }
        if let value = environment["PRESENCE_USERNAME"] { username = value }
        if let value = environment["PRESENCE_PASSWORD"] { password = value }
        if let value = environment["PRESENCE_PASSWORD_FILE"] { passwordFile = value }
        if let value = environment["PRESENCE_ROOT"] { root = value }
        if let value = environment["PRESENCE_STATE_DIR"] { stateDir = value }
    }

    // MARK: - Validation

    /// The checked settings the service runs with.
    public struct Resolved: Sendable {
        public var core: AgentCore.Settings
        public var source: SourceSpecification
        public var speed: Double
        public var exitAtEnd: Bool
        public var broker: MQTTBrokerURL
        public var credentials: MQTTCredentials?
        public var tls: MQTTTLSConfiguration?
        public var clientID: String
        public var stateDir: String
        public var telemetryInterval: Double
        public var record: String?
        public var configurationWait: Double
    }

    /// Checks every field; `readFile` reads the password file (injected for tests).
    public func resolve(readFile: (String) -> String? = { _ in nil }) throws(Error) -> Resolved {
        guard let nodeText = node else { throw Error("node", "required: this receiver's id, e.g. kitchen-1") }
        guard let nodeID = TopicLevelID(nodeText) else { throw Error("node", "\(ConfigError.quoted(nodeText)) must be \(TopicLevelID.rule)") }
        guard let roomText = room else { throw Error("room", "required: the room this node serves, e.g. kitchen") }
        guard let roomID = TopicLevelID(roomText) else { throw Error("room", "\(ConfigError.quoted(roomText)) must be \(TopicLevelID.rule)") }
        guard let topics = TopicScheme(root: root) else { throw Error("root", "'\(root)' must be \(TopicScheme.rootRule)") }
        let sourceSpec: SourceSpecification
        do {
            sourceSpec = try SourceSpecification(parsing: source)
        } catch {
            throw Error("source", "'\(source)': \(error.reason)")
        }
        guard speed >= 0, speed.isFinite else { throw Error("speed", "\(speed) must be 0 (as fast as possible) or more") }
        guard let url = MQTTBrokerURL(broker) else { throw Error("broker", "'\(broker)' is not \(MQTTBrokerURL.rule)") }
        guard configurationWait >= 0, configurationWait <= 3600 else {
            throw Error("--wait-for-config", "\(configurationWait) is not in 0…3600 seconds")
        }
        guard telemetryInterval >= 1, telemetryInterval <= 3600 else {
            throw Error("telemetryInterval", "\(telemetryInterval) is not in 1…3600 seconds")
        }

        guard (1...1_000_000).contains(maxTrackedBeacons) else {
            throw Error("maxTrackedBeacons", "\(maxTrackedBeacons) is not in 1…1000000")
        }

        var tracking = TrackingParameters.default
        if let value = pathLossExponent {
            guard NodeSettings.Limits.pathLossExponent.contains(value) else { throw Error("tracking.pathLossExponent", "\(value) is not in 1…6") }
            tracking.distance.pathLossExponent = value
        }
        if let value = rssiOffset {
            guard NodeSettings.Limits.rssiOffset.contains(value) else { throw Error("tracking.rssiOffset", "\(value) is not in -30…30 dB") }
            tracking.distance.rssiOffset = value
        }
        if let value = measuredPower {
            guard (-127...0).contains(value) else { throw Error("tracking.measuredPower", "\(value) is not in -127…0 dBm") }
            tracking.distance.defaultMeasuredPower = value
        }
        if let value = heartbeat {
            guard NodeSettings.Limits.heartbeat.contains(value) else { throw Error("tracking.heartbeat", "\(value) is not in 1…3600 seconds") }
            tracking.publish.heartbeat = value
        }
        if let value = rssiStep {
            guard NodeSettings.Limits.rssiStep.contains(value) else { throw Error("tracking.rssiStep", "\(value) is not in 0.5…20 dB") }
            tracking.publish.rssiStep = value
        }
        var monitor = RegionMonitorSettings()
        if let value = exitDelay {
            guard NodeSettings.Limits.exitDelay.contains(value) else { throw Error("regions.exitDelay", "\(value) is not in 1…3600 seconds") }
            monitor.exitDelay = value
        }

        var secret = password
        if let passwordFile {
            guard let text = readFile(passwordFile) else { throw Error("broker.passwordFile", "cannot read '\(passwordFile)'") }
            secret = String(text.split(whereSeparator: \.isNewline).first ?? "")
        }
        if secret != nil && username == nil { throw Error("broker.username", "required when a password is given") }
        var tls: MQTTTLSConfiguration?
        if let caFile {
            tls = MQTTTLSConfiguration(caFile: caFile, certificateFile: certFile, keyFile: keyFile)
        } else if url.usesTLS {
            throw Error("broker.caFile", "required for mqtts://")
        } else if certFile != nil || keyFile != nil {
            throw Error("broker.caFile", "required with a client certificate")
        }
        if (certFile == nil) != (keyFile == nil) { throw Error("broker.keyFile", "certFile and keyFile go together") }

        var core = AgentCore.Settings(node: nodeID, room: roomID, topics: topics, tracking: tracking, monitor: monitor,
                                      reportUnknown: reportUnknown, maximumTracks: maxTrackedBeacons)
        core.recordsSamples = record != nil
        core.knownBeacons = knownBeacons
        return Resolved(
            core: core,
            source: sourceSpec, speed: speed, exitAtEnd: exitAtEnd, broker: url,
            credentials: username.map { MQTTCredentials(username: $0, password: secret) }, tls: tls,
            clientID: clientID ?? "presence-agent-\(nodeText)", stateDir: stateDir, telemetryInterval: telemetryInterval,
            record: record, configurationWait: configurationWait)
    }
}

/// Reads typed values from a YAML mapping, naming the field (`tracking.heartbeat`) in errors.
struct YAMLFieldReader {
    let mapping: YAMLMapping
    let path: String

    private func field(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    func rejectUnknown(_ known: Set<String>) throws(AgentConfiguration.Error) {
        for name in mapping.keys where !known.contains(name) {
            throw AgentConfiguration.Error(field(name), "unknown key (known keys: \(known.sorted().joined(separator: ", ")))")
        }
    }

    func string(_ key: String) throws(AgentConfiguration.Error) -> String? {
        guard let node = mapping[key], !isNull(node) else { return nil }
        guard let scalar = node.scalar else { throw AgentConfiguration.Error(field(key), "expected text") }
        return scalar.text
    }

    func number(_ key: String) throws(AgentConfiguration.Error) -> Double? {
        guard let node = mapping[key], !isNull(node) else { return nil }
        guard let scalar = node.scalar, let number = Double(scalar.text), number.isFinite else {
            throw AgentConfiguration.Error(field(key), "expected a number, got '\(node.scalar?.text ?? "a list or mapping")'")
        }
        return number
    }

    func bool(_ key: String) throws(AgentConfiguration.Error) -> Bool? {
        guard let node = mapping[key], !isNull(node) else { return nil }
        switch node.scalar?.text.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: throw AgentConfiguration.Error(field(key), "expected true or false")
        }
    }

    func child(_ key: String) throws(AgentConfiguration.Error) -> YAMLFieldReader? {
        guard let node = mapping[key], !isNull(node) else { return nil }
        guard let mapping = node.mapping else { throw AgentConfiguration.Error(field(key), "expected a mapping") }
        return YAMLFieldReader(mapping: mapping, path: field(key))
    }

    /// Empty, `~` or `null`, quoted or not: the setting keeps its value.
    private func isNull(_ node: YAMLNode) -> Bool {
        guard let scalar = node.scalar else { return false }
        return scalar.text.isEmpty || scalar.text == "~" || scalar.text == "null"
    }
}
