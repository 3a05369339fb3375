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
    public var configuration: AggregatorConfiguration { layers.configuration }
    /// Where each setting's value came from; absent: its default.
    public var sources: [AggregatorSetting: SettingSource] { layers.sources }
    /// Where the known beacons came from (only the file gives them).
    public private(set) var beaconsSource = SettingSource.defaultValue
    /// Where the floors came from (only the file gives them).
    public private(set) var floorsSource = SettingSource.defaultValue
    public private(set) var errors: [AggregatorConfigurationError] = []
    /// Settings of an older file or environment that no longer exist (`AggregatorConfiguration.removedSettings`),
    /// ignored: one warning each, also kept in `configuration.warnings`.
    public var warnings: [AggregatorConfigurationError] {
        layers.warnings
    }
    /// What `check-config` shows of `sources:`, with the lines they came from.
    private var sourcesShown: [EffectiveSetting] = []
    /// What `check-config` shows of `motion:`.
    private var motionShown: [EffectiveSetting] = []
    /// The values, where each came from, and the mistakes of the layers (`AggregatorConfiguration.settings`).
    private var layers = SettingLayers(AggregatorConfiguration.settings, configuration: .default)

    public init(file: String?, environment: [String: String], flags: [AggregatorSetting: String]) {
        layers.removedKeys = AggregatorConfiguration.removedSettings
        if let file {
            do {
                let text = try String(contentsOfFile: file, encoding: .utf8)
                apply(yaml: text, file: file)
            } catch {
                errors.append(AggregatorConfigurationError(
                    field: file, message: "cannot read the configuration file (\(AggregatorConfiguration.reason(error)))"))
            }
        }
        for (variable, path) in AggregatorConfiguration.removedEnvironment.sorted(by: { $0.key < $1.key })
        where environment[variable].map({ !$0.isEmpty }) ?? false {
            layers.warnings.append(AggregatorConfigurationError(
                field: variable, message: "removed, ignored: \(AggregatorConfiguration.removedSettings[path] ?? path)",
                source: .environment(variable)))
        }
        apply(layers.environmentLayer(environment, ignoringEmpty: true))
        apply(layers.flagLayer(flags))
        checkCombinations()
        layers.configuration.warnings = layers.warnings.map(\.description)
    }

    // MARK: - Layers

    /// Applies a YAML document. Unknown keys are errors (a typo must not leave a default in force);
    /// an empty value (`username:`) leaves the setting as it is. `beacons`, `floors` and `sources`
    /// are read here, in the file's order among the other keys' mistakes.
    private mutating func apply(yaml text: String, file: String) {
        var layers = self.layers
        let layer = layers.fileLayer(yaml: text, file: file) { section in
            section.map(Self.keys(in:)) ?? AggregatorConfiguration.topLevelKeys
        } other: { layers, key, line, value in
            let source = SettingSource.file(path: file, line: line)
            switch key {
            case "floors":
                if value.isNull { return true }
                if let floors = floors(value, file: file, problems: &layers.problems) {
                    layers.configuration.floors = floors
                    floorsSource = source
                }
            case "sources":
                let sources = ForeignSourcesYAML(value, file: file)
                layers.problems += sources.errors
                layers.configuration.sources = sources.settings
                sourcesShown = sources.shown
            case "motion":
                let motion = MotionSourcesYAML(value, file: file)
                layers.problems += motion.errors
                layers.configuration.motion = motion.sensors
                motionShown = motion.shown
            case "beacons":
                if value.isNull { return true }
                if let beacons = knownBeacons(value, file: file, problems: &layers.problems) {
                    layers.configuration.knownBeacons = beacons
                    beaconsSource = source
                }
            default:
                return false
            }
            return true
        }
        self.layers = layers
        apply(layer)
    }

    /// The keys of `section` as an unknown key's error lists them: each setting's path, a section
    /// within it once.
    private static func keys(in section: String) -> [String] {
        var keys: [String] = []
        for path in AggregatorSetting.allCases.map(\.yamlPath) where path.hasPrefix(section + ".") {
            let next = path.dropFirst(section.count + 1).split(separator: ".").first.map(String.init) ?? ""
            if !keys.contains(section + "." + next) { keys.append(section + "." + next) }
        }
        return keys
    }

    /// One layer: both `password` and `passwordFile` in one layer is ambiguous and refused. A bad
    /// value is named and the setting keeps its earlier value; the next settings are still read.
    private mutating func apply(_ layer: SettingLayers<AggregatorSetting, AggregatorConfiguration>.Layer) {
        if let password = layer[.password], let passwordFile = layer[.passwordFile] {
            layers.problems.append(SettingProblem(
                field: passwordFile.field, message: "give either \(password.field) or \(passwordFile.field), not both",
                source: passwordFile.source))
        } else {
            layers.apply(layer)
        }
        errors += layers.problems
        layers.problems = []
    }

    // MARK: - check-config

    /// Every setting with its effective value and where it came from, in `AggregatorSetting`'s
    /// order, then the known beacons, floors and foreign sources; the password only as `(set)`
    /// (or its file's path).
    public var effectiveSettings: [EffectiveSetting] {
        let c = configuration
        var settings = layers.effectiveSettings
        // A password read from a file came from where the file was named.
        if c.passwordFile != nil, let index = settings.firstIndex(where: { $0.key == AggregatorSetting.password.yamlPath }) {
            settings[index].source = sources[.passwordFile] ?? .defaultValue
        }
        settings.append(EffectiveSetting(
            key: "beacons",
            value: c.knownBeacons.isEmpty
                ? "(none)" : c.knownBeacons.map { $0.topicID + ($0.worn ? " (worn)" : "") }.joined(separator: ", "),
            source: beaconsSource))
        let byFloor = Dictionary(grouping: c.floors.keys.sorted()) { c.floors[$0]! }
        settings.append(EffectiveSetting(
            key: "floors",
            value: byFloor.isEmpty ? "(none)" : byFloor.keys.sorted().map { "\($0): \(byFloor[$0]!.joined(separator: ", "))" }
                .joined(separator: "; "),
            source: floorsSource))
        settings += sourcesShown.isEmpty ? [EffectiveSetting(key: "sources", value: "(none)", source: .defaultValue)] : sourcesShown
        settings += motionShown.isEmpty ? [EffectiveSetting(key: "motion", value: "(none)", source: .defaultValue)] : motionShown
        return settings
    }

    // MARK: - Checks across settings

    /// An error about `setting`, at the place its value came from.
    private mutating func fail(_ setting: AggregatorSetting, _ message: String) {
        guard !layers.refused.contains(setting) else { return }
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

    // MARK: - Floors

    /// The `floors` mapping, floor → its rooms (`ground: [lounge, kitchen]`), as room → floor. Floor
    /// and room names are topic-level ids (they are published, and rooms name topics); a room on two
    /// floors is an error naming both lines.
    private func floors(_ node: YAMLNode, file: String, problems: inout [SettingProblem]) -> [String: String]? {
        guard let mapping = node.mapping else {
            problems.append(SettingProblem(
                field: "floors", message: "expected a mapping of floor → its rooms (ground: [lounge, kitchen])",
                source: .file(path: file, line: node.line)))
            return nil
        }
        var result: [String: String] = [:], lines: [String: Int] = [:]
        var failed = false
        func fail(_ field: String, _ message: String, _ line: Int) {
            failed = true
            problems.append(SettingProblem(field: field, message: message, source: .file(path: file, line: line)))
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

    /// The `beacons` list, validated exactly like the `<root>/config/beacons` message (docs/MQTT.md):
    /// the YAML is turned into that JSON and parsed by the same code, so errors read
    /// `beacons[1].id: 'Alice' is not a valid id (…)`, with the line of the value named.
    private func knownBeacons(_ node: YAMLNode, file: String, problems: inout [SettingProblem]) -> [KnownBeacon]? {
        do {
            return try KnownBeaconsYAML.beacons(node)
        } catch {
            problems.append(SettingProblem(field: error.field, message: error.message, source: .file(path: file, line: error.line)))
            return nil
        }
    }
}
