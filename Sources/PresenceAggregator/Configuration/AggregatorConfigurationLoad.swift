import BeaconCore
import ConfigFile
import RoomDecisions
import Foundation

/// One reading of the aggregator's configuration — the file, then the environment, then the flags,
/// then the checks that concern several fields — keeping where each setting's value came from and
/// every mistake, not only the first. `run`, `watch`, `replay` and `check-config` all load through
/// it, so what `check-config` accepts `run` accepts.
public struct AggregatorConfigurationLoad: Sendable {
    /// The result; valid only when `errors` is empty.
    public private(set) var configuration = AggregatorConfiguration.default
    /// Where each setting's value came from; absent: its default.
    public private(set) var sources: [AggregatorSetting: SettingSource] = [:]
    /// Where the known beacons came from (only the file gives them).
    public private(set) var beaconsSource = SettingSource.defaultValue
    /// Where the floors came from (only the file gives them).
    public private(set) var floorsSource = SettingSource.defaultValue
    public private(set) var errors: [AggregatorConfigurationError] = []
    /// What `check-config` shows of `sources:`, with the lines they came from.
    private var sourcesShown: [EffectiveSetting] = []
    /// The password file's path, to show in place of the password.
    private var passwordFile: String?
    /// Settings whose value some layer refused: the checks across settings leave them out, so one
    /// mistake gives one message.
    private var refused: Set<AggregatorSetting> = []

    public init(file: String?, environment: [String: String], flags: [AggregatorSetting: String]) {
        if let file {
            do {
                let text = try String(contentsOfFile: file, encoding: .utf8)
                apply(yaml: text, file: file)
            } catch {
                errors.append(AggregatorConfigurationError(
                    field: file, message: "cannot read the configuration file (\(AggregatorConfiguration.reason(error)))"))
            }
        }
        var layer: [AggregatorSetting: (String, SettingSource)] = [:]
        for setting in AggregatorSetting.allCases {
            if let value = environment[setting.environmentVariable], !value.isEmpty {
                layer[setting] = (value, .environment(setting.environmentVariable))
            }
        }
        apply(layer, field: \.environmentVariable)
        layer = [:]
        for (setting, value) in flags { layer[setting] = (value, .flag(setting.flag ?? setting.yamlPath)) }
        apply(layer) { $0.flag ?? $0.yamlPath }
        checkCombinations()
    }

    // MARK: - Layers

    /// Applies a YAML document. Unknown keys are errors (a typo must not leave a default in force);
    /// an empty value (`username:`) leaves the setting as it is.
    private mutating func apply(yaml text: String, file: String) {
        let root: YAMLNode?
        do {
            root = try YAMLReader.parse(text)
        } catch {
            errors.append(AggregatorConfigurationError(
                field: "", message: "not valid YAML: \(error.message)", source: .file(path: file, line: error.line)))
            return
        }
        guard let root else { return }  // an empty file: defaults
        guard let mapping = root.mapping else {
            errors.append(AggregatorConfigurationError(
                field: "", message: "expected a mapping of settings at the top level", source: .file(path: file, line: root.line)))
            return
        }
        var layer: [AggregatorSetting: (String, SettingSource)] = [:]
        func take(_ key: String, _ line: Int, _ value: YAMLNode, _ setting: AggregatorSetting) {
            let source = SettingSource.file(path: file, line: line)
            guard let scalar = value.scalar else {
                return errors.append(AggregatorConfigurationError(
                    field: key, message: "expected a single value, not a list or mapping", source: source))
            }
            if !scalar.isNull { layer[setting] = (scalar.text, source) }
        }
        for (key, line, value) in mapping.entries {
            let source = SettingSource.file(path: file, line: line)
            switch key {
            case "tls", "decision", "homeAssistant", "failover":
                if value.isNull { continue }
                guard let section = value.mapping else {
                    errors.append(AggregatorConfigurationError(field: key, message: "expected a mapping", source: source))
                    continue
                }
                for (innerKey, innerLine, innerValue) in section.entries {
                    let path = key + "." + innerKey
                    guard let setting = AggregatorSetting.forYAMLPath(path) else {
                        errors.append(unknownKey(
                            path, known: AggregatorSetting.allCases.map(\.yamlPath).filter { $0.hasPrefix(key + ".") },
                            source: .file(path: file, line: innerLine)))
                        continue
                    }
                    take(path, innerLine, innerValue, setting)
                }
            case "floors":
                if value.isNull { continue }
                if let floors = floors(value, file: file) {
                    configuration.floors = floors
                    floorsSource = source
                }
            case "sources":
                let sources = ForeignSourcesYAML(value, file: file)
                errors += sources.errors
                configuration.sources = sources.settings
                sourcesShown = sources.shown
            case "beacons":
                if value.isNull { continue }
                if let beacons = knownBeacons(value, file: file) {
                    configuration.knownBeacons = beacons
                    beaconsSource = source
                }
            default:
                guard let setting = AggregatorSetting.forYAMLPath(key) else {
                    errors.append(unknownKey(key, known: AggregatorConfiguration.topLevelKeys, source: source))
                    continue
                }
                take(key, line, value, setting)
            }
        }
        apply(layer, field: \.yamlPath)
    }

    /// One layer: both `password` and `passwordFile` in one layer is ambiguous and refused. A bad
    /// value is named and the setting keeps its earlier value; the next settings are still read.
    private mutating func apply(_ layer: [AggregatorSetting: (String, SettingSource)], field: (AggregatorSetting) -> String) {
        if layer[.password] != nil, let (_, source) = layer[.passwordFile] {
            errors.append(AggregatorConfigurationError(
                field: field(.passwordFile), message: "give either \(field(.password)) or \(field(.passwordFile)), not both",
                source: source))
            return
        }
        // A stable order, so that the errors' order does not depend on hashing.
        for setting in AggregatorSetting.allCases {
            guard let (text, source) = layer[setting] else { continue }
            do {
                try configuration.set(setting, to: text, field: field(setting))
                sources[setting] = source
                if setting == .passwordFile { passwordFile = text }
                if setting == .password { passwordFile = nil }
            } catch {
                refused.insert(setting)
                var located = error
                located.source = source
                errors.append(located)
            }
        }
    }

    // MARK: - check-config

    /// Every setting with its effective value and where it came from, in `AggregatorSetting`'s
    /// order, then the known beacons; the password only as `(set)` (or its file's path).
    public var effectiveSettings: [EffectiveSetting] {
        let c = configuration
        func number(_ value: Double) -> String { JSONObjectWriter.number(value, decimals: 3) }
        var settings = AggregatorSetting.allCases.map { setting -> EffectiveSetting in
            let value: String
            switch setting {
            case .broker: value = "\(c.broker)"
            case .username: value = c.username ?? "(none)"
            case .password: value = EffectiveSetting.secret(c.password != nil)
            case .passwordFile: value = passwordFile ?? "(none)"
            case .clientID: value = c.clientID
            case .root: value = c.topics.root
            case .caFile: value = c.caFile ?? (c.broker.usesTLS ? AggregatorConfiguration.defaultCAFile : "(none)")
            case .certificateFile: value = c.certificateFile ?? "(none)"
            case .keyFile: value = c.keyFile ?? "(none)"
            case .margin: value = number(c.decision.margin)
            case .fallRate: value = c.decision.fallRate.isFinite ? number(c.decision.fallRate) : "inf (no hold)"
            case .dwell: value = number(c.decision.dwell)
            case .evidenceToSwitch: value = number(c.decision.evidenceToSwitch)
            case .leadCap: value = number(c.decision.leadCap)
            case .settleTime: value = number(c.decision.settleTime)
            case .staleAfter: value = number(c.decision.staleAfter)
            case .awayTimeout: value = number(c.decision.awayTimeout)
            case .pathLossExponent: value = number(c.decision.pathLossExponent)
            case .model:
                value = c.siteModel.map {
                    "\(c.siteModelPath ?? "?") (\($0.rooms.count) rooms, \($0.nodes.count) nodes"
                        + ($0.decision == .physics ? "; learn judged it no better than physics, which decides)" : ")")
                } ?? "(none)"
            case .discovery: value = String(c.homeAssistantDiscovery)
            case .discoveryPrefix: value = c.homeAssistantPrefix
            case .forgetAfter: value = number(c.forgetAfter)
            case .tickInterval: value = number(c.tickInterval)
            case .maxUnknownBeacons: value = String(c.maxUnknownBeacons)
            case .keepAlive: value = String(c.keepAlive)
            case .failover: value = String(c.failover.enabled)
            case .instance: value = c.failover.instance?.rawValue ?? "(none)"
            case .leaseTimeout: value = number(c.failover.leaseTimeout)
            }
            let source = setting == .password && passwordFile != nil ? sources[.passwordFile] : sources[setting]
            return EffectiveSetting(key: setting.yamlPath, value: value, source: source ?? .defaultValue)
        }
        settings.append(EffectiveSetting(
            key: "beacons", value: c.knownBeacons.isEmpty ? "(none)" : c.knownBeacons.map(\.topicID).joined(separator: ", "),
            source: beaconsSource))
        let byFloor = Dictionary(grouping: c.floors.keys.sorted()) { c.floors[$0]! }
        settings.append(EffectiveSetting(
            key: "floors",
            value: byFloor.isEmpty ? "(none)" : byFloor.keys.sorted().map { "\($0): \(byFloor[$0]!.joined(separator: ", "))" }
                .joined(separator: "; "),
            source: floorsSource))
        settings += sourcesShown.isEmpty ? [EffectiveSetting(key: "sources", value: "(none)", source: .defaultValue)] : sourcesShown
        return settings
    }

    // MARK: - Checks across settings

    /// An error about `setting`, at the place its value came from.
    private mutating func fail(_ setting: AggregatorSetting, _ message: String) {
        guard !refused.contains(setting) else { return }
        errors.append(AggregatorConfigurationError(field: setting.yamlPath, message: message, source: sources[setting]))
    }

    /// Checks that concern several fields, after every layer; every one that fails is named.
    private mutating func checkCombinations() {
        let c = configuration
        if (c.certificateFile == nil) != (c.keyFile == nil) {
            let given = c.certificateFile == nil ? AggregatorSetting.keyFile : .certificateFile
            let missing = c.certificateFile == nil ? AggregatorSetting.certificateFile : .keyFile
            fail(given, "needs \(missing.yamlPath) too (a client certificate and its key go together)")
        }
        if !c.broker.usesTLS, c.caFile != nil || c.certificateFile != nil {
            fail(.broker, "TLS files are given but the broker is \(c.broker) (use mqtts://)")
        }
        if c.forgetAfter > 0, c.forgetAfter < c.decision.awayTimeout {
            fail(.forgetAfter, "\(JSONObjectWriter.number(c.forgetAfter, decimals: 3)) is shorter than decision.awayTimeout (\(JSONObjectWriter.number(c.decision.awayTimeout, decimals: 3))); use 0 to never forget")
        }
        if c.forgetAfter > 0, let (index, known) = c.knownBeacons.enumerated().first(where: { ($0.element.awayTimeout ?? 0) > c.forgetAfter }) {
            errors.append(AggregatorConfigurationError(
                field: "beacons[\(index)].awayTimeout",
                message: "\(JSONObjectWriter.number(known.awayTimeout!, decimals: 3)) is longer than forgetAfter (\(JSONObjectWriter.number(c.forgetAfter, decimals: 3))): the device would be forgotten before it is away",
                source: beaconsSource))
        }
        if c.failover.enabled, c.failover.instance == nil {
            fail(.instance, "required with failover: this instance's id among the site's aggregators, e.g. agg-a")
        }
        if c.failover.enabled, c.failover.leaseTimeout < 1.5 * Double(c.keepAlive) {
            fail(.leaseTimeout, "\(JSONObjectWriter.number(c.failover.leaseTimeout, decimals: 3)) is shorter than 1.5 × keepAlive (\(JSONObjectWriter.number(1.5 * Double(c.keepAlive), decimals: 3))): a standby would take over from a leader the broker still counts as alive")
        }
        if c.password != nil, c.username == nil {
            fail(sources[.passwordFile] != nil && sources[.password] == nil ? .passwordFile : .password, "a password needs a username")
        }
    }

    private func unknownKey(_ path: String, known: [String], source: SettingSource) -> AggregatorConfigurationError {
        AggregatorConfigurationError(field: path, message: "unknown key (known keys: \(known.joined(separator: ", ")))", source: source)
    }

    // MARK: - Floors

    /// The `floors` mapping, floor → its rooms (`ground: [lounge, kitchen]`), as room → floor. Floor
    /// and room names are topic-level ids (they are published, and rooms name topics); a room on two
    /// floors is an error naming both lines.
    private mutating func floors(_ node: YAMLNode, file: String) -> [String: String]? {
        guard let mapping = node.mapping else {
            errors.append(AggregatorConfigurationError(
                field: "floors", message: "expected a mapping of floor → its rooms (ground: [lounge, kitchen])",
                source: .file(path: file, line: node.line)))
            return nil
        }
        var result: [String: String] = [:], lines: [String: Int] = [:]
        var failed = false
        func fail(_ field: String, _ message: String, _ line: Int) {
            failed = true
            errors.append(AggregatorConfigurationError(field: field, message: message, source: .file(path: file, line: line)))
        }
        for (floor, line, value) in mapping.entries {
            let field = "floors." + floor
            guard TopicLevelID.isValid(floor), floor != RoomDecision.notHome else {
                fail(field, "\(ConfigError.quoted(floor, limit: 80)) is not a floor name (\(TopicLevelID.rule); not not_home)", line)
                continue
            }
            let items: [YAMLNode]
            if let sequence = value.sequence { items = sequence } else if let scalar = value.scalar, !scalar.isNull {
                items = [value]
            } else {
                fail(field, "expected a list of rooms", line)
                continue
            }
            for (index, item) in items.enumerated() {
                let itemField = "\(field)[\(index)]"
                guard let room = item.scalar?.text, !(item.scalar?.isNull ?? true) else {
                    fail(itemField, "expected a room name", item.line)
                    continue
                }
                guard TopicLevelID.isValid(room), room != RoomDecision.notHome else {
                    fail(itemField, "\(ConfigError.quoted(room, limit: 80)) is not a room name (\(TopicLevelID.rule); not not_home)", item.line)
                    continue
                }
                if let other = result[room], let otherLine = lines[room] {
                    fail(itemField, "room \(ConfigError.quoted(room)) is on floor \(ConfigError.quoted(other)) already (line \(otherLine))", item.line)
                    continue
                }
                result[room] = floor
                lines[room] = item.line
            }
        }
        return failed ? nil : result
    }

    // MARK: - Known beacons

    /// The `beacons` list, validated exactly like the `<root>/config/beacons` message (MQTT.md):
    /// the YAML is turned into that JSON and parsed by the same code, so errors read
    /// `beacons[1].id: 'Alice' is not a valid id (…)`, with the line of the value named.
    private mutating func knownBeacons(_ node: YAMLNode, file: String) -> [KnownBeacon]? {
        do {
            return try KnownBeaconsYAML.beacons(node)
        } catch {
            errors.append(AggregatorConfigurationError(field: error.field, message: error.message,
                                                       source: .file(path: file, line: error.line)))
            return nil
        }
    }
}
