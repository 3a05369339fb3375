import BeaconCore

/// Proximity at rest: how often the node's classes are right for a beacon that does not move,
/// against the Android Beacon Library's 20 s trimmed running mean (issue 14, item 4).
extension TrackingCalibration {
    /// Both classifiers, leave one receiver out: for each of the static series' receivers, one
    /// path-loss calibration (n and P₁, no per-receiver offset: one calibration for all) is fitted
    /// on the other receivers' series, and the held-out receiver's series are classified at every
    /// sample (a) by the node's whole track (`BeaconTrack` with `parameters`, the distance model
    /// replaced by that fit) and (b) by the trimmed mean of the last 20 s through the same fit and
    /// thresholds (no hysteresis, as the library). Balanced accuracy: the mean over the true
    /// classes present (near and far in these series; none is immediate) of their recall, so the
    /// 57 far series do not drown the 3 near ones.
    public static func proximityAtRest(
        _ statics: [(series: RSSISeries, receiver: String, distance: Double)], parameters: TrackingParameters
    ) -> CalibrationReport.ProximityAtRest {
        var ours: [Proximity: [Proximity: Int]] = [:]
        var trimmed: [Proximity: [Proximity: Int]] = [:]
        let receivers = Set(statics.map(\.receiver)).sorted()
        for heldOut in receivers {
            let points = statics.filter { $0.receiver != heldOut }.map {
                PathLossPoint(receiver: $0.receiver, distance: $0.distance, meanRSSI: mean(Array($0.series.rssi.prefix($0.series.count))))
            }
            let fit = fitPathLoss(points, perReceiverOffsets: false)
            var tuned = parameters
            tuned.distance = DistanceModel(pathLossExponent: fit.exponent, rssiOffset: 0, defaultMeasuredPower: fit.measuredPower)
            // A still beacon is heard: silence is not what this measures.
            tuned.proximity.unknownAfter = .infinity
            for entry in statics where entry.receiver == heldOut {
                let truth = trueProximity(distance: entry.distance, parameters: tuned.proximity)
                var track = BeaconTrack(parameters: tuned)
                var mean = TrimmedMeanRSSI()
                let s = entry.series
                for i in 0..<s.count {
                    let estimate = track.observe(rssi: Int(s.rssi[i].rounded()), measuredPower: nil, at: Instant(seconds: s.times[i]))
                    ours[truth, default: [:]][estimate.proximity, default: 0] += 1
                    let rssi = mean.update(rssi: s.rssi[i], at: s.times[i])
                    let distance = tuned.distance.distance(rssi: rssi, measuredPower: nil)
                    trimmed[truth, default: [:]][trueProximity(distance: distance, parameters: tuned.proximity), default: 0] += 1
                }
            }
        }
        return .init(heldOutReceivers: receivers.count, series: statics.count,
                     node: .init(ours), trimmedMean20s: .init(trimmed))
    }
}

extension CalibrationReport.ProximityAtRest.Classes {
    init(_ confusion: [Proximity: [Proximity: Int]]) {
        func recall(_ p: Proximity) -> Double? {
            guard let row = confusion[p] else { return nil }
            return TrackingCalibration.ratio(row[p] ?? 0, row.values.reduce(0, +))
        }
        let recalls = [Proximity.immediate, .near, .far].compactMap(recall)
        self.init(balancedAccuracy: TrackingCalibration.mean(recalls), nearRecall: recall(.near) ?? .nan,
                  farRecall: recall(.far) ?? .nan)
    }
}
