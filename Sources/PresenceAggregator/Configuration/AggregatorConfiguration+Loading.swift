import MQTTClient
import BeaconCore
import RoomDecisions
import Foundation

extension AggregatorConfiguration {
    /// The file, then the environment, then the flags, each over the one before; then the checks
    /// that concern several fields. `file` nil means no file (defaults). Throws every mistake.
    public static func load(
        file: String?, environment: [String: String], flags: [AggregatorSetting: String]
    ) throws(AggregatorConfigurationProblems) -> AggregatorConfiguration {
        let loaded = AggregatorConfigurationLoad(file: file, environment: environment, flags: flags)
        guard loaded.errors.isEmpty else { throw AggregatorConfigurationProblems(errors: loaded.errors) }
        return loaded.configuration
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
                siteModelPath = text
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

    // MARK: - Helpers

    static let topLevelKeys = [
        "broker", "username", "password", "passwordFile", "clientID", "root", "tls", "beacons", "decision",
        "homeAssistant", "forgetAfter", "tickInterval", "keepAlive", "failover", "maxUnknownBeacons",
    ]

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
    static func readSecret(_ path: String, field: String) throws(AggregatorConfigurationError) -> String {
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
    static func reason(_ error: any Error) -> String {
        switch (error as? CocoaError)?.code {
        case .fileReadNoSuchFile?, .fileNoSuchFile?: return String(cString: strerror(ENOENT))
        case .fileReadNoPermission?: return String(cString: strerror(EACCES))
        case .fileReadInapplicableStringEncoding?: return "not UTF-8 text"
        default: return "\(error)"
        }
    }
}
