/// One received advertisement of a trace (TRACE.md): who heard which beacon how loud, when.
public struct TraceSample: Sendable, Hashable {
    public var time: Instant
    public var node: String
    public var room: String
    public var beacon: BeaconID
    /// dBm of this advertisement.
    public var rssi: Int
    /// The beacon's RSSI at 1 m if the trace knows it, else nil (the configured default applies).
    public var measuredPower: Int?
    /// For a recorded trace of published measurements (a `proximity` column): what the node
    /// published; nil for a trace of received advertisements.
    public var publication: TracePublication?

    public init(time: Instant, node: String, room: String, beacon: BeaconID, rssi: Int, measuredPower: Int?,
                publication: TracePublication? = nil) {
        self.publication = publication
        self.time = time
        self.node = node
        self.room = room
        self.beacon = beacon
        self.rssi = rssi
        self.measuredPower = measuredPower
    }
}
