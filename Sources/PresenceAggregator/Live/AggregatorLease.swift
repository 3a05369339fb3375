import BeaconCore

/// One message of the leadership protocol between a site's aggregator instances: an instance and
/// the term it claims or holds. `{"instance":"agg-a","term":3,"at":"2026-11-22T08:15:02.123Z"}`
/// on `<root>/aggregator/claim` (a claim) and `<root>/aggregator/leader` (the holder, renewed),
/// both retained: an instance that starts during an election learns the term already claimed. `at` is informative; receivers time leases on their own clock.
public struct AggregatorLease: Sendable, Hashable, CustomStringConvertible {
    public var instance: TopicLevelID
    /// Elections are numbered from 1; the first claim of a term wins it.
    public var term: Int

    public init(instance: TopicLevelID, term: Int) {
        self.instance = instance
        self.term = term
    }

    /// Reads a lease message; nil for anything else (empty, not JSON, missing or wrong fields).
    /// Never traps on any input.
    public init?(payload: [UInt8]) {
        guard !payload.isEmpty, payload.count <= 1024,
            let lease = JSONFieldReader(lenient: payload, maximumBytes: 1024, maximumDepth: 2),
            let instance = lease.lenientString("instance").flatMap(TopicLevelID.init),
            let term = lease.lenientInteger("term"), term >= 1, term <= Int64(Int32.max)
        else { return nil }
        self.instance = instance
        self.term = Int(term)
    }

    /// The payload, stamped with `time`.
    public func json(at time: Instant) -> String {
        var json = JSONObjectWriter()
        json.add("instance", instance.rawValue)
        json.add("term", term)
        json.add("at", ISO8601Timestamp.string(from: time))
        return json.json
    }

    public var description: String { "\(instance)#\(term)" }

    // MARK: - Topics

    /// The holder's retained lease: `<root>/aggregator/leader`.
    public static func leaderTopic(_ topics: TopicScheme) -> String { "\(topics.root)/aggregator/leader" }
    /// Claims, retained: `<root>/aggregator/claim`.
    public static func claimTopic(_ topics: TopicScheme) -> String { "\(topics.root)/aggregator/claim" }
    /// An instance's own echo: when its message here comes back, every retained message of its
    /// earlier subscriptions has arrived (the broker sends one connection's messages in order).
    public static func syncTopic(_ topics: TopicScheme, instance: TopicLevelID) -> String {
        "\(topics.root)/aggregator/instances/\(instance)/sync"
    }
}
