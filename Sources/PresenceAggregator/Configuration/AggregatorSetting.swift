import BeaconCore
import ConfigFile
import MQTTClient
import RoomDecisions

/// One setting of `AggregatorConfiguration` that the YAML file, the environment and flags can
/// each give. Its row in `AggregatorConfiguration.settings` says its YAML path, environment
/// variable, flag, default, check and how `check-config` shows it.
public enum AggregatorSetting: String, CaseIterable, Sendable, Hashable {
    case broker, username, password, passwordFile, clientID, root
    case caFile, certificateFile, keyFile
    case margin, fallRate, dwell, evidenceToSwitch, leadCap, settleTime, staleAfter, awayTimeout, pathLossExponent
    case motionHold
    case model
    case discovery, discoveryPrefix
    case forgetAfter, tickInterval, maxUnknownBeacons
    case keepAlive, failover, instance, leaseTimeout

    /// Its row of the table.
    public var setting: Setting<AggregatorSetting, AggregatorConfiguration> {
        AggregatorConfiguration.settings[Self.allCases.firstIndex(of: self)!]
    }

    /// Where the setting sits in the YAML file (`decision.dwell`).
    public var yamlPath: String { setting.name }

    /// The environment variable that overrides the file.
    public var environmentVariable: String { setting.environmentVariable! }

    /// The command-line flag of `presence-aggregator run` (the password has none: a command line
    /// is visible to every user of the machine; `--password-file` is offered instead).
    public var flag: String? { setting.flag }
}

extension AggregatorConfiguration {
    /// Every setting the file, the environment and flags give, in `AggregatorSetting`'s order (the
    /// order of `check-config` and of the errors of one layer). A check throws what is wrong with
    /// the text; the layer names the field (`decision.dwell`, `PRESENCE_DWELL`, `--dwell`).
    public static let settings: [Setting<AggregatorSetting, AggregatorConfiguration>] = [
        row(.broker, "broker", "PRESENCE_BROKER", "--broker", default: "mqtt://127.0.0.1:1883") { c, text in
            guard let address = MQTTBrokerURL(text) else { throw SettingError("\(quoted(text)) \(MQTTBrokerURL.problem(text) ?? "")") }
            c.broker = address
        } show: { "\($0.broker)" },
        row(.username, "username", "PRESENCE_USERNAME", "--username", default: "(none)") { c, text in
            guard !text.isEmpty else { throw SettingError("must not be empty") }
            c.username = text
        } show: { $0.username ?? "(none)" },
        row(.password, "password", "PRESENCE_PASSWORD", nil, default: "(none)") { c, text in
            c.password = text
            c.passwordFile = nil
        } show: { EffectiveSetting.secret($0.password != nil) },
        row(.passwordFile, "passwordFile", "PRESENCE_PASSWORD_FILE", "--password-file", default: "(none)") { c, text in
            c.password = try readSecret(text)
            c.passwordFile = text
        } show: { $0.passwordFile ?? "(none)" },
        row(.clientID, "clientID", "PRESENCE_CLIENT_ID", "--client-id", default: "presence-aggregator") { c, text in
            guard (1...128).contains(text.utf8.count), text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw SettingError("\(quoted(text)) is not a client id (1–128 printable ASCII characters, no spaces)")
            }
            c.clientID = text
        } show: { $0.clientID },
        row(.root, "root", "PRESENCE_ROOT", "--root", default: "presence") { c, text in
            guard let scheme = TopicScheme(root: text) else { throw SettingError("\(quoted(text)) is not a topic root (\(TopicScheme.rootRule))") }
            c.topics = scheme
        } show: { $0.topics.root },
        // For mqtts:// without a CA file, the system bundle verifies the broker.
        row(.caFile, "tls.caFile", "PRESENCE_TLS_CA_FILE", "--ca-file", default: "(none)") { c, text in
            c.caFile = try readableFile(text)
        } show: { $0.caFile ?? ($0.broker.usesTLS ? defaultCAFile : "(none)") },
        row(.certificateFile, "tls.certificateFile", "PRESENCE_TLS_CERTIFICATE_FILE", "--cert-file", default: "(none)") { c, text in
            c.certificateFile = try readableFile(text)
        } show: { $0.certificateFile ?? "(none)" },
        row(.keyFile, "tls.keyFile", "PRESENCE_TLS_KEY_FILE", "--key-file", default: "(none)") { c, text in
            c.keyFile = try readableFile(text)
        } show: { $0.keyFile ?? "(none)" },
        row(.margin, "decision.margin", "PRESENCE_MARGIN", "--margin", default: "0") { c, text in
            c.decision.rule.margin = try number(text, "is not a number of dB ≥ 0") { $0 >= 0 }
        } show: { shown($0.decision.rule.margin) },
        row(.fallRate, "decision.fallRate", "PRESENCE_FALL_RATE", "--fall-rate", default: "4") { c, text in
            c.decision.rule.fallRate = try number(text, "is not a positive number of dB/s") { $0 > 0 }
        } show: { $0.decision.rule.fallRate.isFinite ? shown($0.decision.rule.fallRate) : "inf (no hold)" },
        row(.dwell, "decision.dwell", "PRESENCE_DWELL", "--dwell", default: "1.5") { c, text in
            c.decision.rule.dwell = try seconds(text)
        } show: { shown($0.decision.rule.dwell) },
        row(.evidenceToSwitch, "decision.evidence", "PRESENCE_EVIDENCE", "--evidence", default: "1.5") { c, text in
            c.decision.rule.evidenceToSwitch = try number(text, "is not a number of dB·s ≥ 0") { $0 >= 0 }
        } show: { shown($0.decision.rule.evidenceToSwitch) },
        row(.leadCap, "decision.leadCap", "PRESENCE_LEAD_CAP", "--lead-cap", default: "3") { c, text in
            c.decision.rule.leadCap = try number(text, "is not a positive number of dB") { $0 > 0 }
        } show: { shown($0.decision.rule.leadCap) },
        row(.settleTime, "decision.settleTime", "PRESENCE_SETTLE_TIME", "--settle-time", default: "1") { c, text in
            c.decision.settleTime = try number(text, "is not a number of seconds ≥ 0") { $0 >= 0 }
        } show: { shown($0.decision.settleTime) },
        row(.staleAfter, "decision.staleAfter", "PRESENCE_STALE_AFTER", "--stale-after", default: "150") { c, text in
            c.decision.staleAfter = try seconds(text)
        } show: { shown($0.decision.staleAfter) },
        row(.awayTimeout, "decision.awayTimeout", "PRESENCE_AWAY_AFTER", "--away-after", default: "30") { c, text in
            c.decision.awayTimeout = try seconds(text)
        } show: { shown($0.decision.awayTimeout) },
        row(.pathLossExponent, "decision.pathLossExponent", "PRESENCE_PATH_LOSS_EXPONENT", "--path-loss-exponent", default: "1.5") { c, text in
            c.decision.pathLossExponent = try number(text, "is not a positive number") { $0 > 0 && $0 <= 10 }
        } show: { shown($0.decision.pathLossExponent) },
        // A worn tag's fade must not hand away a room whose sensor sees someone (the Room decisions
        // article, "Motion"); off by default, as it slows real departures.
        row(.motionHold, "decision.motionHold", "PRESENCE_MOTION_HOLD", "--motion-hold", default: "0") { c, text in
            c.motionDecision.hold = try number(text, "is not a number of dB in 0…20") { $0 >= 0 && $0 <= 20 }
        } show: { shown($0.motionDecision.hold) },
        row(.model, "decision.model", "PRESENCE_MODEL", "--model", default: "(none)") { c, text in
            do {
                var warnings: [String] = []
                c.siteModel = try SiteModelFile.load(path: text, warnings: &warnings)
                c.siteModelPath = text
                c.siteModelWarnings = warnings
            } catch {
                throw SettingError("\(error)")
            }
        } show: { c in
            c.siteModel.map {
                "\(c.siteModelPath ?? "?") (\($0.rooms.count) rooms, \($0.nodes.count) nodes"
                    + ($0.decision == .physics ? "; learn judged it no better than physics, which decides)" : ")")
                    + c.siteModelWarnings.map { "; warning: \($0)" }.joined()
            } ?? "(none)"
        },
        row(.discovery, "homeAssistant.discovery", "PRESENCE_DISCOVERY", "--no-discovery", default: "true") { c, text in
            guard let flag = boolean(text) else { throw SettingError("\(quoted(text)) is not true or false") }
            c.homeAssistantDiscovery = flag
        } show: { String($0.homeAssistantDiscovery) },
        row(.discoveryPrefix, "homeAssistant.prefix", "PRESENCE_DISCOVERY_PREFIX", "--discovery-prefix", default: "homeassistant") { c, text in
            guard TopicScheme(root: text) != nil else {
                throw SettingError("\(quoted(text)) is not a discovery prefix (\(TopicScheme.rootRule))")
            }
            c.homeAssistantPrefix = text
        } show: { $0.homeAssistantPrefix },
        row(.forgetAfter, "forgetAfter", "PRESENCE_FORGET_AFTER", "--forget-after", default: "86400") { c, text in
            c.forgetAfter = try number(text, "is not a number of seconds ≥ 0 (0: never forget)") { $0 >= 0 }
        } show: { shown($0.forgetAfter) },
        row(.tickInterval, "tickInterval", "PRESENCE_TICK_INTERVAL", "--tick-interval", default: "1") { c, text in
            c.tickInterval = try number(text, "is not a number of seconds in 0.05…1") { $0 >= 0.05 && $0 <= 1 }
        } show: { shown($0.tickInterval) },
        row(.maxUnknownBeacons, "maxUnknownBeacons", "PRESENCE_MAX_UNKNOWN_BEACONS", "--max-unknown-beacons", default: "20000") { c, text in
            guard let count = Int(text), count >= 1 else { throw SettingError("\(quoted(text)) is not a whole number of beacons ≥ 1") }
            c.maxUnknownBeacons = count
        } show: { String($0.maxUnknownBeacons) },
        row(.keepAlive, "keepAlive", "PRESENCE_KEEPALIVE", "--keepalive", default: "30") { c, text in
            let seconds = try number(text, "is not a whole number of seconds in 5…3600") { $0 >= 5 && $0 <= 3600 && $0.rounded() == $0 }
            c.keepAlive = Int(seconds)
        } show: { String($0.keepAlive) },
        row(.failover, "failover.enabled", "PRESENCE_FAILOVER", "--failover", default: "false") { c, text in
            guard let flag = boolean(text) else { throw SettingError("\(quoted(text)) is not true or false") }
            c.failover.enabled = flag
        } show: { String($0.failover.enabled) },
        row(.instance, "failover.instance", "PRESENCE_INSTANCE", "--instance", default: "(none)") { c, text in
            guard let id = TopicLevelID(text) else { throw SettingError("\(quoted(text)) is not an instance id (\(TopicLevelID.rule))") }
            c.failover.instance = id
        } show: { $0.failover.instance?.rawValue ?? "(none)" },
        row(.leaseTimeout, "failover.leaseTimeout", "PRESENCE_LEASE_TIMEOUT", "--lease-timeout", default: "60") { c, text in
            c.failover.leaseTimeout = try number(text, "is not a number of seconds in 1…3600") { $0 >= 1 && $0 <= 3600 }
        } show: { shown($0.failover.leaseTimeout) },
    ]

    /// A row whose check reads the value's text (every aggregator setting is one value).
    private static func row(
        _ id: AggregatorSetting, _ path: String, _ variable: String, _ flag: String?, default defaultValue: String,
        read: @escaping @Sendable (inout AggregatorConfiguration, String) throws -> Void,
        show: @escaping @Sendable (AggregatorConfiguration) -> String
    ) -> Setting<AggregatorSetting, AggregatorConfiguration> {
        Setting(id, path, environment: variable, flag: flag, default: defaultValue, read: { try read(&$0, $1.text) }, show: show)
    }

    /// A value in an error: quoted, cut at 80 characters.
    private static func quoted(_ text: String) -> String { ConfigError.quoted(text, limit: 80) }

    /// A number as `check-config` shows it.
    private static func shown(_ value: Double) -> String { JSONObjectWriter.number(value, decimals: 3) }
}
