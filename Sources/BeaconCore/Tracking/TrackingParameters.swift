/// Everything that tunes a node's tracking, in one typed value with measured defaults.
public struct TrackingParameters: Sendable, Hashable, Codable {
    /// Kalman filter on RSSI.
    public var filter: RSSIKalmanFilter.Parameters
    /// RSSI → metres.
    public var distance: DistanceModel
    /// Metres → immediate/near/far/unknown: the thresholds and silence of the reported class, and
    /// the hysteresis of the room filter's class, which triggers publishing.
    public var proximity: ProximityClassifier.Parameters
    /// The reported proximity class's own, steadier estimate from the same samples.
    public var proximityEstimate: ProximityEstimate.Parameters
    /// When a measurement goes out.
    public var publish: MeasurementPublishPolicy.Parameters
    /// When a beacon marked worn reports a rise at once (`RiseReport`); beacons not marked worn never do.
    public var rise: RiseReport.Parameters

    /// Creates parameters; each part defaults to its measured default.
    public init(
        filter: RSSIKalmanFilter.Parameters = .default,
        distance: DistanceModel = .default,
        proximity: ProximityClassifier.Parameters = .default,
        publish: MeasurementPublishPolicy.Parameters = .default,
        proximityEstimate: ProximityEstimate.Parameters = .default,
        rise: RiseReport.Parameters = .default
    ) {
        self.rise = rise
        self.filter = filter
        self.distance = distance
        self.proximity = proximity
        self.publish = publish
        self.proximityEstimate = proximityEstimate
    }

    /// The measured defaults of every part (see `presence-bench calibrate`).
    public static let `default` = TrackingParameters()
}
