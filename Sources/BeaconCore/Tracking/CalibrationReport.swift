/// Everything `presence-bench calibrate` measured, and the parameters it recommends. Encoded as
/// the command's JSON output; `recommended` is what `TrackingParameters.default` is set to.
public struct CalibrationReport: Sendable, Hashable, Codable {
    /// One candidate of a grid search and the figure it scored.
    public struct GridPoint: Sendable, Hashable, Codable {
        public var value: Double
        public var figure: Double
    }

    public struct Filter: Sendable, Hashable, Codable {
        public var staticSeries: Int
        public var staticSamples: Int
        /// Median over static series of the RSSI variance, dB².
        public var staticMedianVariance: Double
        public var measurementNoise: Double
        public var walkingSeries: Int
        public var walkingSamples: Int
        /// q → RMS one-step-ahead prediction error (dB) on the walking traces, r fixed.
        public var processNoiseGridWalking: [GridPoint]
        /// q → the same on the static series (a beacon that never moves prefers q → 0).
        public var processNoiseGridStatic: [GridPoint]
        public var processNoise: Double
        public var staticGapMedian: Double
        public var staticGapP999: Double
        public var staticGapMax: Double
        public var walkingGapMax: Double
        public var unknownAfter: Double
        public var restartAfter: Double
        /// With the chosen filter, medians over the static series.
        public var staticMedianSigma: Double
        public var staticMedianRMSErrorVsMean: Double
        public var staticMedianRawStd: Double
    }

    public struct Distance: Sendable, Hashable, Codable {
        public var series: Int
        public var plainExponent: Double
        public var plainMeasuredPower: Double
        public var plainResidualStd: Double
        public var offsetsExponent: Double
        public var offsetsMeasuredPower: Double
        public var offsetsResidualStd: Double
        public var receiverOffsets: [String: Double]
        public var pathLossExponent: Double
        public var defaultMeasuredPower: Double
    }

    public struct ProximityAndPublish: Sendable, Hashable, Codable {
        /// h → median class changes per hour of a beacon parked on a boundary.
        public var hysteresisGrid: [GridPoint]
        public var hysteresis: Double
    }

    /// Publishes per minute of a still beacon (60 static-rssi series, whole track) for one policy.
    public struct PublishGridPoint: Sendable, Hashable, Codable {
        public var sigmaMultiple: Double
        public var rssiStep: Double
        public var medianPerMinute: Double
        /// The `budgetQuantile` quantile over the series.
        public var quantilePerMinute: Double
        public var p90PerMinute: Double
        public var maxPerMinute: Double
        public var meanPerMinute: Double
    }

    public struct Publish: Sendable, Hashable, Codable {
        /// At rest at most this many publishes per minute…
        public var budgetPerMinute: Double
        /// …in this share of the static series.
        public var budgetQuantile: Double
        /// Median σ of the filtered RSSI at rest, dB: the σ at which candidate steps are compared.
        public var typicalSigma: Double
        /// Per k, the step floors tried up to the first within the budget.
        public var grid: [PublishGridPoint]
        public var rssiStep: Double
        public var sigmaMultiple: Double
        public var heartbeat: Double
        public var minimumInterval: Double
        public var movingStep: Double
        public var movingFor: Double
        /// The chosen policy's figures.
        public var atRest: PublishGridPoint?
    }

    public struct HeraldFile: Sendable, Hashable, Codable {
        public var name: String
        public var samples: Int
        /// Mean RSSI at 0.9–1.1 m, used as the calibrated P₁.
        public var measuredPower: Int
        /// Share of samples whose class (immediate/near/far) matches the true distance's.
        public var accuracy: Double
        /// The same per advertisement without the Kalman filter.
        public var accuracyUnfiltered: Double
        /// The same with n = 2.7 instead of the fitted exponent.
        public var accuracyExponent27: Double
    }

    public struct Herald: Sendable, Hashable, Codable {
        public var files: [HeraldFile]
        public var pooledAccuracy: Double
        public var pooledAccuracyUnfiltered: Double
        public var pooledAccuracyExponent27: Double
        /// Mean of the per-class recalls (immune to most samples being `near`).
        public var pooledBalancedAccuracy: Double
        public var pooledBalancedAccuracyExponent27: Double
        /// Pooled `truth → estimate → count`.
        public var confusion: [String: [String: Int]]
        /// Share of truly-immediate samples classed immediate, and of truly-near classed near.
        public var immediateRecall: Double
        public var nearRecall: Double
    }

    /// Proximity classes of still beacons, the node's against a 20 s trimmed running mean
    /// (`TrackingCalibration.proximityAtRest`).
    public struct ProximityAtRest: Sendable, Hashable, Codable {
        public struct Classes: Sendable, Hashable, Codable {
            /// Mean of the recalls of the true classes present.
            public var balancedAccuracy: Double
            public var nearRecall: Double
            public var farRecall: Double
        }

        /// Receivers held out in turn (each one's series judged with a calibration fitted on the others).
        public var heldOutReceivers: Int
        public var series: Int
        /// The node's track (Kalman filter, distance, classifier with hysteresis) with the defaults.
        public var node: Classes
        /// The Android Beacon Library's default: trimmed mean of the last 20 s (10 % off each end).
        public var trimmedMean20s: Classes
    }

    public var filter: Filter
    public var distance: Distance
    public var proximity: ProximityAndPublish
    public var publish: Publish
    public var herald: Herald
    public var proximityAtRest: ProximityAtRest
    public var recommended: TrackingParameters
}
