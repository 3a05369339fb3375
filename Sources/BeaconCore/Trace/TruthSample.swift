/// One ground-truth row (TRACE.md): the true room of a beacon at a time.
public struct TruthSample: Sendable, Hashable {
    public var time: Instant
    public var beacon: BeaconID
    public var room: String

    public init(time: Instant, beacon: BeaconID, room: String) {
        self.time = time
        self.beacon = beacon
        self.room = room
    }
}
