/// One received advertisement of a trace (docs/Files.md): who heard which beacon how loud, when.
/// Its own shape because it comes before any filter: a replay runs the node's tracking on it.
public struct TraceSample: Sendable, Hashable {
    /// When the advertisement was heard, on the trace's clock.
    public var time: Instant
    /// The node that heard it.
    public var node: String
    /// The room the node serves.
    public var room: String
    /// The beacon heard.
    public var beacon: BeaconID
    /// dBm of this advertisement.
    public var rssi: Int
    /// The beacon's RSSI at 1 m if the trace knows it, else nil (the configured default applies).
    public var measuredPower: Int?
    /// For a recorded trace of published measurements (a `proximity` column): what the node
    /// published; nil for a trace of received advertisements.
    public var publication: RecordedMeasurement?

    /// Creates a sample from its columns.
    public init(time: Instant, node: String, room: String, beacon: BeaconID, rssi: Int, measuredPower: Int?,
                publication: RecordedMeasurement? = nil) {
        self.publication = publication
        self.time = time
        self.node = node
        self.room = room
        self.beacon = beacon
        self.rssi = rssi
        self.measuredPower = measuredPower
    }
}
