/// Turns a distance into Core Location's proximity classes, with hysteresis and silence.
///
/// Thresholds: `immediate` below `immediateBelow`, `near` below `nearBelow`, `far` beyond.
/// **Hysteresis** is a fraction h of the threshold being crossed: to move outward across a
/// threshold T the distance must exceed T·(1 + h); to move back inward it must fall below
/// T·(1 − h). With T = 3 m and the default h = 0.3 a beacon leaves `near` for `far` above 3.9 m and comes back
/// below 2.1 m, so one sitting at 3 m ± 0.2 m does not flap. A fraction (not metres) because
/// RSSI noise is multiplicative in distance: the same dB jitter moves a far beacon more metres.
/// The first distance after a silence is classified without hysteresis.
///
/// **Silence**: `proximity(at:)` is `unknown` once nothing was classified for `unknownAfter`
/// seconds (Core Location turns a beacon `unknown` after a couple of seconds).
public struct ProximityClassifier: Sendable {
    /// The class thresholds, the hysteresis and the silence before `unknown`.
    public struct Parameters: Sendable, Hashable, Codable {
        /// `immediate` below this distance, metres.
        public var immediateBelow: Double
        /// `near` below this distance (and at or above `immediateBelow`), metres.
        public var nearBelow: Double
        /// Fraction of a threshold by which a distance must cross it before the class changes.
        public var hysteresis: Double
        /// Seconds without a distance after which the proximity is `unknown`.
        public var unknownAfter: Double

        /// Creates parameters from the thresholds, the hysteresis and the silence.
        public init(immediateBelow: Double, nearBelow: Double, hysteresis: Double, unknownAfter: Double) {
            self.immediateBelow = immediateBelow
            self.nearBelow = nearBelow
            self.hysteresis = hysteresis
            self.unknownAfter = unknownAfter
        }

        /// Core Location's thresholds. Hysteresis 0.3 (measured by `presence-bench calibrate`): the
        /// smallest on a 0.05 grid that keeps a still beacon parked exactly on a boundary to ≤ 4
        /// class changes per hour (median of the 60 static-rssi series); so `near`→`far` above
        /// 3.9 m, back below 2.1 m, `immediate`→`near` above 0.65 m, back below 0.35 m. Unknown after
        /// 5 s: the longest gap between adverts of a still beacon was 4.1 s.
        public static let `default` = Parameters(immediateBelow: 0.5, nearBelow: 3, hysteresis: 0.3, unknownAfter: 5)
    }

    /// The parameters the classifier runs with.
    public let parameters: Parameters
    private var state = State()

    /// Creates a classifier that has classified nothing yet.
    public init(parameters: Parameters = .default) {
        self.parameters = parameters
    }

    /// Classifies `distance` measured at `time`, moving from the current class only when the
    /// distance crosses a threshold by the hysteresis margin. A non-finite or negative distance
    /// leaves the class as it is (and does not count as hearing the beacon).
    public mutating func classify(distance: Double, at time: Instant) -> Proximity {
        state.classify(distance: distance, at: time, parameters)
    }

    /// The class at `time`: the last one, or `unknown` after `unknownAfter` seconds of silence.
    public mutating func proximity(at time: Instant) -> Proximity {
        state.proximity(at: time, parameters)
    }

    /// The classifier's state alone, for an owner that keeps the parameters once for many
    /// classifiers (the agent's tracks): every call takes them.
    struct State: Sendable {
        // The one-byte field last: it then fills the optional's padding (10 bytes, not 17).
        private(set) var lastTime: Instant?
        private var current: Proximity = .unknown

        @inline(__always)
        mutating func classify(distance: Double, at time: Instant, _ parameters: Parameters) -> Proximity {
            guard distance.isFinite, distance >= 0 else { return proximity(at: time, parameters) }
            let previous = proximity(at: time, parameters)
            if let lastTime, time.seconds.isFinite, !(time < lastTime) { self.lastTime = time }
            else if lastTime == nil, time.seconds.isFinite { lastTime = time }
            current = ProximityClassifier.next(from: previous, distance: distance, parameters: parameters)
            return current
        }

        @inline(__always)
        mutating func proximity(at time: Instant, _ parameters: Parameters) -> Proximity {
            guard let lastTime else { return .unknown }
            if time.seconds.isFinite, time.since(lastTime) > parameters.unknownAfter {
                current = .unknown
            }
            return current
        }
    }

    /// The class after `previous` for distance `d` under the thresholds and hysteresis of `p`
    /// (without hysteresis from `unknown`): the rule alone, without time or silence.
    public static func next(from previous: Proximity, distance d: Double, parameters p: Parameters) -> Proximity {
        next(from: previous, value: d, Boundaries(p))
    }

    /// The rule's six boundaries: the two thresholds, and each widened outward (·(1 + h)) and
    /// inward (·(1 − h)) by the hysteresis h, clamped to 0...0.9 as the rule uses it.
    struct Boundaries: Sendable {
        var immediate, near, immediateOut, nearOut, immediateIn, nearIn: Double

        init(_ p: Parameters) {
            let h = p.hysteresis.isFinite ? max(0, min(p.hysteresis, 0.9)) : 0
            immediate = p.immediateBelow
            near = p.nearBelow
            immediateOut = p.immediateBelow * (1 + h)
            nearOut = p.nearBelow * (1 + h)
            immediateIn = p.immediateBelow * (1 - h)
            nearIn = p.nearBelow * (1 - h)
        }
    }

    /// The rule on a distance, against the boundaries.
    @inline(__always)
    static func next(from previous: Proximity, value d: Double, _ b: Boundaries) -> Proximity {
        switch previous {
        case .unknown:
            if d < b.immediate { return .immediate }
            return d < b.near ? .near : .far
        case .immediate:
            if d <= b.immediateOut { return .immediate }
            return d <= b.nearOut ? .near : .far
        case .near:
            if d < b.immediateIn { return .immediate }
            return d <= b.nearOut ? .near : .far
        case .far:
            if d >= b.nearIn { return .far }
            return d < b.immediateIn ? .immediate : .near
        }
    }
}
