/// Decides when a node publishes a beacon's measurement (docs/MQTT.md): when its proximity changes,
/// when its filtered RSSI moved by more than the step, at least every `heartbeat` while it is
/// heard, and once when it stops being heard — never once per advertisement.
///
/// **Step**: a publish when the filtered RSSI moved by more than `max(rssiStep, sigmaMultiple·σ)`
/// dB from the last published value. A dB difference is a distance *ratio*
/// (`d₂/d₁ = 10^(ΔdB/(10·n))`), so the rule is the same at 1 m and at 10 m, where the same RSSI
/// noise moves the distance more metres. The `k·σ` part makes the step follow the filter's own
/// uncertainty: a beacon that advertises rarely, or after a gap, has a larger σ and its filtered
/// value wanders more by noise alone; `rssiStep` is the floor for a well-heard beacon.
/// **Moving**: a step publish means the beacon probably moves, so for `movingFor` seconds after
/// it a change beyond the finer `movingStep` publishes too: the aggregator follows a walk closely
/// while a still beacon, whose noise rarely crosses the coarse step, stays quiet.
/// Step publishes are at most one per `minimumInterval`, so a noisy beacon cannot publish per
/// advert; a proximity change publishes at once (the classifier's hysteresis keeps those rare).
///
/// **Silence**: `shouldPublishSilence(at:)` says yes once when the beacon turned `unknown` (no
/// advertisement for the classifier's `unknownAfter`), so that a slow heartbeat never leaves the
/// aggregator trusting a node that no longer hears the beacon. The next measurement after a
/// silence publishes at once (its proximity differs from `unknown`).
public struct MeasurementPublishPolicy: Sendable {
    /// When a measurement goes out: the step, the heartbeat and the finer step while moving.
    public struct Parameters: Sendable, Hashable, Codable {
        /// Smallest change of the filtered RSSI since the last publish that publishes, dB.
        public var rssiStep: Double
        /// k: the change must also exceed k·σ of the filtered RSSI.
        public var sigmaMultiple: Double
        /// Longest time between two publishes while the beacon is heard, seconds.
        public var heartbeat: Double
        /// Shortest time between two step publishes, seconds.
        public var minimumInterval: Double
        /// The step while moving, dB: for `movingFor` seconds after a step publish (a move was
        /// seen) the filtered RSSI is published whenever it moved by more than this.
        public var movingStep: Double
        /// How long a step publish keeps the fine `movingStep`, seconds (0: never).
        public var movingFor: Double

        /// Creates parameters; without `movingStep` and `movingFor` there is no finer step while moving.
        public init(rssiStep: Double, sigmaMultiple: Double, heartbeat: Double, minimumInterval: Double = 1,
                    movingStep: Double = 0, movingFor: Double = 0) {
            self.rssiStep = rssiStep
            self.sigmaMultiple = sigmaMultiple
            self.heartbeat = heartbeat
            self.minimumInterval = minimumInterval
            self.movingStep = movingStep
            self.movingFor = movingFor
        }

        /// Measured by `presence-bench calibrate` under the rule "a still beacon publishes at most
        /// 2 measurements per minute" (issue 6; ESPresense publishes about 12), in the median of
        /// the 60 static-rssi series, counting everything the whole track publishes (heartbeats,
        /// steps, moving steps, proximity changes, silences): heartbeat 60 s (half of that budget;
        /// the aggregator's `staleAfter` is 2.5 heartbeats); step 3 dB, the smallest on a 0.5 dB
        /// grid within the budget; k = 0 (k = 2 or 3 also meets the budget but costs the room
        /// decision accuracy on the walking traces); moving step 1 dB for 5 s, chosen on the
        /// walking traces with `presence-bench evaluate`. At rest then (60 series): median 1.42,
        /// mean 4.3, 90th percentile 10.7 publishes per minute — the noisiest placements flip
        /// between two RSSI levels, which no step can tell from a move.
        public static let `default` = Parameters(rssiStep: 3, sigmaMultiple: 0, heartbeat: 60, minimumInterval: 1,
                                                 movingStep: 1, movingFor: 5)
    }

    /// The parameters the policy runs with.
    public let parameters: Parameters
    private var state = State()

    /// Creates a policy that has published nothing yet.
    public init(parameters: Parameters = .default) {
        self.parameters = parameters
    }

    /// The step in dB that a move must exceed when the filtered RSSI has standard deviation `sigma`.
    public func step(sigma: Double) -> Double {
        Self.step(sigma: sigma, parameters)
    }

    static func step(sigma: Double, _ parameters: Parameters) -> Double {
        let k = parameters.sigmaMultiple.isFinite ? max(0, parameters.sigmaMultiple) : 0
        let floor = parameters.rssiStep.isFinite ? max(0, parameters.rssiStep) : 0
        return sigma.isFinite ? max(floor, k * sigma) : floor
    }

    /// Whether the measurement at `time` (proximity, filtered RSSI and its σ) should be
    /// published; when it returns true the policy remembers it as the last published one.
    /// A non-finite `time` never publishes.
    public mutating func shouldPublish(proximity: Proximity, rssi: Double, sigma: Double, at time: Instant) -> Bool {
        state.shouldPublish(proximity: proximity, rssi: rssi, sigma: sigma, at: time, parameters)
    }

    /// Whether to publish that the beacon is no longer heard (`unknown`) at `time`: true once,
    /// when something other than `unknown` was published last.
    public mutating func shouldPublishSilence(at time: Instant) -> Bool {
        state.shouldPublishSilence(at: time)
    }

    /// Forgets the last publish, so the next measurement publishes.
    public mutating func reset() {
        state.reset()
    }

    /// The policy's state alone, for an owner that keeps the parameters once for many policies
    /// (the agent's tracks): every call takes them.
    struct State: Sendable {
        // The one-byte field last: it then fills the optionals' padding (34 bytes, not 41).
        private var lastRSSI: Double = .nan
        private var lastTime: Instant?
        private var movingUntil: Instant?
        private var lastProximity: Proximity?

        @inline(__always)
        mutating func shouldPublish(
            proximity: Proximity, rssi: Double, sigma: Double, at time: Instant, _ parameters: Parameters
        ) -> Bool {
            guard time.seconds.isFinite else { return false }
            guard let lastTime, let lastProximity else { return record(proximity, rssi, time) }
            if proximity != lastProximity { return record(proximity, rssi, time) }
            let elapsed = time.since(lastTime)
            if elapsed >= parameters.heartbeat { return record(proximity, rssi, time) }
            guard elapsed >= parameters.minimumInterval, rssi.isFinite, lastRSSI.isFinite else { return false }
            let change = abs(rssi - lastRSSI)
            if change > MeasurementPublishPolicy.step(sigma: sigma, parameters) {
                movingUntil = time.advanced(by: parameters.movingFor)
                return record(proximity, rssi, time)
            }
            if let movingUntil, time < movingUntil, change > parameters.movingStep {
                return record(proximity, rssi, time)
            }
            return false
        }

        mutating func shouldPublishSilence(at time: Instant) -> Bool {
            guard time.seconds.isFinite, let lastProximity, lastProximity != .unknown else { return false }
            return record(.unknown, .nan, time)
        }

        mutating func reset() {
            lastTime = nil
            lastProximity = nil
            movingUntil = nil
        }

        private mutating func record(_ proximity: Proximity, _ rssi: Double, _ time: Instant) -> Bool {
            lastProximity = proximity
            lastRSSI = rssi
            if lastTime.map({ time > $0 }) ?? true { lastTime = time }
            return true
        }
    }
}
