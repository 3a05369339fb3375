import BeaconCore
import BluetoothHCI
import ConfigFile
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
    /// Write every advertisement of a measured beacon to this file as a trace (docs/Files.md), for
    /// `presence-aggregator replay`. Flag only.
    public var record: String?
    /// How long a replay (btsnoop, simulate) waits for the retained configuration before it
    /// starts, seconds (default 10). Flag only.
    public var configurationWait = 10.0
    /// Tracking overrides; nil keeps the measured defaults (Sources/BeaconCore/BeaconCore.docc/Tracking.md).
    public var pathLossExponent: Double?
    public var rssiOffset: Double?
    public var measuredPower: Double?
    public var heartbeat: Double?
    public var rssiStep: Double?
    /// Region exit delay, seconds (default 30).
    public var exitDelay: Double?
    /// Advertise this node's node beacon (`NodeBeacon`) through the controller it scans with, so the
    /// other nodes hear it and the aggregator can calibrate the receivers against each other
    /// (YAML `nodeBeacon.enabled`, default true). Turn it off on a node that must stay silent on air
    /// or whose controller cannot advertise while it scans. Radio sources only.
    public var nodeBeaconEnabled = true
    /// Seconds between the node beacon's adverts (YAML `nodeBeacon.interval`, default 1, 0.1…10.24).
    /// Shorter gives the other nodes more samples and costs radio time; longer the reverse.
    public var nodeBeaconInterval = 1.0
    /// Known beacons and devices (YAML `beacons`, the entries of `config/beacons`): for a node
    /// without a broker-pushed list; one pushed replaces them. An entry with an `irk` puts a key in
    /// this file, so keep it readable by the agent only (mode 0600).
    public var knownBeacons: [KnownBeacon] = []

    /// Where each setting's value came from, by its key in the file (`broker.url`); absent: default.
    public internal(set) var sources: [String: SettingSource] = [:]
    /// Mistakes found while reading the file (every one, not only the first); `resolve` adds its
    /// own and reports them all.
    public var problems: [Error] = []

    public init() {}

    /// One mistake: the field, what is wrong and where the value came from (file and line, variable
    /// or flag), so the message leads the user to the place to fix.
    public struct Error: Swift.Error, CustomStringConvertible, Equatable, Sendable {
        public let field: String
        public let message: String
        public let source: SettingSource?
        /// `agent.yaml:4: tracking.heartbeat: 0.0 is not in 1…3600 seconds`,
        /// `room (PRESENCE_ROOM): 'K' must be …`, `node: required: …`.
        public var description: String {
            switch source {
            case .file?: source!.errorPrefix + (field.isEmpty ? "" : "\(field): ") + message
            case .environment(let name)?, .flag(let name)?: "\(field) (\(name)): \(message)"
            case .defaultValue?, nil: "\(field): \(message)"
            }
        }

        public init(_ field: String, _ message: String, source: SettingSource? = nil) {
            self.field = field
            self.message = message
            self.source = source
        }
    }

    /// Every mistake of a configuration, one a line.
    public struct Problems: Swift.Error, CustomStringConvertible, Equatable, Sendable {
        public let errors: [Error]
        public var description: String { errors.map(\.description).joined(separator: "\n") }
    }

    // MARK: - Layers

    /// Applies the YAML file at `path` (`--config`) over the current values; a file that cannot be
    /// read is a problem named `--config`. `run`, `check-config` and `scan` read it so.
    public mutating func apply(file path: String) {
        if let text = try? String(contentsOfFile: path, encoding: .utf8) {
            apply(yaml: text, file: path)
        } else {
            problems.append(Error("--config", "cannot read '\(path)'"))
        }
    }

    /// Applies a YAML document over the current values, through `settings`. `file` names the file
    /// in errors. Every mistake is kept in `problems` (the valid settings are applied all the same):
    /// those of the file's shape (unknown keys, a list where a value belongs, `beacons:`) in the
    /// file's order, then those of values in `settings`' order.
    public mutating func apply(yaml text: String, file: String) {
        var layers = SettingLayers(Self.settings, configuration: self)
        let layer = layers.fileLayer(yaml: text, file: file) { section in
            // Sorted, `beacons` (read here, not a row) among them.
            (section == nil ? Self.settings.fileKeys(in: nil) + ["beacons"] : Self.settings.fileKeys(in: section)).sorted()
        } other: { layers, key, line, value in
            guard key == "beacons" else { return false }
            if !value.isNull, let beacons = Self.knownBeacons(value, file: file, problems: &layers.problems) {
                layers.configuration.knownBeacons = beacons
                layers.record("beacons", from: .file(path: file, line: line))
            }
            return true
        }
        layers.apply(layer)
        take(layers)
    }

    /// Known beacons and devices (YAML `beacons`), checked as the `config/beacons` message is.
    private static func knownBeacons(_ node: YAMLNode, file: String, problems: inout [SettingProblem]) -> [KnownBeacon]? {
        do {
            return try KnownBeaconsYAML.beacons(node, crypto: AgentCore.crypto)
        } catch {
            problems.append(SettingProblem(field: error.field, message: error.message, source: .file(path: file, line: error.line)))
            return nil
        }
    }

    /// `PRESENCE_NODE`, `PRESENCE_ROOM`, `PRESENCE_SOURCE`, `PRESENCE_BROKER`, `PRESENCE_USERNAME`,
    /// `PRESENCE_PASSWORD`, `PRESENCE_PASSWORD_FILE`, `PRESENCE_ROOT`, `PRESENCE_STATE_DIR`
    /// (`settings`). A variable set to nothing sets the empty text, which `resolve` names.
    public mutating func apply(environment: [String: String]) {
        var layers = SettingLayers(Self.settings, configuration: self)
        layers.apply(layers.environmentLayer(environment, ignoringEmpty: false))
        take(layers)
    }

    /// The values, sources and mistakes of layers read over this configuration.
    private mutating func take(_ layers: SettingLayers<String, AgentConfiguration>) {
        let found = layers.problems.map { Error($0.field, $0.message, source: $0.source) }
        self = layers.configuration  // its sources and problems are this configuration's before the layer
        sources.merge(layers.sources) { _, new in new }
        problems += found
    }

    /// Sets one setting from its command-line flag, typed by the argument parser, remembering it
    /// came from the flag `settings` names for `name`.
    public mutating func set<Value>(_ setting: WritableKeyPath<AgentConfiguration, Value>, to value: Value, flagOf name: String) {
        set(setting, to: value, key: name, flag: Self.setting(name).flag ?? name)
    }

    /// Sets one setting from a command-line flag, remembering it came from `flag`.
    public mutating func set<Value>(_ setting: WritableKeyPath<AgentConfiguration, Value>, to value: Value, key: String, flag: String) {
        self[keyPath: setting] = value
        sources[key] = .flag(flag)
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
        /// The node beacon to advertise; nil when it is off or the source is no radio.
        public var nodeBeacon: AdvertisingRequest?
        /// The operator's `tracking.rssiOffset` (file, environment, flag): it wins over the one
        /// `presence-agent calibrate` stored (`InstallCalibrationFile`); nil when not set.
        public var operatorRSSIOffset: Double?
    }

    /// Checks every field; `readFile` reads the password file (injected for tests). Throws every
    /// mistake, those of the file included, not only the first.
    public func resolve(readFile: (String) -> String? = { _ in nil }) throws(Problems) -> Resolved {
        var found = problems
        // A field already named (its value was refused) is not named again as missing or by a check
        // that follows from it: one mistake, one message.
        let named = Set(problems.map(\.field))
        func fail(_ field: String, _ message: String) {
            if !named.contains(field) { found.append(Error(field, message, source: sources[field])) }
        }

        var nodeID = TopicLevelID("-")!
        if let nodeText = node {
            if let id = TopicLevelID(nodeText) { nodeID = id } else { fail("node", "\(ConfigError.quoted(nodeText)) must be \(TopicLevelID.rule)") }
        } else {
            fail("node", "required: this receiver's id, e.g. kitchen-1")
        }
        var roomID = TopicLevelID("-")!
        if let roomText = room {
            if let id = TopicLevelID(roomText) { roomID = id } else { fail("room", "\(ConfigError.quoted(roomText)) must be \(TopicLevelID.rule)") }
        } else {
            fail("room", "required: the room this node serves, e.g. kitchen")
        }
        let topics = TopicScheme(root: root)
        if topics == nil { fail("root", "'\(root)' must be \(TopicScheme.rootRule)") }
        var sourceSpec: SourceSpecification?
        do {
            sourceSpec = try SourceSpecification(parsing: source)
        } catch {
            fail("source", "'\(source)': \(error.reason)")
        }
        if !(speed >= 0 && speed.isFinite) { fail("speed", "\(speed) must be 0 (as fast as possible) or more") }
        let url = MQTTBrokerURL(broker)
        if let problem = MQTTBrokerURL.problem(broker) { fail("broker.url", "'\(broker)' \(problem)") }
        if !(configurationWait >= 0 && configurationWait <= 3600) {
            found.append(Error("--wait-for-config", "\(configurationWait) is not in 0…3600 seconds"))
        }
        if !(telemetryInterval >= 1 && telemetryInterval <= 3600) {
            fail("telemetryInterval", "\(telemetryInterval) is not in 1…3600 seconds")
        }
        if !AdvertisingRequest.intervalRange.contains(nodeBeaconInterval) {
            fail("nodeBeacon.interval", "\(nodeBeaconInterval) is not in 0.1…10.24 seconds")
        }
        if !(1...1_000_000).contains(maxTrackedBeacons) {
            fail("maxTrackedBeacons", "\(maxTrackedBeacons) is not in 1…1000000")
        }

        var tracking = TrackingParameters.default
        if let value = pathLossExponent {
            if NodeSettings.Limits.pathLossExponent.contains(value) { tracking.distance.pathLossExponent = value } else { fail("tracking.pathLossExponent", "\(value) is not in 1…6") }
        }
        if let value = rssiOffset {
            if NodeSettings.Limits.rssiOffset.contains(value) { tracking.distance.rssiOffset = value } else { fail("tracking.rssiOffset", "\(value) is not in -30…30 dB") }
        }
        if let value = measuredPower {
            if (-127...0).contains(value) { tracking.distance.defaultMeasuredPower = value } else { fail("tracking.measuredPower", "\(value) is not in -127…0 dBm") }
        }
        if let value = heartbeat {
            if NodeSettings.Limits.heartbeat.contains(value) { tracking.publish.heartbeat = value } else { fail("tracking.heartbeat", "\(value) is not in 1…3600 seconds") }
        }
        if let value = rssiStep {
            if NodeSettings.Limits.rssiStep.contains(value) { tracking.publish.rssiStep = value } else { fail("tracking.rssiStep", "\(value) is not in 0.5…20 dB") }
        }
        var monitor = RegionMonitorSettings()
        if let value = exitDelay {
            if NodeSettings.Limits.exitDelay.contains(value) { monitor.exitDelay = value } else { fail("regions.exitDelay", "\(value) is not in 1…3600 seconds") }
        }

        var secret = password
        if let passwordFile {
            if let text = readFile(passwordFile) {
                secret = String(text.split(whereSeparator: \.isNewline).first ?? "")
            } else {
                // The step a new node most often misses (the shipped file names this file): say what goes in it.
                let account = username.map { " '\($0)'" } ?? ""
                fail("broker.passwordFile", "cannot read '\(passwordFile)'; create it with the broker account\(account)'s password on its first line")
            }
        }
        if secret != nil && username == nil { fail("broker.username", "required when a password is given") }
        var tls: MQTTTLSConfiguration?
        if let caFile {
            tls = MQTTTLSConfiguration(caFile: caFile, certificateFile: certFile, keyFile: keyFile)
        } else if url?.usesTLS == true {
            fail("broker.caFile", "required for mqtts://")
        } else if certFile != nil || keyFile != nil {
            fail("broker.caFile", "required with a client certificate")
        }
        if (certFile == nil) != (keyFile == nil) { fail("broker.keyFile", "certFile and keyFile go together") }

        guard found.isEmpty, let topics, let sourceSpec, let url else { throw Problems(errors: found) }
        var core = AgentCore.Settings(node: nodeID, room: roomID, topics: topics, tracking: tracking, monitor: monitor,
                                      reportUnknown: reportUnknown, maximumTracks: maxTrackedBeacons)
        core.recordsSamples = record != nil
        core.knownBeacons = knownBeacons
        core.operatorSetRSSIOffset = rssiOffset != nil
        var nodeBeacon: AdvertisingRequest?
        switch sourceSpec {
        case .hciSocket, .uart:
            if nodeBeaconEnabled { nodeBeacon = AdvertisingRequest(beacon: NodeBeacon(node: nodeID.rawValue), interval: nodeBeaconInterval) }
        case .btsnoop, .simulate:
            break
        }
        return Resolved(
            core: core,
            source: sourceSpec, speed: speed, exitAtEnd: exitAtEnd, broker: url,
            credentials: username.map { MQTTCredentials(username: $0, password: secret) }, tls: tls,
            clientID: clientID ?? "presence-agent-\(node ?? "")", stateDir: stateDir, telemetryInterval: telemetryInterval,
            record: record, configurationWait: configurationWait, nodeBeacon: nodeBeacon, operatorRSSIOffset: rssiOffset)
    }

    // MARK: - check-config

    /// Every setting with its effective value and where it came from, in `settings`' order, then
    /// the known devices; the password only as `(set)`.
    public var effectiveSettings: [EffectiveSetting] {
        var layers = SettingLayers(Self.settings, configuration: self)
        layers.sources = sources
        // Known devices by the ids their topics use: a phone's alias and canonical irk- id, never its key.
        let beacons = knownBeacons.isEmpty ? "(none)" : knownBeacons.map(\.topicID).joined(separator: ", ")
        return layers.effectiveSettings + [EffectiveSetting(key: "beacons", value: beacons, source: sources["beacons"] ?? .defaultValue)]
    }
}
