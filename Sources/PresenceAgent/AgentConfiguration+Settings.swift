import BeaconCore
import ConfigFile

extension AgentConfiguration {
    /// Every setting of the agent: its key in the file (the name `check-config` and errors use),
    /// environment variable, flag, documented default, how a value is typed and how `check-config`
    /// shows it, in `check-config`'s order. A value is only typed as it is read (text, a number,
    /// true or false); `resolve` checks ranges and rules on the effective values, so a flag can
    /// replace a file's value that would be refused.
    ///
    /// The last three are flags only (`inFile` false). Flags reach the configuration typed by the
    /// argument parser (`set(_:to:flagOf:)`), the flag named here.
    public static let settings: [Setting<String, AgentConfiguration>] = [
        text("node", \.node, environment: "PRESENCE_NODE", flag: "--node", default: "(none)") { $0.node ?? "(none)" },
        text("room", \.room, environment: "PRESENCE_ROOM", flag: "--room", default: "(none)") { $0.room ?? "(none)" },
        text("source", \.source, environment: "PRESENCE_SOURCE", flag: "--source", default: "hci0") { $0.source },
        number("speed", \.speed, flag: "--speed", default: "1") { shown($0.speed) },
        text("broker.url", \.broker, environment: "PRESENCE_BROKER", flag: "--broker", default: "mqtt://127.0.0.1:1883") { $0.broker },
        text("broker.username", \.username, environment: "PRESENCE_USERNAME", flag: "--username", default: "(none)") { $0.username ?? "(none)" },
        // No flag: a command line is visible to every user of the machine.
        text("broker.password", \.password, environment: "PRESENCE_PASSWORD", default: "(none)") { EffectiveSetting.secret($0.password != nil) },
        text("broker.passwordFile", \.passwordFile, environment: "PRESENCE_PASSWORD_FILE", flag: "--password-file", default: "(none)") {
            $0.passwordFile ?? "(none)"
        },
        text("broker.caFile", \.caFile, flag: "--ca-file", default: "(none)") { $0.caFile ?? "(none)" },
        text("broker.certFile", \.certFile, flag: "--cert-file", default: "(none)") { $0.certFile ?? "(none)" },
        text("broker.keyFile", \.keyFile, flag: "--key-file", default: "(none)") { $0.keyFile ?? "(none)" },
        text("broker.clientId", \.clientID, default: "presence-agent-<node>") { $0.clientID ?? "presence-agent-\($0.node ?? "<node>")" },
        text("root", \.root, environment: "PRESENCE_ROOT", flag: "--root", default: "presence") { $0.root },
        text("stateDir", \.stateDir, environment: "PRESENCE_STATE_DIR", flag: "--state-dir", default: "/var/lib/presence-agent") { $0.stateDir },
        boolean("reportUnknown", \.reportUnknown, flag: "--report-unknown", default: "false") { String($0.reportUnknown) },
        number("telemetryInterval", \.telemetryInterval, default: "30") { shown($0.telemetryInterval) },
        wholeNumber("maxTrackedBeacons", \.maxTrackedBeacons, flag: "--max-tracked-beacons", default: "10000") { String($0.maxTrackedBeacons) },
        boolean("nodeBeacon.enabled", \.nodeBeaconEnabled, default: "true") { String($0.nodeBeaconEnabled) },
        number("nodeBeacon.interval", \.nodeBeaconInterval, default: "1") { shown($0.nodeBeaconInterval) },
        // Tracking overrides: unset, the measured defaults (TrackingParameters.default) hold.
        number("tracking.pathLossExponent", \.pathLossExponent, default: "1.5") {
            shown($0.pathLossExponent ?? TrackingParameters.default.distance.pathLossExponent)
        },
        number("tracking.rssiOffset", \.rssiOffset, default: "0") { shown($0.rssiOffset ?? TrackingParameters.default.distance.rssiOffset) },
        number("tracking.measuredPower", \.measuredPower, default: "-60") {
            shown($0.measuredPower ?? TrackingParameters.default.distance.defaultMeasuredPower)
        },
        number("tracking.heartbeat", \.heartbeat, default: "60") { shown($0.heartbeat ?? TrackingParameters.default.publish.heartbeat) },
        number("tracking.rssiStep", \.rssiStep, default: "3") { shown($0.rssiStep ?? TrackingParameters.default.publish.rssiStep) },
        number("regions.exitDelay", \.exitDelay, default: "30") { shown($0.exitDelay ?? RegionMonitorSettings().exitDelay) },
        boolean("exitAtEnd", \.exitAtEnd, inFile: false, flag: "--exit-at-end", default: "false") { String($0.exitAtEnd) },
        text("record", \.record, inFile: false, flag: "--record", default: "(none)") { $0.record ?? "(none)" },
        number("waitForConfig", \.configurationWait, inFile: false, flag: "--wait-for-config", default: "10") { shown($0.configurationWait) },
    ]

    /// The row named `name`.
    static func setting(_ name: String) -> Setting<String, AgentConfiguration> {
        settings.first { $0.name == name }!
    }

    // MARK: - Rows by type

    private typealias Row = Setting<String, AgentConfiguration>
    private typealias Show = @Sendable (AgentConfiguration) -> String

    /// Text, kept as written (`room: no` is the room `no`).
    private static func text(
        _ name: String, _ field: WritableKeyPath<AgentConfiguration, String?> & Sendable, inFile: Bool = true,
        environment: String? = nil, flag: String? = nil, default defaultValue: String, show: @escaping Show
    ) -> Row {
        Row(name, name, inFile: inFile, environment: environment, flag: flag, default: defaultValue,
            notAValue: "expected text, not a list or mapping", read: { $0[keyPath: field] = $1.text }, show: show)
    }

    private static func text(
        _ name: String, _ field: WritableKeyPath<AgentConfiguration, String> & Sendable,
        environment: String? = nil, flag: String? = nil, default defaultValue: String, show: @escaping Show
    ) -> Row {
        Row(name, name, environment: environment, flag: flag, default: defaultValue,
            notAValue: "expected text, not a list or mapping", read: { $0[keyPath: field] = $1.text }, show: show)
    }

    private static func number(
        _ name: String, _ field: WritableKeyPath<AgentConfiguration, Double?> & Sendable,
        flag: String? = nil, default defaultValue: String, show: @escaping Show
    ) -> Row {
        Row(name, name, flag: flag, default: defaultValue, notAValue: "expected a number, got a list or mapping",
            read: { $0[keyPath: field] = try number($1) }, show: show)
    }

    private static func number(
        _ name: String, _ field: WritableKeyPath<AgentConfiguration, Double> & Sendable, inFile: Bool = true,
        flag: String? = nil, default defaultValue: String, show: @escaping Show
    ) -> Row {
        Row(name, name, inFile: inFile, flag: flag, default: defaultValue, notAValue: "expected a number, got a list or mapping",
            read: { $0[keyPath: field] = try number($1) }, show: show)
    }

    private static func wholeNumber(
        _ name: String, _ field: WritableKeyPath<AgentConfiguration, Int> & Sendable,
        flag: String? = nil, default defaultValue: String, show: @escaping Show
    ) -> Row {
        Row(name, name, flag: flag, default: defaultValue, notAValue: "expected a number, got a list or mapping", read: {
            let value = try number($1)
            guard value == value.rounded(), let count = Int(exactly: value) else { throw SettingError("\(value) is not a whole number") }
            $0[keyPath: field] = count
        }, show: show)
    }

    /// `true`/`false`, or YAML 1.1's `yes`/`no`/`on`/`off` (`YAMLScalar.boolean`).
    private static func boolean(
        _ name: String, _ field: WritableKeyPath<AgentConfiguration, Bool> & Sendable, inFile: Bool = true,
        flag: String? = nil, default defaultValue: String, show: @escaping Show
    ) -> Row {
        Row(name, name, inFile: inFile, flag: flag, default: defaultValue,
            notAValue: "expected true or false (unquoted), got a list or mapping", read: {
                guard let value = $1.boolean else { throw SettingError("expected true or false (unquoted), got '\($1.text)'") }
                $0[keyPath: field] = value
            }, show: show)
    }

    private static func number(_ scalar: YAMLScalar) throws(SettingError) -> Double {
        guard let number = Double(scalar.text), number.isFinite else { throw SettingError("expected a number, got '\(scalar.text)'") }
        return number
    }

    /// A number as `check-config` shows it: whole numbers without `.0`.
    private static func shown(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
