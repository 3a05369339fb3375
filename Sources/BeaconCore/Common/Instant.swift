/// A point in time, in seconds since an origin chosen by whoever drives the clock.
///
/// Live programs use the Unix epoch; btsnoop replay uses the capture's timestamps (also Unix time);
/// trace replay uses the trace's own origin. The core never reads a clock itself: every state
/// machine takes an `Instant` as a parameter, so replay runs at CPU speed and tests never sleep.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Seconds since the origin.
    public var seconds: Double

    /// Creates an instant this many seconds after the origin.
    public init(seconds: Double) {
        self.seconds = seconds
    }

    /// Orders instants by their seconds.
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.seconds < rhs.seconds }

    /// `self` moved forward by `interval` seconds.
    public func advanced(by interval: Double) -> Instant { Instant(seconds: seconds + interval) }

    /// Seconds from `earlier` to `self` (negative when `earlier` is later).
    public func since(_ earlier: Instant) -> Double { seconds - earlier.seconds }

    /// The instant `rhs` seconds after `lhs`.
    public static func + (lhs: Instant, rhs: Double) -> Instant { lhs.advanced(by: rhs) }
    /// Seconds from `rhs` to `lhs`.
    public static func - (lhs: Instant, rhs: Instant) -> Double { lhs.since(rhs) }

    /// The seconds since the origin.
    public var description: String { String(seconds) }
}
