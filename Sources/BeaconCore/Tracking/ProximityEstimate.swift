#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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

    /// The class rule with the estimate's hysteresis, prepared once per node: its boundaries in
    /// metres and as `log10` of metres. The steady distance is only compared with the thresholds,
    /// so the estimate compares its distance's `log10` (the distance model's exponent, no `pow`)
    /// with theirs; distance is increasing in it, so the class is the same. Close to a boundary
    /// (within 10⁻⁹, where rounding could decide), near the model's distance cap, or with a
    /// threshold that has no finite `log10`, it takes the distance itself and the rule in metres,
    /// as before.
    struct Rule: Sendable {
        let metres: ProximityClassifier.Boundaries
        /// nil when the fast comparison cannot be exact for every distance.
        let log10Metres: ProximityClassifier.Boundaries?

        init(thresholds: ProximityClassifier.Parameters, hysteresis: Double) {
            var rule = thresholds
            rule.hysteresis = hysteresis
            metres = ProximityClassifier.Boundaries(rule)
            let logs = metres.map { log10($0) }
            log10Metres = logs.isFinite ? logs : nil
        }

        /// Rounding of `log10` and `pow` is far below this; a larger gap decides the same way.
        static let margin = 1e-9
        /// `log10` of ``DistanceModel/maximumDistance``: above it the model caps the distance.
        static let log10Cap = log10(DistanceModel.maximumDistance)

        /// Where the filtered `rssi` lies: `log10` of its distance when that decides exactly, else
        /// the distance; nil when the distance is not usable (as the classifier's guard).
        @inline(__always)
        func position(rssi: Double, measuredPower: Double?, _ model: DistanceModel) -> Position? {
            if let log10Metres, rssi.isFinite {
                let x = model.log10Distance(rssi: rssi, measuredPower: measuredPower)
                if x.isFinite, x < Self.log10Cap - Self.margin, !log10Metres.isClose(to: x, within: Self.margin) {
                    return Position(value: x, inLog10: true)
                }
            }
            let distance = model.distance(rssi: rssi, measuredPower: measuredPower)
            guard distance.isFinite, distance >= 0 else { return nil }
            return Position(value: distance, inLog10: false)
        }

        /// The class after `previous` at `position`.
        @inline(__always)
        func next(from previous: Proximity, at position: Position) -> Proximity {
            if position.inLog10, let log10Metres {
                return ProximityClassifier.next(from: previous, value: position.value, log10Metres)
            }
            return ProximityClassifier.next(from: previous, value: position.value, metres)
        }

        /// A distance, or its `log10`.
        struct Position {
            let value: Double
            let inLog10: Bool
        }
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
                             rule: Rule, thresholds: ProximityClassifier.Parameters) -> Proximity {
            // The warm-up starts with the filter: a gap that makes the class `unknown` but leaves
            // the estimate standing (shorter than `restartAfter`) does not start it again.
            let restarts = filter.last.map { time.seconds.isFinite && time.since($0) > filterParameters.restartAfter } ?? true
            let estimate = filter.update(rssi: rssi, at: time, filterParameters)
            guard time.seconds.isFinite, let position = rule.position(rssi: estimate.rssi, measuredPower: measuredPower, model)
            else { return proximity(at: time, thresholds) }
            if restarts { heardSince = time }
            let previous = proximity(at: time, thresholds)
            if lastTime.map({ !(time < $0) }) ?? true { lastTime = time }
            let warming = heardSince.map { time.since($0) < parameters.warmUp } ?? true
            if previous == .unknown || warming {
                current = rule.next(from: .unknown, at: position)
                pending = .unknown
                return current
            }
            let candidate = rule.next(from: previous, at: position)
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
