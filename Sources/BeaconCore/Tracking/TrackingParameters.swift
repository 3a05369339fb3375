/// Everything that tunes a node's tracking, in one typed value with measured defaults.
public struct TrackingParameters: Sendable, Hashable, Codable {
    /// Kalman filter on RSSI.
    public var filter: RSSIKalmanFilter.Parameters
    /// RSSI → metres.
    public var distance: DistanceModel
    /// Metres → immediate/near/far/unknown: the thresholds, hysteresis and silence of the class
    /// published with each distance.
    public var proximity: ProximityClassifier.Parameters
    /// When a measurement goes out.
    public var publish: MeasurementPublishPolicy.Parameters

    /// Creates parameters; each part defaults to its measured default.
    public init(
        filter: RSSIKalmanFilter.Parameters = .default,
        distance: DistanceModel = .default,
        proximity: ProximityClassifier.Parameters = .default,
        publish: MeasurementPublishPolicy.Parameters = .default
    ) {
        self.filter = filter
        self.distance = distance
        self.proximity = proximity
        self.publish = publish
    }

    /// The measured defaults of every part (see `presence-bench calibrate`).
    public static let `default` = TrackingParameters()
}
