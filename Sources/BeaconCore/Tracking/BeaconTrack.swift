/// Filter + distance + classifier + publish policy for one (beacon, node): what the agent keeps
/// per beacon, and what trace replay runs per (beacon, node).
///
/// Distance is computed from the *filtered* RSSI, so proximity and publishing see a smooth value.
/// P₁ is `configuredMeasuredPower` when the operator set one for this beacon, else the advertised
/// measured power, else the model's default.
public struct BeaconTrack: Sendable {
    public let parameters: TrackingParameters
    /// The beacon's measured power from configuration (MQTT `config/beacons`), overriding the advertised one.
    public var configuredMeasuredPower: Int?
    private var filter: RSSIKalmanFilter
    private var classifier: ProximityClassifier
    private var policy: MeasurementPublishPolicy

    public init(parameters: TrackingParameters, configuredMeasuredPower: Int? = nil) {
        self.parameters = parameters
        self.configuredMeasuredPower = configuredMeasuredPower
        filter = RSSIKalmanFilter(parameters: parameters.filter)
        classifier = ProximityClassifier(parameters: parameters.proximity)
        policy = MeasurementPublishPolicy(parameters: parameters.publish)
    }

    /// Folds one advertisement heard at `time` into the track.
    ///
    /// Samples older than the last one count as heard at the same time (Δt = 0); a non-finite
    /// `time` changes no state and never publishes.
    public mutating func observe(rssi: Int, measuredPower: Int?, at time: Instant) -> TrackUpdate {
        if let last = filter.lastSampleTime, time.seconds.isFinite,
           time.since(last) > parameters.filter.restartAfter {
            // A fresh start of the filter is a fresh start of the whole track.
            policy.reset()
        }
        let estimate = filter.update(rssi: Double(rssi), at: time)
        let power = configuredMeasuredPower ?? measuredPower
        let distance = parameters.distance.distance(rssi: estimate.rssi, measuredPower: power.map(Double.init))
        let proximity = classifier.classify(distance: distance, at: time)
        let publish = policy.shouldPublish(proximity: proximity, distance: distance, at: time)
        return TrackUpdate(
            rssi: rssi, rssiFiltered: estimate.rssi, sigma: estimate.sigma,
            measuredPower: power.map(Double.init) ?? parameters.distance.defaultMeasuredPower,
            distance: distance, proximity: proximity, shouldPublish: publish
        )
    }

    /// The proximity at `time`: `unknown` after the classifier's silence.
    public mutating func proximity(at time: Instant) -> Proximity {
        classifier.proximity(at: time)
    }

    /// The filtered RSSI predicted to `time`, nil when the track holds no estimate.
    public func estimate(at time: Instant) -> RSSIEstimate? {
        filter.estimate(at: time)
    }

    /// Time of the last advertisement folded in.
    public var lastHeard: Instant? { filter.lastSampleTime }
}
