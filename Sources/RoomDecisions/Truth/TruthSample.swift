import BeaconCore

/// One ground-truth row (TRACE.md): the true room of a beacon at a time.
public struct TruthSample: Sendable, Hashable {
    /// The time of the row, on the trace's clock.
    public var time: Instant
    /// The beacon.
    public var beacon: BeaconID
    /// The beacon's true room at `time`.
    public var room: String

    /// Creates a sample from its columns.
    public init(time: Instant, beacon: BeaconID, room: String) {
        self.time = time
        self.beacon = beacon
        self.room = room
    }
}
