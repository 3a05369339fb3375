/// Filter + distance + classifier + publish policy for one (beacon, node): what the agent keeps
/// per beacon, and what trace replay runs per (beacon, node).
///
/// Distance is computed from the *filtered* RSSI, so proximity and publishing see a smooth value.
/// P₁ is `configuredMeasuredPower` when the operator set one for this beacon, else the advertised
/// measured power, else the model's default.
///
/// Silence is published too: the owner calls `checkSilence(at:)` at least once a second (the
/// agent's tick; the trace replay at every sample and tick), and the first call more than
/// `proximity.unknownAfter` seconds after the last advertisement returns one `unknown` update to
/// publish, so the aggregator drops this node's word at once instead of waiting for a slow heartbeat.
public struct BeaconTrack: Sendable {
    public let parameters: TrackingParameters
    /// The beacon's measured power from configuration (MQTT `config/beacons`), overriding the advertised one.
    public var configuredMeasuredPower: Int?
    private var filter: RSSIKalmanFilter
    private var classifier: ProximityClassifier
    private var policy: MeasurementPublishPolicy
    private var lastRSSI = 0
    private var lastMeasuredPower: Double

    public init(parameters: TrackingParameters, configuredMeasuredPower: Int? = nil) {
        self.parameters = parameters
        self.configuredMeasuredPower = configuredMeasuredPower
        filter = RSSIKalmanFilter(parameters: parameters.filter)
        classifier = ProximityClassifier(parameters: parameters.proximity)
        policy = MeasurementPublishPolicy(parameters: parameters.publish)
        lastMeasuredPower = parameters.distance.defaultMeasuredPower
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
        let publish = policy.shouldPublish(proximity: proximity, rssi: estimate.rssi, sigma: estimate.sigma, at: time)
        let usedPower = power.map(Double.init) ?? parameters.distance.defaultMeasuredPower
        if time.seconds.isFinite {
            lastRSSI = rssi
            lastMeasuredPower = usedPower
        }
        return TrackUpdate(
            rssi: rssi, rssiFiltered: estimate.rssi, sigma: estimate.sigma,
            measuredPower: usedPower, distance: distance, proximity: proximity, shouldPublish: publish
        )
    }

    /// The one `unknown` update to publish when the beacon has not been heard for more than
    /// `proximity.unknownAfter` seconds at `time`; nil otherwise, and nil on later calls until the
    /// beacon is heard again. It carries the last advertisement's RSSI and the filter's estimate
    /// as of then, no distance, proximity `unknown`, and `shouldPublish` true.
    public mutating func checkSilence(at time: Instant) -> TrackUpdate? {
        guard time.seconds.isFinite, let last = filter.lastSampleTime,
              time.since(last) > parameters.proximity.unknownAfter,
              classifier.proximity(at: time) == .unknown,
              policy.shouldPublishSilence(at: time) else { return nil }
        let estimate = filter.estimate(at: last) ?? RSSIEstimate(rssi: Double(lastRSSI), sigma: .infinity)
        return TrackUpdate(rssi: lastRSSI, rssiFiltered: estimate.rssi, sigma: estimate.sigma,
                           measuredPower: lastMeasuredPower, distance: nil, proximity: .unknown, shouldPublish: true)
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
