/// The proximity class's own estimate, read from the same samples as the room's filter but
/// steadier (issue 39): a room decision wants a filter that follows a move within a second, a
/// proximity class a steady value for a beacon that sits still.
///
/// It chains a second ``RSSIKalmanFilter`` (its own, slower noise model), the distance model of
/// the track, and the classifier's thresholds with its own hysteresis. Two rules keep the class
/// from locking onto a first noisy reading: for `warmUp` seconds after the filter starts (the
/// first sample, or the first after `restartAfter` seconds of silence) the class follows the
/// estimate without hysteresis; after a shorter silence (`unknown`) the class is read afresh, as
/// the first one; otherwise a new class is taken only once it has held for `settle` seconds. Silence works as the
/// classifier's: `unknown` after `unknownAfter` seconds without a sample.
public enum ProximityEstimate {
    /// The steady estimate's noise model, hysteresis, warm-up and settle time.
    public struct Parameters: Sendable, Hashable, Codable {
        /// The steady filter's noise model (`restartAfter` as the room filter's).
        public var filter: RSSIKalmanFilter.Parameters
        /// Fraction of a threshold by which the steady distance must cross it (as
        /// ``ProximityClassifier/Parameters-swift.struct/hysteresis``).
        public var hysteresis: Double
        /// Seconds after the steady filter starts (or restarts) during which the class follows
        /// the estimate without hysteresis or settling.
        public var warmUp: Double
        /// Seconds a new class must hold before it is taken (0: at once).
        public var settle: Double

        /// Creates parameters from the filter, the hysteresis, the warm-up and the settle time.
        public init(filter: RSSIKalmanFilter.Parameters, hysteresis: Double, warmUp: Double, settle: Double) {
            self.filter = filter
            self.hysteresis = hysteresis
            self.warmUp = warmUp
            self.settle = settle
        }

        /// Measured by `presence-bench proximity --candidates` (Tracking.md, "Proximity classes"): q
        /// 0.1 dB²/s (the room filter's 0.75 follows a walk, and its class flickers at rest), r 8 dB²
        /// as the room filter's, hysteresis 0.2, no warm-up, a new class taken once it held 10 s: the
        /// one candidate at least as right as both peers on every set.
        public static let `default` = Parameters(
            filter: .init(processNoise: 0.1, measurementNoise: 8, restartAfter: 10), hysteresis: 0.2, warmUp: 0, settle: 10)
    }

    /// One beacon's steady estimate; every call takes the parameters.
    struct State: Sendable {
        private var filter = RSSIKalmanFilter.State()
        private var heardSince: Instant?
        private var pendingSince: Instant?
        private var lastTime: Instant?
        private var current: Proximity = .unknown
        private var pending: Proximity = .unknown

        /// Folds in one sample and returns the class at `time`.
        @inline(__always)
        mutating func update(rssi: Double, measuredPower: Double?, at time: Instant, _ parameters: Parameters,
                             filter filterParameters: RSSIKalmanFilter.Parameters, distance model: DistanceModel,
                             thresholds: ProximityClassifier.Parameters) -> Proximity {
            // The warm-up starts with the filter: a gap that makes the class `unknown` but leaves
            // the estimate standing (shorter than `restartAfter`) does not start it again.
            let restarts = filter.last.map { time.seconds.isFinite && time.since($0) > filterParameters.restartAfter } ?? true
            let estimate = filter.update(rssi: rssi, at: time, filterParameters)
            let distance = model.distance(rssi: estimate.rssi, measuredPower: measuredPower)
            guard distance.isFinite, distance >= 0, time.seconds.isFinite else { return proximity(at: time, thresholds) }
            if restarts { heardSince = time }
            let previous = proximity(at: time, thresholds)
            if lastTime.map({ !(time < $0) }) ?? true { lastTime = time }
            var rule = thresholds
            rule.hysteresis = parameters.hysteresis
            let warming = heardSince.map { time.since($0) < parameters.warmUp } ?? true
            if previous == .unknown || warming {
                current = ProximityClassifier.next(from: .unknown, distance: distance, parameters: rule)
                pending = .unknown
                return current
            }
            let candidate = ProximityClassifier.next(from: previous, distance: distance, parameters: rule)
            if candidate == previous {
                pending = .unknown
            } else {
                if candidate != pending {
                    pending = candidate
                    pendingSince = time
                }
                if let pendingSince, time.since(pendingSince) >= parameters.settle {
                    current = candidate
                    pending = .unknown
                }
            }
            return current
        }

        /// The class at `time`: the last one, or `unknown` after `unknownAfter` seconds of silence.
        @inline(__always)
        mutating func proximity(at time: Instant, _ thresholds: ProximityClassifier.Parameters) -> Proximity {
            guard let lastTime else { return .unknown }
            if time.seconds.isFinite, time.since(lastTime) > thresholds.unknownAfter { current = .unknown }
            return current
        }
    }
}
