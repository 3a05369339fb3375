/// Filter + distance + classifier + publish policy for one (beacon, node): what the agent keeps
/// per beacon, and what trace replay runs per (beacon, node).
///
/// Distance is computed from the *filtered* RSSI, so publishing sees a smooth value. The proximity
/// class is that distance's class under the classifier's hysteresis, so a measurement's class and
/// distance always agree (issue 54), and a class change publishes at once.
/// P₁ is `configuredMeasuredPower` when the operator set one for this beacon, else the advertised
/// measured power, else the model's default.
///
/// Silence is published too: the owner calls `checkSilence(at:)` at least once a second (the
/// agent's tick; the trace replay at every sample and tick), and the first call more than
/// `proximity.unknownAfter` seconds after the last advertisement returns one `unknown` update to
/// publish, so the aggregator drops this node's word at once instead of waiting for a slow heartbeat.
public struct BeaconTrack: Sendable {
    /// The parameters the track runs with.
    public var parameters: TrackingParameters { tuning.tracking }
    /// The beacon's measured power from configuration (MQTT `config/beacons`), overriding the advertised one.
    public var configuredMeasuredPower: Int? {
        get { state.configuredMeasuredPower }
        set { state.configuredMeasuredPower = newValue }
    }
    /// Whether the beacon is worn on a body (its known-beacon entry's `worn`, `KnownBeacon.worn`).
    public var worn: Bool {
        get { state.worn }
        set { state.worn = newValue }
    }
    private let tuning: Tuning
    private var state: State

    /// Creates a track that has heard nothing yet.
    public init(parameters: TrackingParameters, configuredMeasuredPower: Int? = nil, worn: Bool = false) {
        tuning = Tuning(parameters)
        state = State(tuning, configuredMeasuredPower: configuredMeasuredPower, worn: worn)
    }

    /// Folds one advertisement heard at `time` into the track.
    ///
    /// Samples older than the last one count as heard at the same time (Δt = 0); a non-finite
    /// `time` changes no state and never publishes.
    public mutating func observe(rssi: Int, measuredPower: Int?, at time: Instant) -> TrackUpdate {
        state.observe(rssi: rssi, measuredPower: measuredPower, at: time, tuning)
    }

    /// The one `unknown` update to publish when the beacon has not been heard for more than
    /// `proximity.unknownAfter` seconds at `time`; nil otherwise, and nil on later calls until the
    /// beacon is heard again. It carries the last advertisement's RSSI and the filter's estimate
    /// as of then, no distance, proximity `unknown`, and `shouldPublish` true.
    public mutating func checkSilence(at time: Instant) -> TrackUpdate? {
        state.checkSilence(at: time, tuning)
    }

    /// The measurement its last advertisement gave (`State.current(at:_:)`), nil when not heard.
    public mutating func current(at time: Instant) -> TrackUpdate? { state.current(at: time, tuning) }

    /// The proximity at `time`: `unknown` after the classifier's silence.
    public mutating func proximity(at time: Instant) -> Proximity {
        state.proximity(at: time, tuning)
    }

    /// The filtered RSSI predicted to `time`, nil when the track holds no estimate.
    public func estimate(at time: Instant) -> RSSIEstimate? {
        state.estimate(at: time, tuning)
    }

    /// Time of the last advertisement folded in.
    public var lastHeard: Instant? { state.lastHeard }

    /// The tracking parameters as every track of a node uses them, prepared once: an owner of many
    /// tracks (the agent) keeps one of these and a `State` per beacon, instead of a `BeaconTrack`
    /// each with its own copies of the parameters (about 230 bytes of a beacon's 370).
    public struct Tuning: Sendable {
        /// The parameters as given.
        public let tracking: TrackingParameters
        /// `tracking.filter`, sanitized as `RSSIKalmanFilter` uses it.
        let filter: RSSIKalmanFilter.Parameters

        /// Prepares `tracking` for every track of a node.
        public init(_ tracking: TrackingParameters) {
            self.tracking = tracking
            filter = tracking.filter.sanitized
        }
    }

    /// One beacon's tracking state without the parameters: every call takes the node's `Tuning`
    /// (always the same one for a given state). It behaves exactly as a `BeaconTrack` with those
    /// parameters.
    public struct State: Sendable {
        private var filter = RSSIKalmanFilter.State()
        /// The class of the published distance, with the hysteresis.
        private var classifier = ProximityClassifier.State()
        private var policy = MeasurementPublishPolicy.State()
        private var lastRSSI = 0
        private var lastMeasuredPower: Double
        /// The beacon's measured power from configuration, overriding the advertised one.
        public var configuredMeasuredPower: Int?
        /// Whether the beacon is marked worn (`BeaconTrack.worn`).
        public var worn: Bool

        /// Creates the state of a beacon heard nothing of yet.
        public init(_ tuning: Tuning, configuredMeasuredPower: Int? = nil, worn: Bool = false) {
            self.configuredMeasuredPower = configuredMeasuredPower
            self.worn = worn
            lastMeasuredPower = tuning.tracking.distance.defaultMeasuredPower
        }

        /// `BeaconTrack.observe(rssi:measuredPower:at:)`.
        public mutating func observe(rssi: Int, measuredPower: Int?, at time: Instant, _ tuning: Tuning) -> TrackUpdate {
            let parameters = tuning.tracking
            if let last = filter.last, time.seconds.isFinite,
               time.since(last) > parameters.filter.restartAfter {
                // A fresh start of the filter is a fresh start of the whole track.
                policy.reset()
            }
            let estimate = filter.update(rssi: Double(rssi), at: time, tuning.filter)
            let power = configuredMeasuredPower ?? measuredPower
            let distance = parameters.distance.distance(rssi: estimate.rssi, measuredPower: power.map(Double.init))
            let proximity = classifier.classify(distance: distance, at: time, parameters.proximity)
            let publish = policy.shouldPublish(
                proximity: proximity, rssi: estimate.rssi, sigma: estimate.sigma, at: time, parameters.publish)
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

        /// `BeaconTrack.checkSilence(at:)`.
        public mutating func checkSilence(at time: Instant, _ tuning: Tuning) -> TrackUpdate? {
            guard time.seconds.isFinite, let last = filter.last,
                  time.since(last) > tuning.tracking.proximity.unknownAfter,
                  classifier.proximity(at: time, tuning.tracking.proximity) == .unknown,
                  policy.shouldPublishSilence(at: time) else { return nil }
            let estimate = filter.estimate(at: last, tuning.filter) ?? RSSIEstimate(rssi: Double(lastRSSI), sigma: .infinity)
            return TrackUpdate(rssi: lastRSSI, rssiFiltered: estimate.rssi, sigma: estimate.sigma,
                               measuredPower: lastMeasuredPower, distance: nil, proximity: .unknown, shouldPublish: true)
        }

        /// The measurement its last advertisement gave, to publish again (after the broker
        /// connects: one published before was lost); nil when it was never heard or no longer is
        /// (`unknown`). The publish policy is not touched.
        public mutating func current(at time: Instant, _ tuning: Tuning) -> TrackUpdate? {
            let parameters = tuning.tracking
            guard let last = filter.last, let estimate = filter.estimate(at: last, tuning.filter) else { return nil }
            let proximity = classifier.proximity(at: time, parameters.proximity)
            guard proximity != .unknown else { return nil }
            let distance = parameters.distance.distance(rssi: estimate.rssi, measuredPower: lastMeasuredPower)
            return TrackUpdate(rssi: lastRSSI, rssiFiltered: estimate.rssi, sigma: estimate.sigma,
                               measuredPower: lastMeasuredPower, distance: distance, proximity: proximity, shouldPublish: true)
        }

        /// `BeaconTrack.proximity(at:)`.
        public mutating func proximity(at time: Instant, _ tuning: Tuning) -> Proximity {
            classifier.proximity(at: time, tuning.tracking.proximity)
        }

        /// `BeaconTrack.estimate(at:)`.
        public func estimate(at time: Instant, _ tuning: Tuning) -> RSSIEstimate? {
            filter.estimate(at: time, tuning.filter)
        }

        /// `BeaconTrack.lastHeard`.
        public var lastHeard: Instant? { filter.last }
    }
}
