/// Lets a log line that can repeat without end (a broker refusing every publication, a node
/// sending malformed messages, a flood of unknown beacons, an out-queue that is full) through at
/// most once per `interval`, and counts what it held back, so the line that does go out says how
/// many it stands for and over how long (`dropped 12,345 publications in the last 10 s`).
/// The first occurrence is logged at once: an operator watching the log sees the problem start.
/// `flush(at:)`, called at a program's ticks, reports what a flood held back after its last line
/// even when no further occurrence comes. Pure: the caller passes the time.
public struct RepeatedLogGate: Sendable {
    /// What a line due now stands for.
    public struct Summary: Sendable, Hashable, CustomStringConvertible {
        /// Occurrences since the last line (this one included).
        public var count: Int
        /// Seconds since the last line (0 for the first line of a quiet gate).
        public var seconds: Double

        public init(count: Int, seconds: Double) {
            self.count = count
            self.seconds = seconds
        }

        /// `12,345 in the last 10 s`, or `1` for a first line.
        public var description: String {
            let number = Self.grouped(count)
            guard seconds > 0 else { return number }
            return "\(number) in the last \(Int(seconds.rounded())) s"
        }

        static func grouped(_ value: Int) -> String {
            let digits = String(value.magnitude)
            var out = ""
            for (index, digit) in digits.enumerated() {
                if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
                out.append(digit)
            }
            return value < 0 ? "-" + out : out
        }
    }

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
        summary(count, at: time)?.count
    }

    /// Notes `count` occurrences at `time`; returns what the line to log now stands for, or nil
    /// when no line is due yet.
    public mutating func summary(_ count: Int = 1, at time: Instant) -> Summary? {
        heldBack += count
        return due(at: time)
    }

    /// The occurrences held back since the last line, once `interval` has passed since it; nil
    /// when there are none or the interval has not passed. Call it at ticks, so the end of a
    /// flood is reported.
    public mutating func flush(at time: Instant) -> Summary? {
        guard heldBack > 0 else { return nil }
        return due(at: time)
    }

    private mutating func due(at time: Instant) -> Summary? {
        if let lastLine, time.since(lastLine) < interval { return nil }
        let seconds = lastLine.map { time.since($0) } ?? 0
        lastLine = time
        defer { heldBack = 0 }
        return Summary(count: heldBack, seconds: seconds)
    }
}
