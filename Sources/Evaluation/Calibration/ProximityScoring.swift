import BeaconCore

/// One recorded series whose true distance is known at every sample, with the distance
/// calibration every method classifies it with.
public struct ProximitySeries: Sendable {
    /// The file it came from.
    public var name: String
    /// What leave-one-out holds out together (a beacon position of the static set).
    public var group: String
    /// The receiver that heard it, for per-receiver offsets ("" when it has none of its own).
    public var receiver: String
    /// Seconds, non-decreasing.
    public var times: [Double]
    /// dBm, one per time.
    public var rssi: [Double]
    /// True distance at each sample, metres.
    public var trueDistances: [Double]
    /// P₁ of the calibration, dBm at 1 m.
    public var measuredPower: Double
    /// n of the calibration.
    public var exponent: Double
    /// The calibration's residual, dB: the path-loss fit's residual standard deviation.
    public var calibrationResidual: Double

    /// Creates a series; `measuredPower` and `exponent` are set by the set that scores it.
    public init(name: String, group: String, receiver: String = "", times: [Double], rssi: [Double], trueDistances: [Double],
                measuredPower: Double = .nan, exponent: Double = .nan, calibrationResidual: Double = .nan) {
        self.name = name
        self.group = group
        self.receiver = receiver
        self.times = times
        self.rssi = rssi
        self.trueDistances = trueDistances
        self.measuredPower = measuredPower
        self.exponent = exponent
        self.calibrationResidual = calibrationResidual
    }

    /// The number of samples.
    public var count: Int { min(times.count, rssi.count, trueDistances.count) }

    /// The calibration's distance model.
    public var distanceModel: DistanceModel {
        DistanceModel(pathLossExponent: exponent, rssiOffset: 0, defaultMeasuredPower: measuredPower)
    }
}

/// A way of turning a series' samples into a proximity class at each sample.
public enum ProximityMethod: Sendable, Hashable {
    /// The node's track as it runs (`BeaconTrack`, what `replay --output measurements` runs):
    /// these parameters with the distance model replaced by the series' calibration.
    case node(TrackingParameters)
    /// A diagnostic, not a candidate: the node with every reading taken `decibels` weaker (P₁ of
    /// the calibration raised by that much, so it reads farther), to see which way each set's
    /// calibration leans.
    case nodeReadingWeaker(TrackingParameters, decibels: Double)
    /// The Android Beacon Library's 20 s trimmed running mean (`TrimmedMeanRSSI`), classes by the
    /// thresholds without hysteresis.
    case runningMean
    /// ESPresense's 15 s IQR-fenced mean (`IQRFencedMeanRSSI`), classes by the thresholds.
    case iqrFencedMean
    /// Each sample alone, classes by the thresholds.
    case sample
    /// A candidate tried for the node: the class from each class's probability mass.
    case classMass(ClassMassCandidate)
    /// A candidate tried for the node: a window statistic with a hold.
    case window(WindowCandidate)
    /// A candidate tried for the node: the share of a window's samples beyond each boundary.
    case share(ShareCandidate)
    /// A candidate tried for the node: the steady estimate with its hysteresis in dB.
    case decibelHysteresis(DecibelHysteresisCandidate)
    /// Not an estimator: a ceiling that reads the true distance (`ProximityOracle`).
    case oracle(ProximityOracle)

    /// The class at each sample of `series`.
    public func classes(_ series: ProximitySeries, thresholds: ProximityClassifier.Parameters = .default) -> [Proximity] {
        let model = series.distanceModel
        func plain(_ rssi: Double) -> Proximity {
            TrackingCalibration.trueProximity(distance: model.distance(rssi: rssi, measuredPower: nil), parameters: thresholds)
        }
        switch self {
        case .node(let parameters):
            return ProximityMethod.nodeReadingWeaker(parameters, decibels: 0).classes(series, thresholds: thresholds)
        case .nodeReadingWeaker(var parameters, let decibels):
            var shifted = series
            shifted.measuredPower += decibels
            parameters.distance = shifted.distanceModel
            var track = BeaconTrack(parameters: parameters)
            return (0..<series.count).map {
                track.observe(rssi: Int(series.rssi[$0].rounded()), measuredPower: nil,
                              at: Instant(seconds: series.times[$0])).proximity
            }
        case .runningMean:
            var mean = TrimmedMeanRSSI()
            return (0..<series.count).map { plain(mean.update(rssi: series.rssi[$0], at: series.times[$0])) }
        case .iqrFencedMean:
            var mean = IQRFencedMeanRSSI()
            return (0..<series.count).map { plain(mean.update(rssi: series.rssi[$0], at: series.times[$0] * 1000)) }
        case .sample:
            return (0..<series.count).map { plain(series.rssi[$0]) }
        case .classMass(let candidate):
            return candidate.classes(series, thresholds: thresholds)
        case .window(let candidate):
            return candidate.classes(series, thresholds: thresholds)
        case .share(let candidate):
            return candidate.classes(series, thresholds: thresholds)
        case .decibelHysteresis(let candidate):
            return candidate.classes(series, thresholds: thresholds)
        case .oracle(let oracle):
            return oracle.classes(series, thresholds: thresholds)
        }
    }
}

/// Proximity scored as balanced accuracy: the mean recall over the true
/// classes present (immediate < 0.5 m, near < 3 m, far beyond), so that far, which dominates,
/// does not hide a missed near. Samples whose true distance lies within `boundaryMargin` of a
/// boundary, and each series' first `warmUp` seconds, are not scored.
public enum ProximityScoring {
    /// Seconds at the start of each series that are not scored.
    public static let warmUp = 5.0
    /// A sample within this fraction of a class boundary is not scored.
    public static let boundaryMargin = 0.15

    /// The figures of one method on one set.
    public struct Score: Sendable, Hashable, Codable {
        /// The method's name.
        public var method: String
        /// Mean of the recalls of the true classes present.
        public var balancedAccuracy: Double
        /// Share of truly immediate samples classed immediate; nil when none is.
        public var immediateRecall: Double?
        /// Share of truly near samples classed near; nil when none is.
        public var nearRecall: Double?
        /// Share of truly far samples classed far; nil when none is.
        public var farRecall: Double?
        /// Share of scored samples classed right.
        public var accuracy: Double
        /// Samples scored.
        public var scored: Int
    }

    /// Whether a sample at `elapsed` seconds into its series, truly `distance` away, is scored.
    public static func isScored(distance: Double, elapsed: Double, thresholds: ProximityClassifier.Parameters = .default) -> Bool {
        guard elapsed >= warmUp, distance.isFinite else { return false }
        return [thresholds.immediateBelow, thresholds.nearBelow].allSatisfy { abs(distance - $0) > boundaryMargin * $0 }
    }

    /// Confusion counts `[truth][estimate]` of `method` over `series`, scored samples only.
    public static func confusion(_ series: [ProximitySeries], method: ProximityMethod,
                                 thresholds: ProximityClassifier.Parameters = .default) -> [Proximity: [Proximity: Int]] {
        var counts: [Proximity: [Proximity: Int]] = [:]
        for s in series where s.count > 0 {
            let classes = method.classes(s, thresholds: thresholds)
            let start = s.times[0]
            for i in 0..<s.count where isScored(distance: s.trueDistances[i], elapsed: s.times[i] - start, thresholds: thresholds) {
                let truth = TrackingCalibration.trueProximity(distance: s.trueDistances[i], parameters: thresholds)
                counts[truth, default: [:]][classes[i], default: 0] += 1
            }
        }
        return counts
    }

    /// The score of `method` over `series`.
    public static func score(_ series: [ProximitySeries], method: ProximityMethod, name: String,
                             thresholds: ProximityClassifier.Parameters = .default) -> Score {
        score(confusion(series, method: method, thresholds: thresholds), name: name)
    }

    /// How many of a confusion table's samples are classed right (its diagonal).
    static func rightCount(_ confusion: [Proximity: [Proximity: Int]]) -> Int {
        confusion.reduce(0) { $0 + ($1.value[$1.key] ?? 0) }
    }

    /// The score of a confusion table.
    public static func score(_ confusion: [Proximity: [Proximity: Int]], name: String) -> Score {
        func recall(_ p: Proximity) -> Double? {
            guard let row = confusion[p] else { return nil }
            return TrackingCalibration.ratio(row[p] ?? 0, row.values.reduce(0, +))
        }
        let recalls = [Proximity.immediate, .near, .far].compactMap(recall)
        let scored = confusion.values.reduce(0) { $0 + $1.values.reduce(0, +) }
        let right = rightCount(confusion)
        return Score(method: name, balancedAccuracy: TrackingCalibration.mean(recalls), immediateRecall: recall(.immediate),
                     nearRecall: recall(.near), farRecall: recall(.far),
                     accuracy: TrackingCalibration.ratio(right, scored), scored: scored)
    }

    // MARK: Calibration

    /// The static series calibrated with one path-loss fit (n and P₁) on `fitOn` of them; every
    /// series gets it. With `perReceiverOffsets` each receiver gets its own intercept (the node's
    /// `rssiOffset`) and n is fitted within receivers; a receiver the fit has not seen gets P₁.
    public static func calibrated(_ series: [ProximitySeries], fittedOn fitOn: [ProximitySeries],
                                  perReceiverOffsets: Bool = false) -> (series: [ProximitySeries], fit: PathLossFit) {
        let points = fitOn.map {
            PathLossPoint(receiver: $0.receiver, distance: TrackingCalibration.mean(Array($0.trueDistances.prefix($0.count))),
                          meanRSSI: TrackingCalibration.mean(Array($0.rssi.prefix($0.count))))
        }
        let fit = TrackingCalibration.fitPathLoss(points, perReceiverOffsets: perReceiverOffsets)
        return (series.map {
            var s = $0
            (s.exponent, s.measuredPower, s.calibrationResidual) = (fit.exponent, fit.measuredPower + (fit.offsets[s.receiver] ?? 0),
                                                                    fit.residualStd)
            return s
        }, fit)
    }

    /// Leave one group out: each group's series calibrated with a fit on the other groups' series.
    public static func leaveOneGroupOut(_ series: [ProximitySeries], perReceiverOffsets: Bool = false) -> [ProximitySeries] {
        let groups = Set(series.map(\.group)).sorted()
        return groups.flatMap { held in
            calibrated(series.filter { $0.group == held }, fittedOn: series.filter { $0.group != held },
                       perReceiverOffsets: perReceiverOffsets).series
        }
    }

    /// The rail series calibrated with exponent `n` and its `residual` (fitted elsewhere) and, per
    /// file, P₁ = its mean RSSI at 0.9–1.1 m.
    public static func calibratedAtOneMetre(_ series: [ProximitySeries], exponent n: Double, residual: Double = .nan) -> [ProximitySeries] {
        series.map { s in
            var s = s
            let oneMetre = (0..<s.count).filter { s.trueDistances[$0] >= 0.9 && s.trueDistances[$0] <= 1.1 }.map { s.rssi[$0] }
            s.measuredPower = TrackingCalibration.mean(oneMetre)
            s.exponent = n
            s.calibrationResidual = residual
            return s
        }
    }
}
