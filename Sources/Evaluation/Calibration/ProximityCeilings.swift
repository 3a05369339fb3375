import BeaconCore

/// A ceiling, not an estimator: a class that reads the true distance,
/// to bound what any estimator from the same samples could reach under the same calibration.
public enum ProximityOracle: Sendable, Hashable {
    /// The class of the series' long-run mean RSSI at the sample's true distance (every sample of
    /// the series at that distance averaged, the future too): what a perfect average converges to.
    case longRunMean
    /// The true class whenever any value between the weakest and the strongest sample of the last
    /// `window` seconds reads in it, else the class of the nearer end: the best any statistic
    /// that lies within the window's range (a mean, a quantile, a filter of those samples) can do.
    case windowRange(window: Double)

    func classes(_ series: ProximitySeries, thresholds: ProximityClassifier.Parameters) -> [Proximity] {
        let model = series.distanceModel
        func plain(_ rssi: Double) -> Proximity {
            TrackingCalibration.trueProximity(distance: model.distance(rssi: rssi, measuredPower: nil), parameters: thresholds)
        }
        switch self {
        case .longRunMean:
            var sums: [Double: (sum: Double, count: Int)] = [:]
            for i in 0..<series.count {
                let old = sums[series.trueDistances[i], default: (0, 0)]
                sums[series.trueDistances[i]] = (old.sum + series.rssi[i], old.count + 1)
            }
            return (0..<series.count).map { i in
                let entry = sums[series.trueDistances[i]] ?? (0, 1)
                return plain(entry.sum / Double(entry.count))
            }
        case .windowRange(let window):
            var start = 0
            return (0..<series.count).map { i in
                while series.times[i] - series.times[start] >= window { start += 1 }
                let samples = series.rssi[start...i]
                let nearest = plain(samples.max() ?? series.rssi[i]), farthest = plain(samples.min() ?? series.rssi[i])
                let truth = TrackingCalibration.trueProximity(distance: series.trueDistances[i], parameters: thresholds)
                let order: [Proximity] = [.immediate, .near, .far]
                let (a, b, t) = (order.firstIndex(of: nearest) ?? 2, order.firstIndex(of: farthest) ?? 2, order.firstIndex(of: truth) ?? 2)
                return t < a ? nearest : t > b ? farthest : truth
            }
        }
    }
}

extension ProximityScoring {
    /// A ceiling over `methods`: for each series the method that classes most of its scored samples
    /// right, as if an oracle picked the estimator per series. The confusion of those picks.
    public static func bestPerSeries(_ series: [ProximitySeries], methods: [ProximityMethod],
                                     thresholds: ProximityClassifier.Parameters = .default) -> [Proximity: [Proximity: Int]] {
        var pooled: [Proximity: [Proximity: Int]] = [:]
        for s in series {
            let tables = methods.map { confusion([s], method: $0, thresholds: thresholds) }
            let right = tables.map(rightCount)
            guard let best = right.indices.max(by: { right[$0] < right[$1] }) else { continue }
            for (truth, row) in tables[best] {
                for (estimate, count) in row { pooled[truth, default: [:]][estimate, default: 0] += count }
            }
        }
        return pooled
    }

    /// One series as the per-series breakdown shows it.
    public struct SeriesRow: Sendable, Hashable, Codable {
        /// The file.
        public var name: String
        /// Its receiver, "" when it has none of its own.
        public var receiver: String
        /// What leave-one-out holds out with it (the beacon position).
        public var group: String
        /// Mean true distance, metres.
        public var trueDistance: Double
        /// The distance its long-run mean RSSI reads under its calibration, metres.
        public var longRunDistance: Double
        /// P₁ + offset of its calibration, dBm.
        public var measuredPower: Double
        /// Share of its scored samples each method classes right, in the order asked; nil when none is scored.
        public var rightShares: [Double?]
    }

    /// Each series' true and long-run-read distance and the share of it that each of `methods` gets right.
    public static func seriesRows(_ series: [ProximitySeries], methods: [ProximityMethod],
                                  thresholds: ProximityClassifier.Parameters = .default) -> [SeriesRow] {
        series.map { s in
            let shares: [Double?] = methods.map { method in
                let scored = score([s], method: method, name: "", thresholds: thresholds)
                return scored.scored > 0 ? scored.accuracy : nil
            }
            let samples = Array(s.rssi.prefix(s.count))
            return SeriesRow(name: s.name, receiver: s.receiver, group: s.group,
                             trueDistance: TrackingCalibration.mean(Array(s.trueDistances.prefix(s.count))),
                             longRunDistance: s.distanceModel.distance(rssi: TrackingCalibration.mean(samples), measuredPower: nil),
                             measuredPower: s.measuredPower, rightShares: shares)
        }
    }
}
