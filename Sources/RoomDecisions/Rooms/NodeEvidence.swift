import BeaconCore

/// One measurement from one node about one beacon, as the aggregator receives it (docs/MQTT.md's
/// measurement payload, reduced to what the room decision needs).
/// Its own shape because every source reduces to it: our agents, foreign nodes, replayed traces.
public struct NodeEvidence: Sendable, Hashable {
    /// The beacon measured.
    public var beacon: BeaconID
    /// The node that measured it.
    public var node: String
    /// The room the node serves (from the node's configuration).
    public var room: String
    /// Kalman-filtered RSSI, dBm.
    public var rssiFiltered: Double
    /// RSSI of the last advertisement the node heard, dBm (the measurement's `rssi`); nil when not
    /// given. Recorded beside the evidence (`run --record`, docs/Files.md); the room decision does
    /// not read it.
    public var rssi: Double?
    /// Standard deviation of `rssiFiltered`, dB.
    public var sigma: Double
    /// Estimated distance, metres (includes the node's calibration); nil when the node no longer
    /// hears the beacon.
    public var distance: Double?
    /// Proximity class reported by the node; `unknown` when it no longer hears the beacon.
    public var proximity: Proximity

    /// Whether this says "the node no longer hears the beacon": proximity `unknown` or no distance.
    public var isSilence: Bool { proximity == .unknown || distance == nil }

    /// Creates evidence from the fields of one measurement.
    public init(beacon: BeaconID, node: String, room: String, rssiFiltered: Double, sigma: Double,
                distance: Double?, proximity: Proximity, rssi: Double? = nil) {
        self.beacon = beacon
        self.node = node
        self.room = room
        self.rssiFiltered = rssiFiltered
        self.rssi = rssi
        self.sigma = sigma
        self.distance = distance
        self.proximity = proximity
    }
}
