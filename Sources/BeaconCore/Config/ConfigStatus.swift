/// The answer to a config message, retained on `<root>/nodes/<node>/config/status` (docs/MQTT.md):
///
/// - `{"status":"ok","topic":"presence/config/regions","revision":7,"regions":12,"appliedAt":"…"}`
/// - `{"status":"error","topic":"presence/config/regions","revision":8,"error":"regions[2].uuid: 'abc' is not a UUID","keptRevision":7}`
///
/// A cleared configuration (empty message) answers `{"status":"ok","topic":…,"cleared":true,"appliedAt":…}`.
/// Keys whose value is not known (the revision of unparseable JSON, a kept revision when nothing was
/// applied before) are left out rather than sent as `null`.
public enum ConfigStatus: Hashable, Sendable {
    /// The message was applied. `count` names what it holds (`regions`: 12, `beacons`: 3).
    case applied(topic: String, revision: Int64, count: (key: String, value: Int)?, at: Instant)
    /// The empty message cleared the configuration.
    case cleared(topic: String, at: Instant)
    /// The message was rejected and nothing changed; `keptRevision` is what stays in force.
    case rejected(topic: String, error: ConfigError, keptRevision: Int64?)

    /// The status payload as JSON text.
    public var jsonText: String {
        var out = "{\"status\":"
        switch self {
        case .applied(let topic, let revision, let count, let at):
            out += "\"ok\",\"topic\":"
            JSONText.appendQuoted(topic, to: &out)
            out += ",\"revision\":\(revision)"
            if let count {
                out += ","
                JSONText.appendQuoted(count.key, to: &out)
                out += ":\(count.value)"
            }
            out += ",\"appliedAt\":\"\(ISO8601Timestamp.string(from: at))\"}"
        case .cleared(let topic, let at):
            out += "\"ok\",\"topic\":"
            JSONText.appendQuoted(topic, to: &out)
            out += ",\"cleared\":true,\"appliedAt\":\"\(ISO8601Timestamp.string(from: at))\"}"
        case .rejected(let topic, let error, let keptRevision):
            out += "\"error\",\"topic\":"
            JSONText.appendQuoted(topic, to: &out)
            if let revision = error.messageRevision { out += ",\"revision\":\(revision)" }
            out += ",\"error\":"
            JSONText.appendQuoted(error.description, to: &out)
            if let keptRevision { out += ",\"keptRevision\":\(keptRevision)" }
            out += "}"
        }
        return out
    }

    /// Equal when they publish the same JSON.
    public static func == (lhs: ConfigStatus, rhs: ConfigStatus) -> Bool { lhs.jsonText == rhs.jsonText }
    /// Hashes the JSON, as `==` compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(jsonText) }
}
