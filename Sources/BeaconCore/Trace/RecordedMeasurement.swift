/// What a node published about a beacon, for a trace recorded by the aggregator
/// (`presence-aggregator run --record`): such a trace holds the measurements as the aggregator
/// received them, after the node's filter, so a replay hands them to the room decision as they
/// are instead of filtering them again. A trace is of this kind when its header has a
/// `proximity` column (docs/Files.md "Recorded traces").
/// Its own shape because it comes after the node's filter: a replay must not filter it again.
public struct RecordedMeasurement: Sendable, Hashable {
    /// The published filtered RSSI, dBm; nil when the message had none.
    public var rssiFiltered: Double?
    /// The published distance, metres; nil when the node no longer hears the beacon.
    public var distance: Double?
    /// The published proximity; `unknown` when the node no longer hears the beacon.
    public var proximity: Proximity
    /// The measurement's `rssi` (the last advert the node heard), dBm: the `rssiAdvert` column; nil
    /// when the message had none. A trace recorded before the column existed gives its `rssi`
    /// column's whole dBm here, as replay read it then.
    public var rssi: Double?

    /// Creates a publication from the published fields.
    public init(rssiFiltered: Double?, distance: Double?, proximity: Proximity, rssi: Double? = nil) {
        self.rssiFiltered = rssiFiltered
        self.distance = distance
        self.proximity = proximity
        self.rssi = rssi
    }

    /// "The node no longer hears the beacon".
    public var isSilence: Bool { proximity == .unknown || distance == nil }
}
