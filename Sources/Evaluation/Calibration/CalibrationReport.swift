import BeaconCore

/// Everything `presence-bench calibrate` measured, and the parameters it recommends. Encoded as
/// the command's JSON output; `recommended` is what `TrackingParameters.default` is set to.
public struct CalibrationReport: Sendable, Hashable, Codable {
    /// One candidate of a grid search and the figure it scored.
    public struct GridPoint: Sendable, Hashable, Codable {
        /// The candidate value.
        public var value: Double
        /// The figure it scored.
        public var figure: Double
    }

    /// How the Kalman filter's noises and the silence timeouts were chosen.
    public struct Filter: Sendable, Hashable, Codable {
        /// Static-rssi series read.
        public var staticSeries: Int
        /// Samples in them.
        public var staticSamples: Int
        /// Median over static series of the RSSI variance, dB².
        public var staticMedianVariance: Double
        /// The chosen measurement noise r, dB²: the median variance, rounded.
        public var measurementNoise: Double
        /// Walking (node, beacon) series read.
        public var walkingSeries: Int
        /// Samples in them.
        public var walkingSamples: Int
        /// q → RMS one-step-ahead prediction error (dB) on the walking traces, r fixed.
        public var processNoiseGridWalking: [GridPoint]
        /// q → the same on the static series (a beacon that never moves prefers q → 0).
        public var processNoiseGridStatic: [GridPoint]
        /// The chosen process noise q, dB²/s: the best one-step prediction on the walking traces.
        public var processNoise: Double
        /// Median gap between advertisements of a still beacon, seconds.
        public var staticGapMedian: Double
        /// 99.9th percentile of those gaps, seconds.
        public var staticGapP999: Double
        /// Longest of those gaps, seconds.
        public var staticGapMax: Double
        /// Longest gap in the walking series, seconds.
        public var walkingGapMax: Double
        /// The chosen silence before a beacon is `unknown`, seconds: the longest static gap, rounded up.
        public var unknownAfter: Double
        /// The chosen silence before the filter restarts, seconds: twice `unknownAfter`.
        public var restartAfter: Double
        /// With the chosen filter, medians over the static series.
        public var staticMedianSigma: Double
        /// Median RMS error of the filtered RSSI against the series' mean, dB.
        public var staticMedianRMSErrorVsMean: Double
        /// Median standard deviation of the raw RSSI, dB.
        public var staticMedianRawStd: Double
    }

    /// The path-loss fit over the static series, without and with per-receiver offsets.
    public struct Distance: Sendable, Hashable, Codable {
        /// Series in the fit.
        public var series: Int
        /// Exponent n fitted without offsets.
        public var plainExponent: Double
        /// Measured power P₁ fitted without offsets, dBm.
        public var plainMeasuredPower: Double
        /// Residual standard deviation without offsets, dB.
        public var plainResidualStd: Double
        /// Exponent n fitted with one offset per receiver.
        public var offsetsExponent: Double
        /// Measured power P₁ fitted with offsets, dBm.
        public var offsetsMeasuredPower: Double
        /// Residual standard deviation with offsets, dB.
        public var offsetsResidualStd: Double
        /// The fitted offset of each receiver, dB.
        public var receiverOffsets: [String: Double]
        /// The chosen path-loss exponent: the fit with offsets, to one decimal.
        public var pathLossExponent: Double
        /// The chosen default measured power, dBm: the fit with offsets, rounded.
        public var defaultMeasuredPower: Double
    }

    /// How the proximity hysteresis was chosen.
    public struct ProximityAndPublish: Sendable, Hashable, Codable {
        /// h → median class changes per hour of a beacon parked on a boundary.
        public var hysteresisGrid: [GridPoint]
        /// The chosen hysteresis: the smallest within the boundary budget.
        public var hysteresis: Double
    }

    /// Publishes per minute of a still beacon (60 static-rssi series, whole track) for one policy.
    public struct PublishGridPoint: Sendable, Hashable, Codable {
        /// The σ multiple k of the policy.
        public var sigmaMultiple: Double
        /// The step floor of the policy, dB.
        public var rssiStep: Double
        /// Median publishes per minute over the series.
        public var medianPerMinute: Double
        /// The `budgetQuantile` quantile over the series.
        public var quantilePerMinute: Double
        /// 90th percentile of publishes per minute.
        public var p90PerMinute: Double
        /// Most publishes per minute of any series.
        public var maxPerMinute: Double
        /// Mean publishes per minute.
        public var meanPerMinute: Double
    }

    /// How the publish policy was chosen, and what it costs at rest.
    public struct Publish: Sendable, Hashable, Codable {
        /// At rest at most this many publishes per minute…
        public var budgetPerMinute: Double
        /// …in this share of the static series.
        public var budgetQuantile: Double
        /// Median σ of the filtered RSSI at rest, dB: the σ at which candidate steps are compared.
        public var typicalSigma: Double
        /// Per k, the step floors tried up to the first within the budget.
        public var grid: [PublishGridPoint]
        /// The chosen step floor, dB.
        public var rssiStep: Double
        /// The chosen σ multiple k.
        public var sigmaMultiple: Double
        /// The chosen heartbeat, seconds.
        public var heartbeat: Double
        /// The chosen shortest interval between step publishes, seconds.
        public var minimumInterval: Double
        /// The chosen fine step while moving, dB.
        public var movingStep: Double
        /// How long the fine step lasts after a step publish, seconds.
        public var movingFor: Double
        /// The chosen policy's figures.
        public var atRest: PublishGridPoint?
    }

    /// Proximity classes on one Herald phone-to-phone rail file.
    public struct HeraldFile: Sendable, Hashable, Codable {
        /// The file's name.
        public var name: String
        /// Samples in it.
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

    /// Proximity classes at short range on the Herald rail data.
    public struct Herald: Sendable, Hashable, Codable {
        /// Each file's figures.
        public var files: [HeraldFile]
        /// Share of all samples classed right.
        public var pooledAccuracy: Double
        /// The same without the Kalman filter.
        public var pooledAccuracyUnfiltered: Double
        /// The same with n = 2.7.
        public var pooledAccuracyExponent27: Double
        /// Mean of the per-class recalls (immune to most samples being `near`).
        public var pooledBalancedAccuracy: Double
        /// Balanced accuracy with n = 2.7.
        public var pooledBalancedAccuracyExponent27: Double
        /// Pooled `truth → estimate → count`.
        public var confusion: [String: [String: Int]]
        /// Share of truly-immediate samples classed immediate, and of truly-near classed near.
        public var immediateRecall: Double
        /// Share of truly-near samples classed near.
        public var nearRecall: Double
    }

    /// Proximity classes of still beacons, the node's against a 20 s trimmed running mean
    /// (`TrackingCalibration.proximityAtRest`).
    public struct ProximityAtRest: Sendable, Hashable, Codable {
        /// The accuracy of one way of classifying.
        public struct Classes: Sendable, Hashable, Codable {
            /// Mean of the recalls of the true classes present.
            public var balancedAccuracy: Double
            /// Share of near samples classed near.
            public var nearRecall: Double
            /// Share of far samples classed far.
            public var farRecall: Double
        }

        /// Receivers held out in turn (each one's series judged with a calibration fitted on the others).
        public var heldOutReceivers: Int
        /// Series judged.
        public var series: Int
        /// The node's track (Kalman filter, distance, classifier with hysteresis) with the defaults.
        public var node: Classes
        /// The Android Beacon Library's default: trimmed mean of the last 20 s (10 % off each end).
        public var trimmedMean20s: Classes
    }

    /// The filter's figures.
    public var filter: Filter
    /// The path-loss fit's figures.
    public var distance: Distance
    /// The hysteresis figures.
    public var proximity: ProximityAndPublish
    /// The publish policy's figures.
    public var publish: Publish
    /// Short-range figures on the Herald data.
    public var herald: Herald
    /// Proximity of still beacons, the node against a trimmed mean.
    public var proximityAtRest: ProximityAtRest
    /// The parameters the calibration recommends: what `TrackingParameters.default` is.
    public var recommended: TrackingParameters
}
