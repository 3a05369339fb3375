/// Capped exponential backoff between connection attempts: `initialDelay · 2ⁿ` after the n-th
/// consecutive failure (n from 0), never more than `maximumDelay`. A connection the broker
/// accepted resets n.
public struct MQTTReconnectPolicy: Sendable, Hashable {
    /// The wait after the first failure (default 1 s).
    public var initialDelay: Duration
    /// The longest wait between attempts (default 60 s).
    public var maximumDelay: Duration

    /// Creates a policy; a `maximumDelay` below `initialDelay` is raised to it.
    public init(initialDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(60)) {
        self.initialDelay = initialDelay
        self.maximumDelay = max(initialDelay, maximumDelay)
    }

    /// The wait before the next attempt after `consecutiveFailures` failed ones (0 = first retry).
    public func delay(afterFailures consecutiveFailures: Int) -> Duration {
        var delay = initialDelay
        var doublings = max(0, consecutiveFailures)
        while doublings > 0 && delay < maximumDelay {
            delay = delay * 2
            doublings -= 1
        }
        return min(delay, maximumDelay)
    }
}
