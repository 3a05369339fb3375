/// One setting of `AggregatorConfiguration` that the YAML file, the environment and flags can
/// each give: its YAML path, environment variable and flag.
public enum AggregatorSetting: String, CaseIterable, Sendable, Hashable {
    case broker, username, password, passwordFile, clientID, root
    case caFile, certificateFile, keyFile
    case margin, fallRate, dwell, evidenceToSwitch, leadCap, settleTime, staleAfter, awayTimeout, pathLossExponent
    case model
    case discovery, discoveryPrefix
    case forgetAfter, tickInterval, maxUnknownBeacons
    case keepAlive, failover, instance, leaseTimeout

    /// Where the setting sits in the YAML file (`decision.dwell`).
    public var yamlPath: String {
        switch self {
        case .broker: "broker"
        case .username: "username"
        case .password: "password"
        case .passwordFile: "passwordFile"
        case .clientID: "clientID"
        case .root: "root"
        case .caFile: "tls.caFile"
        case .certificateFile: "tls.certificateFile"
        case .keyFile: "tls.keyFile"
        case .margin: "decision.margin"
        case .fallRate: "decision.fallRate"
        case .dwell: "decision.dwell"
        case .evidenceToSwitch: "decision.evidence"
        case .leadCap: "decision.leadCap"
        case .settleTime: "decision.settleTime"
        case .staleAfter: "decision.staleAfter"
        case .awayTimeout: "decision.awayTimeout"
        case .pathLossExponent: "decision.pathLossExponent"
        case .model: "decision.model"
        case .discovery: "homeAssistant.discovery"
        case .discoveryPrefix: "homeAssistant.prefix"
        case .forgetAfter: "forgetAfter"
        case .tickInterval: "tickInterval"
        case .keepAlive: "keepAlive"
        case .failover: "failover.enabled"
        case .instance: "failover.instance"
        case .leaseTimeout: "failover.leaseTimeout"
        case .maxUnknownBeacons: "maxUnknownBeacons"
        }
    }

    /// The environment variable that overrides the file.
    public var environmentVariable: String {
        switch self {
        case .broker: "PRESENCE_BROKER"
        case .username: "PRESENCE_USERNAME"
        case .password: "PRESENCE_PASSWORD"
        case .passwordFile: "PRESENCE_PASSWORD_FILE"
        case .clientID: "PRESENCE_CLIENT_ID"
        case .root: "PRESENCE_ROOT"
        case .caFile: "PRESENCE_TLS_CA_FILE"
        case .certificateFile: "PRESENCE_TLS_CERTIFICATE_FILE"
        case .keyFile: "PRESENCE_TLS_KEY_FILE"
        case .margin: "PRESENCE_MARGIN"
        case .fallRate: "PRESENCE_FALL_RATE"
        case .dwell: "PRESENCE_DWELL"
        case .evidenceToSwitch: "PRESENCE_EVIDENCE"
        case .leadCap: "PRESENCE_LEAD_CAP"
        case .settleTime: "PRESENCE_SETTLE_TIME"
        case .staleAfter: "PRESENCE_STALE_AFTER"
        case .awayTimeout: "PRESENCE_AWAY_AFTER"
        case .pathLossExponent: "PRESENCE_PATH_LOSS_EXPONENT"
        case .model: "PRESENCE_MODEL"
        case .discovery: "PRESENCE_DISCOVERY"
        case .discoveryPrefix: "PRESENCE_DISCOVERY_PREFIX"
        case .forgetAfter: "PRESENCE_FORGET_AFTER"
        case .tickInterval: "PRESENCE_TICK_INTERVAL"
        case .keepAlive: "PRESENCE_KEEPALIVE"
        case .failover: "PRESENCE_FAILOVER"
        case .instance: "PRESENCE_INSTANCE"
        case .leaseTimeout: "PRESENCE_LEASE_TIMEOUT"
        case .maxUnknownBeacons: "PRESENCE_MAX_UNKNOWN_BEACONS"
        }
    }

    /// The command-line flag of `presence-aggregator run` (the password has none: a command line
    /// is visible to every user of the machine; `--password-file` is offered instead).
    public var flag: String? {
        switch self {
        case .broker: "--broker"
        case .username: "--username"
        case .password: nil
        case .passwordFile: "--password-file"
        case .clientID: "--client-id"
        case .root: "--root"
        case .caFile: "--ca-file"
        case .certificateFile: "--cert-file"
        case .keyFile: "--key-file"
        case .margin: "--margin"
        case .fallRate: "--fall-rate"
        case .dwell: "--dwell"
        case .evidenceToSwitch: "--evidence"
        case .leadCap: "--lead-cap"
        case .settleTime: "--settle-time"
        case .staleAfter: "--stale-after"
        case .awayTimeout: "--away-after"
        case .pathLossExponent: "--path-loss-exponent"
        case .model: "--model"
        case .discovery: "--no-discovery"
        case .discoveryPrefix: "--discovery-prefix"
        case .forgetAfter: "--forget-after"
        case .tickInterval: "--tick-interval"
        case .keepAlive: "--keepalive"
        case .failover: "--failover"
        case .instance: "--instance"
        case .leaseTimeout: "--lease-timeout"
        case .maxUnknownBeacons: "--max-unknown-beacons"
        }
    }

    /// The YAML setting whose path is `path`, if any.
    static func forYAMLPath(_ path: String) -> AggregatorSetting? {
        allCases.first { $0.yamlPath == path }
    }
}
