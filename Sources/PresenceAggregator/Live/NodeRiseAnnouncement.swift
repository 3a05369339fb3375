import BeaconCore

/// What a node's retained info (`<root>/nodes/<node>/info`) says of its rise reports: our agents
/// announce `riseReports` (docs/MQTT.md) so that the aggregator knows at once, even just restarted,
/// which nodes report the rises of beacons marked worn. Read once per info
/// message (on a node's connect or config change), never per measurement.
public enum NodeRiseAnnouncement: Sendable, Hashable {
    /// `riseReports` is `true` or `false`.
    case announced(Bool)
    /// No `riseReports` (or `null`): an agent older than the field, or not our agent. Says nothing.
    case silent
    /// Unreadable; the text names what is wrong (the field's type, or the message itself).
    case malformed(String)

    /// The info's field.
    public static let field = "riseReports"

    /// Reads an info payload; an empty one (a retired node's cleared info) is `silent`.
    public init(infoPayload payload: [UInt8]) {
        if payload.isEmpty { self = .silent; return }
        guard let info = JSONFieldReader(lenient: payload, maximumBytes: 4096, maximumDepth: 4) else {
            self = .malformed("the info is not a JSON object; \(Self.field) not read")
            return
        }
        guard let value = info.optional(Self.field) else { self = .silent; return }
        guard case .bool(let flag) = value else {
            self = .malformed("\(Self.field) is not true or false")
            return
        }
        self = .announced(flag)
    }
}
