/// Lets a log line that can repeat without end (a broker refusing every publication, a node
/// sending malformed messages, a flood of unknown beacons) through at most once per `interval`,
/// and counts what it held back, so the line that does go out says how many it stands for.
/// The first occurrence is logged at once: an operator watching the log sees the problem start.
public struct RepeatedLogGate: Sendable {
    /// Seconds between two lines.
    public let interval: Double
    private var lastLine: Instant?
    private var heldBack = 0

    /// Creates a gate that lets one line through per `interval` seconds.
    public init(interval: Double = 60) {
        self.interval = interval
    }

    /// Notes `count` occurrences at `time`. Returns how many the line to log now stands for (these
    /// and those held back since the last line), or nil when no line is due yet.
    public mutating func note(_ count: Int = 1, at time: Instant) -> Int? {
        heldBack += count
        if let lastLine, time.since(lastLine) < interval { return nil }
        lastLine = time
        defer { heldBack = 0 }
        return heldBack
    }
}
