/// A filtered RSSI and its standard deviation σ, both in dB(m).
public struct RSSIEstimate: Sendable, Hashable {
    /// Filtered RSSI in dBm.
    public var rssi: Double
    /// Standard deviation of `rssi` in dB: √P of the filter.
    public var sigma: Double

    /// Creates an estimate from a filtered RSSI and its standard deviation.
    public init(rssi: Double, sigma: Double) {
        self.rssi = rssi
        self.sigma = sigma
    }
}

/// A one-dimensional, time-aware Kalman filter on RSSI for one (beacon, node).
///
/// State: RSSI x in dBm with variance P. Between samples the state is predicted unchanged and
/// its variance grows by `q·Δt` (a random walk, so a gap in reception makes the filter honestly
/// less sure); each sample updates with measurement noise `r`. After `restartAfter` seconds of
/// silence the old state says nothing useful any more and the filter starts afresh from the next
/// sample (x = sample, P = r).
///
/// Garbage is tolerated, never trapped on: a non-finite RSSI or time is ignored (the state is
/// unchanged), a sample older than the last one is treated as Δt = 0 (out-of-order delivery) and
/// does not move `lastSampleTime` back.
public struct RSSIKalmanFilter: Sendable {
    /// The filter's noise model. Defaults are measured on the recordings in data/ (see `presence-bench calibrate`).
    public struct Parameters: Sendable, Hashable, Codable {
        /// q, dB² per second: the predicted variance grows by q·Δt between samples.
        public var processNoise: Double
        /// r, dB²: variance of one RSSI sample around the true mean.
        public var measurementNoise: Double
        /// Seconds of silence after which the filter starts afresh.
        public var restartAfter: Double

        /// Creates a noise model from q, r and the silence before a restart.
        public init(processNoise: Double, measurementNoise: Double, restartAfter: Double) {
            self.processNoise = processNoise
            self.measurementNoise = measurementNoise
            self.restartAfter = restartAfter
        }

        /// Measured by `presence-bench calibrate`: r = 8 dB² is the median RSSI variance of the 60
        /// static-rssi series (a beacon that does not move); q = 0.75 dB²/s gives the smallest
        /// one-step-ahead prediction error on the walking traces (static data alone would prefer
        /// q → 0, a filter that never follows a move); restart after 10 s, twice the longest gap
        /// a heard, still beacon showed.
        public static let `default` = Parameters(processNoise: 0.75, measurementNoise: 8, restartAfter: 10)

        /// Parameters with every field finite and in range, falling back to the default field by field.
        var sanitized: Parameters {
            let d = Parameters.default
            return Parameters(
                processNoise: processNoise.isFinite && processNoise >= 0 ? processNoise : d.processNoise,
                measurementNoise: measurementNoise.isFinite && measurementNoise > 0 ? measurementNoise : d.measurementNoise,
                restartAfter: restartAfter >= 0 && !restartAfter.isNaN ? restartAfter : d.restartAfter
            )
        }
    }

    /// The noise model the filter runs with.
    public let parameters: Parameters
    private var state = State()

    /// Creates a filter that has seen no sample yet.
    public init(parameters: Parameters = .default) {
        self.parameters = parameters.sanitized
    }

    /// Time of the last accepted sample, nil before the first one.
    public var lastSampleTime: Instant? { state.last }

    /// Folds one RSSI sample taken at `time` into the filter and returns the new estimate.
    ///
    /// A non-finite `rssi` or `time` changes nothing; the result is then the current prediction,
    /// or `RSSIEstimate(rssi: .nan, sigma: .infinity)` when the filter holds no estimate.
    public mutating func update(rssi: Double, at time: Instant) -> RSSIEstimate {
        state.update(rssi: rssi, at: time, parameters)
    }

    /// The estimate predicted to `time` (σ grows with q·Δt); nil before the first sample or after
    /// `restartAfter` seconds of silence. A `time` before the last sample gives the last estimate.
    public func estimate(at time: Instant) -> RSSIEstimate? {
        state.estimate(at: time, parameters)
    }

    /// Forgets everything, as if no sample had been seen.
    public mutating func reset() {
        state.reset()
    }

    /// The filter's state alone, for an owner that keeps the parameters once for many filters (the
    /// agent's tracks): every call takes them, sanitized (`Parameters.sanitized`).
    struct State: Sendable {
        private var value: Double = 0
        private var variance: Double = 0
        private(set) var last: Instant?

        @inline(__always)
        mutating func update(rssi: Double, at time: Instant, _ parameters: Parameters) -> RSSIEstimate {
            guard rssi.isFinite, time.seconds.isFinite else {
                return estimate(at: time, parameters) ?? RSSIEstimate(rssi: .nan, sigma: .infinity)
            }
            let r = parameters.measurementNoise
            guard let last, time.since(last) <= parameters.restartAfter else {
                value = rssi
                variance = r
                self.last = time
                return RSSIEstimate(rssi: value, sigma: variance.squareRoot())
            }
            let dt = max(0, time.since(last))
            let predicted = variance + parameters.processNoise * dt
            let gain = predicted / (predicted + r)
            value += gain * (rssi - value)
            variance = (1 - gain) * predicted
            if time > last { self.last = time }
            return RSSIEstimate(rssi: value, sigma: variance.squareRoot())
        }

        func estimate(at time: Instant, _ parameters: Parameters) -> RSSIEstimate? {
            guard let last else { return nil }
            let gap = time.seconds.isFinite ? time.since(last) : 0
            guard gap <= parameters.restartAfter else { return nil }
            let predicted = variance + parameters.processNoise * max(0, gap)
            return RSSIEstimate(rssi: value, sigma: predicted.squareRoot())
        }

        mutating func reset() {
            last = nil
        }
    }
}
