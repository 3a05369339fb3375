import BeaconCore

/// The once-a-minute gate of each foreign node's rejected messages: one log line per node and
/// minute, with the count since the last one. At most `maximumNodes` nodes get a gate of their
/// own (a flood of made-up node names shares one), so the gates stay bounded too.
struct ForeignRejectionLog {
    static let maximumNodes = 1_024
    private var gates: [String: RepeatedLogGate] = [:]
    private var shared = RepeatedLogGate(interval: 60)

    /// The count to log now, or nil while this node's minute is not over.
    mutating func note(source: String, at time: Instant) -> Int? {
        if gates[source] == nil {
            guard gates.count < Self.maximumNodes else { return shared.note(at: time) }
            gates[source] = RepeatedLogGate(interval: 60)
        }
        return gates[source]!.note(at: time)
    }
}
