import BeaconCore

/// One ground-truth row (docs/Files.md): the true room of a beacon at a time.
public struct TruthSample: Sendable, Hashable {
    /// The time of the row, on the trace's clock.
    public var time: Instant
    /// The beacon.
    public var beacon: BeaconID
    /// The beacon's true room at `time`.
    public var room: String
    /// The room's floor, from the optional `floor` column; nil when not given.
    public var floor: String?

    /// Creates a sample from its columns.
    public init(time: Instant, beacon: BeaconID, room: String, floor: String? = nil) {
        self.time = time
        self.beacon = beacon
        self.room = room
        self.floor = floor
    }
}
