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
    /// given. Only the decision's fast clock reads it (`SwitchingRule.fastLead`).
    public var rssi: Double?
    /// Standard deviation of `rssiFiltered`, dB.
    public var sigma: Double
    /// The level a worn beacon's adverts rose to, dBm (the measurement's `riseRssi`, `RiseReport`);
    /// nil when the node reported no rise. Only a rule with `riseLead` reads it.
    public var riseRssi: Double?
    /// Estimated distance, metres (includes the node's calibration); nil when the node no longer
    /// hears the beacon.
    public var distance: Double?
    /// Proximity class reported by the node; `unknown` when it no longer hears the beacon.
    public var proximity: Proximity
    /// A worn beacon's level: the mean RSSI of its adverts over the node's last second, dBm (the
    /// measurement's `level`, `WornLevel`); nil when the node sent none. A site model reads it
    /// (`siteModelLevel`); the physics rule does not.
    public var level: Double?

    /// What a site model reads of this measurement, learning and deciding alike: the node's
    /// `level` when it sent one, else its filtered RSSI; nil when the node no longer hears the beacon.
    public var siteModelLevel: Double? {
        guard !isSilence else { return nil }
        if let level, level.isFinite { return level }
        return rssiFiltered.isFinite ? rssiFiltered : nil
    }

    /// The level of a node's answer to a level query that heard no advert in its last second
    /// (`levelRssi` null, docs/MQTT.md), dBm: −127, the lowest RSSI a controller reports.
    public static let unheardLevel = -127.0

    /// Whether this says "the node no longer hears the beacon": proximity `unknown` or no distance.
    public var isSilence: Bool { proximity == .unknown || distance == nil }

    /// The raw reading's offset above the filtered one, dB (`rawOffset(rssi:rssiFiltered:)`).
    public var rawOffset: Double? { Self.rawOffset(rssi: rssi, rssiFiltered: rssiFiltered) }

    /// The reported rise's level above the filtered reading, dB: on the score's scale, as `rawOffset`.
    public var riseOffset: Double? { Self.rawOffset(rssi: riseRssi, rssiFiltered: rssiFiltered) }

    /// A measurement's `rssi` above its `rssiFiltered`, dB, when it gave both as finite numbers: the
    /// fast clock's reading on the score's scale (the score moves with the filtered RSSI dB for dB).
    /// The one definition the live aggregator and the replay share.
    public static func rawOffset(rssi: Double?, rssiFiltered: Double?) -> Double? {
        guard let rssi, let rssiFiltered, rssi.isFinite, rssiFiltered.isFinite else { return nil }
        return rssi - rssiFiltered
    }

    /// Creates evidence from the fields of one measurement.
    public init(beacon: BeaconID, node: String, room: String, rssiFiltered: Double, sigma: Double,
                distance: Double?, proximity: Proximity, rssi: Double? = nil, riseRssi: Double? = nil,
                level: Double? = nil) {
        self.level = level
        self.riseRssi = riseRssi
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
