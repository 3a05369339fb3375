import MQTTClient
import BeaconCore
import Foundation

extension AggregatorConfiguration {
    /// The file, then the environment, then the flags, each over the one before; then the checks
    /// that concern several fields. `file` nil means no file (defaults).
    public static func load(
        file: String?, environment: [String: String], flags: [AggregatorSetting: String]
    ) throws(AggregatorConfigurationError) -> AggregatorConfiguration {
        var configuration = AggregatorConfiguration.default
        if let file {
            let text: String
            do {
                text = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw AggregatorConfigurationError(field: file, message: "cannot read the configuration file (\(Self.reason(error)))")
            }
            try configuration.apply(yaml: text, file: file)
        }
        try configuration.apply(environment: environment)
        try configuration.apply(flags: flags)
        try configuration.checkCombinations()
        return configuration
    }

    // MARK: - Layers

    /// Applies a YAML document. Unknown keys are errors (a typo must not leave a default in force);
    /// an empty value (`username:`) leaves the setting as it is.
    public mutating func apply(yaml text: String, file: String) throws(AggregatorConfigurationError) {
        let root: YAMLNode?
        do {
            root = try YAMLParser.parse(text)
        } catch {
            throw AggregatorConfigurationError(field: file, message: "not valid YAML: \(error)")
        }
        guard let root else { return }  // an empty file: defaults
        guard let mapping = root.mapping else {
            throw AggregatorConfigurationError(field: file, message: "expected a mapping of settings at the top level")
        }
        var layer: [AggregatorSetting: String] = [:]
        for (key, value) in mapping.entries {
            switch key {
            case "tls", "decision", "homeAssistant", "failover":
                if value.isNull { continue }
                guard let section = value.mapping else {
                    throw AggregatorConfigurationError(field: key, message: "expected a mapping")
                }
                for (innerKey, innerValue) in section.entries {
                    let path = key + "." + innerKey
                    guard let setting = AggregatorSetting.forYAMLPath(path) else {
                        throw unknownKey(path, known: AggregatorSetting.allCases.map(\.yamlPath).filter { $0.hasPrefix(key + ".") })
                    }
                    if let text = try Self.scalar(innerValue, path: path) { layer[setting] = text }
                }
            case "beacons":
                if value.isNull { continue }
                knownBeacons = try Self.knownBeacons(value)
            default:
                guard let setting = AggregatorSetting.forYAMLPath(key) else {
                    throw unknownKey(key, known: Self.topLevelKeys)
                }
                if let text = try Self.scalar(value, path: key) { layer[setting] = text }
            }
        }
        try apply(layer, field: \.yamlPath)
    }

    /// Applies the `PRESENCE_*` variables that are set (and not empty).
    public mutating func apply(environment: [String: String]) throws(AggregatorConfigurationError) {
        var layer: [AggregatorSetting: String] = [:]
        for setting in AggregatorSetting.allCases {
            if let value = environment[setting.environmentVariable], !value.isEmpty { layer[setting] = value }
        }
        try apply(layer, field: \.environmentVariable)
    }

    /// Applies command-line values, keyed by setting (`--no-discovery` is `.discovery: "false"`).
    public mutating func apply(flags: [AggregatorSetting: String]) throws(AggregatorConfigurationError) {
        try apply(flags) { $0.flag ?? $0.yamlPath }
    }

    /// One layer: both `password` and `passwordFile` in one layer is ambiguous and refused.
    private mutating func apply(
        _ layer: [AggregatorSetting: String], field: (AggregatorSetting) -> String
    ) throws(AggregatorConfigurationError) {
        if layer[.password] != nil, layer[.passwordFile] != nil {
            throw AggregatorConfigurationError(
                field: field(.passwordFile), message: "give either \(field(.password)) or \(field(.passwordFile)), not both")
        }
        // A stable order, so that the first error reported does not depend on hashing.
        for setting in AggregatorSetting.allCases {
            if let text = layer[setting] { try set(setting, to: text, field: field(setting)) }
        }
    }

    // MARK: - One value

    /// Validates `text` for `setting` and stores it; errors are named `field`.
    public mutating func set(_ setting: AggregatorSetting, to text: String, field: String) throws(AggregatorConfigurationError) {
        func fail(_ message: String) -> AggregatorConfigurationError {
            AggregatorConfigurationError(field: field, message: message)
        }
        let quoted = ConfigError.quoted(text, limit: 80)
        switch setting {
        case .broker:
            guard let address = MQTTBrokerURL(text) else { throw fail("\(quoted) is not \(MQTTBrokerURL.rule)") }
            broker = address
        case .username:
            guard !text.isEmpty else { throw fail("must not be empty") }
            username = text
        case .password:
            password = text
        case .passwordFile:
            password = try Self.readSecret(text, field: field)
        case .clientID:
            guard (1...128).contains(text.utf8.count), text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw fail("\(quoted) is not a client id (1–128 printable ASCII characters, no spaces)")
            }
            clientID = text
        case .root:
            guard let scheme = TopicScheme(root: text) else { throw fail("\(quoted) is not a topic root (\(TopicScheme.rootRule))") }
            topics = scheme
        case .caFile:
            caFile = try Self.readableFile(text, field: field)
        case .certificateFile:
            certificateFile = try Self.readableFile(text, field: field)
        case .keyFile:
            keyFile = try Self.readableFile(text, field: field)
        case .margin:
            decision.margin = try Self.number(text, field: field, "is not a number of dB ≥ 0") { $0 >= 0 }
        case .dwell:
            decision.dwell = try Self.seconds(text, field: field)
        case .evidenceToSwitch:
            decision.evidenceToSwitch = try Self.number(text, field: field, "is not a number of dB·s ≥ 0") { $0 >= 0 }
        case .leadCap:
            decision.leadCap = try Self.number(text, field: field, "is not a positive number of dB") { $0 > 0 }
        case .settleTime:
            decision.settleTime = try Self.number(text, field: field, "is not a number of seconds ≥ 0") { $0 >= 0 }
        case .staleAfter:
            decision.staleAfter = try Self.seconds(text, field: field)
        case .awayTimeout:
            decision.awayTimeout = try Self.seconds(text, field: field)
        case .pathLossExponent:
            decision.pathLossExponent = try Self.number(text, field: field, "is not a positive number") { $0 > 0 && $0 <= 10 }
        case .model:
            do {
                siteModel = try SiteModelFile.load(path: text)
            } catch {
                throw fail("\(error)")
            }
        case .discovery:
            guard let flag = Self.boolean(text) else { throw fail("\(quoted) is not true or false") }
            homeAssistantDiscovery = flag
        case .discoveryPrefix:
            guard TopicScheme(root: text) != nil else {
                throw fail("\(quoted) is not a discovery prefix (\(TopicScheme.rootRule))")
            }
            homeAssistantPrefix = text
        case .forgetAfter:
            forgetAfter = try Self.number(text, field: field, "is not a number of seconds ≥ 0 (0: never forget)") { $0 >= 0 }
        case .tickInterval:
            tickInterval = try Self.number(text, field: field, "is not a number of seconds in 0.05…1") { $0 >= 0.05 && $0 <= 1 }
        case .keepAlive:
            let seconds = try Self.number(text, field: field, "is not a whole number of seconds in 5…3600") {
                $0 >= 5 && $0 <= 3600 && $0.rounded() == $0
            }
            keepAlive = Int(seconds)
        case .failover:
            guard let flag = Self.boolean(text) else { throw fail("\(quoted) is not true or false") }
            failover.enabled = flag
        case .instance:
            guard let id = TopicLevelID(text) else { throw fail("\(quoted) is not an instance id (\(TopicLevelID.rule))") }
            failover.instance = id
        case .leaseTimeout:
            failover.leaseTimeout = try Self.number(text, field: field, "is not a number of seconds in 1…3600") { $0 >= 1 && $0 <= 3600 }
        case .maxUnknownBeacons:
            guard let count = Int(text), count >= 1 else { throw fail("\(quoted) is not a whole number of beacons ≥ 1") }
            maxUnknownBeacons = count
        }
    }

    /// Checks that concern several fields, after every layer.
    func checkCombinations() throws(AggregatorConfigurationError) {
        if (certificateFile == nil) != (keyFile == nil) {
            let given = certificateFile == nil ? AggregatorSetting.keyFile : .certificateFile
            let missing = certificateFile == nil ? AggregatorSetting.certificateFile : .keyFile
            throw AggregatorConfigurationError(
                field: given.yamlPath, message: "needs \(missing.yamlPath) too (a client certificate and its key go together)")
        }
        if !broker.usesTLS, caFile != nil || certificateFile != nil {
            throw AggregatorConfigurationError(
                field: AggregatorSetting.broker.yamlPath,
                message: "TLS files are given but the broker is \(broker) (use mqtts://)")
        }
        if forgetAfter > 0, forgetAfter < decision.awayTimeout {
            throw AggregatorConfigurationError(
                field: AggregatorSetting.forgetAfter.yamlPath,
                message: "\(JSONObjectWriter.number(forgetAfter, decimals: 3)) is shorter than decision.awayTimeout (\(JSONObjectWriter.number(decision.awayTimeout, decimals: 3))); use 0 to never forget")
        }
        if forgetAfter > 0, let (index, known) = knownBeacons.enumerated().first(where: { ($0.element.awayTimeout ?? 0) > forgetAfter }) {
            throw AggregatorConfigurationError(
                field: "beacons[\(index)].awayTimeout",
                message: "\(JSONObjectWriter.number(known.awayTimeout!, decimals: 3)) is longer than forgetAfter (\(JSONObjectWriter.number(forgetAfter, decimals: 3))): the device would be forgotten before it is away")
        }
        if failover.enabled, failover.instance == nil {
            throw AggregatorConfigurationError(
                field: AggregatorSetting.instance.yamlPath,
                message: "required with failover: this instance's id among the site's aggregators, e.g. agg-a")
        }
        if failover.enabled, failover.leaseTimeout < 1.5 * Double(keepAlive) {
            throw AggregatorConfigurationError(
                field: AggregatorSetting.leaseTimeout.yamlPath,
                message: "\(JSONObjectWriter.number(failover.leaseTimeout, decimals: 3)) is shorter than 1.5 × keepAlive (\(JSONObjectWriter.number(1.5 * Double(keepAlive), decimals: 3))): a standby would take over from a leader the broker still counts as alive")
        }
        if password != nil, username == nil {
            throw AggregatorConfigurationError(field: AggregatorSetting.password.yamlPath, message: "a password needs a username")
        }
    }

    // MARK: - Helpers

    static let topLevelKeys = [
        "broker", "username", "password", "passwordFile", "clientID", "root", "tls", "beacons", "decision",
        "homeAssistant", "forgetAfter", "tickInterval", "keepAlive", "failover", "maxUnknownBeacons",
    ]

    private func unknownKey(_ path: String, known: [String]) -> AggregatorConfigurationError {
        AggregatorConfigurationError(field: path, message: "unknown key (known keys: \(known.joined(separator: ", ")))")
    }

    /// A scalar's text; nil for an empty value (`key:` or `~`).
    private static func scalar(_ node: YAMLNode, path: String) throws(AggregatorConfigurationError) -> String? {
        guard let scalar = node.scalar else {
            throw AggregatorConfigurationError(field: path, message: "expected a single value, not a list or mapping")
        }
        return scalar.isNull ? nil : scalar.text
    }

    /// The `beacons` list, validated exactly like the `<root>/config/beacons` message (MQTT.md), by
    /// the same code the agent's file uses. The aggregator holds no keys: a phone or watch is named
    /// here by its canonical `irk-…` id (what its measurements carry), never by its `irk`.
    private static func knownBeacons(_ node: YAMLNode) throws(AggregatorConfigurationError) -> [KnownBeacon] {
        do {
            return try KnownBeaconsConfig.beacons(yaml: node)
        } catch {
            throw AggregatorConfigurationError(field: error.path.description, message: error.message)
        }
    }

    private static func number(
        _ text: String, field: String, _ rule: String, _ accept: (Double) -> Bool
    ) throws(AggregatorConfigurationError) -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let value = Double(trimmed), value.isFinite, accept(value),
            trimmed.allSatisfy({ $0.isNumber || "+-.eE".contains($0) })
        else { throw AggregatorConfigurationError(field: field, message: "\(ConfigError.quoted(text, limit: 40)) \(rule)") }
        return value
    }

    private static func seconds(_ text: String, field: String) throws(AggregatorConfigurationError) -> Double {
        try number(text, field: field, "is not a positive number of seconds") { $0 > 0 }
    }

    static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on", "1": true
        case "false", "no", "off", "0": false
        default: nil
        }
    }

    private static func readableFile(_ path: String, field: String) throws(AggregatorConfigurationError) -> String {
        guard !path.isEmpty else { throw AggregatorConfigurationError(field: field, message: "must not be empty") }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw AggregatorConfigurationError(field: field, message: "cannot read \(ConfigError.quoted(path, limit: 200))")
        }
        return path
    }

    /// The first line of a secret file (a trailing newline is not part of the password).
    private static func readSecret(_ path: String, field: String) throws(AggregatorConfigurationError) -> String {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw AggregatorConfigurationError(
                field: field, message: "cannot read \(ConfigError.quoted(path, limit: 200)) (\(reason(error)))")
        }
        var secret = Substring(text)
        while secret.last == "\n" || secret.last == "\r" { secret.removeLast() }
        return String(secret)
    }

    /// A short reason for a failed read, in the words of strerror.
    private static func reason(_ error: any Error) -> String {
        switch (error as? CocoaError)?.code {
        case .fileReadNoSuchFile?, .fileNoSuchFile?: return String(cString: strerror(ENOENT))
        case .fileReadNoPermission?: return String(cString: strerror(EACCES))
        case .fileReadInapplicableStringEncoding?: return "not UTF-8 text"
        default: return "\(error)"
        }
    }
}
