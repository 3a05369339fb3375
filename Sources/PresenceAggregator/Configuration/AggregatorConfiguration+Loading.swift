import MQTTClient
import BeaconCore
import ConfigFile
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

    /// Validates `text` for `setting` (its check in `settings`) and stores it; errors are named `field`.
    public mutating func set(_ setting: AggregatorSetting, to text: String, field: String) throws(AggregatorConfigurationError) {
        do {
            try setting.setting.read(&self, YAMLScalar(text, style: .tagged))
        } catch {
            throw AggregatorConfigurationError(field: field, message: (error as? SettingError)?.message ?? "\(error)")
        }
    }

    // MARK: - Helpers

    /// The file's top-level keys, as an unknown key's error lists them.
    static let topLevelKeys = [
        "broker", "username", "password", "passwordFile", "clientID", "root", "tls", "beacons", "decision",
        "homeAssistant", "forgetAfter", "tickInterval", "stateDir", "keepAlive", "failover", "maxUnknownBeacons", "floors", "sources", "motion",
        "nodeBeacons",
    ]

    /// A number that `accept` allows, else `'text' rule`.
    static func number(_ text: String, _ rule: String, _ accept: (Double) -> Bool) throws(SettingError) -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let value = Double(trimmed), value.isFinite, accept(value),
            trimmed.allSatisfy({ $0.isNumber || "+-.eE".contains($0) })
        else { throw SettingError("\(ConfigError.quoted(text, limit: 40)) \(rule)") }
        return value
    }

    static func seconds(_ text: String) throws(SettingError) -> Double {
        try number(text, "is not a positive number of seconds") { $0 > 0 }
    }

    static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on", "1": true
        case "false", "no", "off", "0": false
        default: nil
        }
    }

    static func readableFile(_ path: String) throws(SettingError) -> String {
        guard !path.isEmpty else { throw SettingError("must not be empty") }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw SettingError("cannot read \(ConfigError.quoted(path, limit: 200))")
        }
        return path
    }

    /// The first line of a secret file (a trailing newline is not part of the password).
    static func readSecret(_ path: String) throws(SettingError) -> String {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw SettingError("cannot read \(ConfigError.quoted(path, limit: 200)) (\(reason(error)))")
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
