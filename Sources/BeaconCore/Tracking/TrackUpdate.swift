/// What one advertisement (or a silence) did to a beacon's track: the values of a measurement
/// message and whether to publish it.
/// Its own shape because it is the tracker's answer, numbers not yet text: the agent writes it
/// as a `MeasurementPayload`, the bench and replay read it directly.
public struct TrackUpdate: Sendable, Hashable {
    /// RSSI of this advertisement, dBm (of the last one heard, for a silence).
    public var rssi: Int
    /// Kalman-filtered RSSI, dBm (as of the last advertisement, for a silence).
    public var rssiFiltered: Double
    /// Standard deviation of `rssiFiltered`, dB.
    public var sigma: Double
    /// P₁ used for the distance, dBm (configured, advertised or default).
    public var measuredPower: Double
    /// Estimated distance from the filtered RSSI, metres; nil when the beacon is no longer heard.
    public var distance: Double?
    /// Proximity class after hysteresis; `unknown` (with no distance) when the beacon is no longer heard.
    public var proximity: Proximity
    /// Whether the publish policy says this measurement goes out now.
    public var shouldPublish: Bool

    /// Creates an update from its values.
    public init(rssi: Int, rssiFiltered: Double, sigma: Double, measuredPower: Double,
                distance: Double?, proximity: Proximity, shouldPublish: Bool) {
        self.rssi = rssi
        self.rssiFiltered = rssiFiltered
        self.sigma = sigma
        self.measuredPower = measuredPower
        self.distance = distance
        self.proximity = proximity
        self.shouldPublish = shouldPublish
    }

    /// Whether this update says the node no longer hears the beacon.
    public var isSilence: Bool { distance == nil }
}
