import BeaconCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One receiver's RSSI samples of one beacon, in time order: the unit the calibration works on.
public struct RSSISeries: Sendable, Hashable {
    /// Seconds since any origin, non-decreasing.
    public var times: [Double]
    /// dBm, one per time.
    public var rssi: [Double]

    /// Creates a series from sample times and RSSI values, in step.
    public init(times: [Double], rssi: [Double]) {
        self.times = times
        self.rssi = rssi
    }

    /// The number of samples.
    public var count: Int { min(times.count, rssi.count) }
    /// Seconds from first to last sample.
    public var duration: Double { count > 1 ? times[count - 1] - times[0] : 0 }
}

/// Mean RSSI of a beacon at a known distance from one receiver: a point of the path-loss fit.
public struct PathLossPoint: Sendable, Hashable {
    /// The receiver that heard the beacon.
    public var receiver: String
    /// The true distance between beacon and receiver, metres.
    public var distance: Double
    /// The mean RSSI at that distance, dBm.
    public var meanRSSI: Double

    /// Creates a point of the fit.
    public init(receiver: String, distance: Double, meanRSSI: Double) {
        self.receiver = receiver
        self.distance = distance
        self.meanRSSI = meanRSSI
    }
}

/// Result of fitting `meanRSSI = P₁ + offset(receiver) − 10·n·log10(d)`.
public struct PathLossFit: Sendable, Hashable {
    /// n.
    public var exponent: Double
    /// P₁, dBm at 1 m (the mean over receivers when offsets are fitted).
    public var measuredPower: Double
    /// Per-receiver offsets in dB (zero mean), empty for the plain fit.
    public var offsets: [String: Double]
    /// Standard deviation of the residuals, dB.
    public var residualStd: Double
}

/// The deterministic procedures behind `presence-bench calibrate`: each turns recorded data into
/// one figure of `TrackingParameters`. Pure functions on arrays, so tests can run them too.
public enum TrackingCalibration {
    // MARK: Statistics

    /// Median (mean of the middle two for an even count); NaN for no values.
    public static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    /// The `p`-quantile (0...1) by linear interpolation between order statistics.
    public static func quantile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let position = max(0, min(1, p)) * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        let fraction = position - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction
    }

    /// The arithmetic mean; NaN for no values.
    public static func mean(_ values: [Double]) -> Double {
        values.isEmpty ? .nan : values.reduce(0, +) / Double(values.count)
    }

    /// Population variance.
    public static func variance(_ values: [Double]) -> Double {
        let m = mean(values)
        return values.isEmpty ? .nan : values.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(values.count)
    }

    // MARK: Filter noise

    /// r: the median over series of the sample variance. For a beacon that does not move the
    /// whole spread around the series mean is measurement noise.
    public static func measurementNoise(_ series: [RSSISeries]) -> Double {
        median(series.map { variance(Array($0.rssi.prefix($0.count))) })
    }

    /// Root-mean-square one-step-ahead prediction error of the filter: before each sample, how far
    /// the prediction from the earlier samples lies from it. Restarts are not scored.
    public static func oneStepRMSE(_ series: [RSSISeries], filter parameters: RSSIKalmanFilter.Parameters) -> Double {
        var sum = 0.0
        var count = 0
        for s in series {
            var filter = RSSIKalmanFilter(parameters: parameters)
            for i in 0..<s.count {
                let time = Instant(seconds: s.times[i])
                if let predicted = filter.estimate(at: time) {
                    let e = s.rssi[i] - predicted.rssi
                    sum += e * e
                    count += 1
                }
                _ = filter.update(rssi: s.rssi[i], at: time)
            }
        }
        return count > 0 ? (sum / Double(count)).squareRoot() : .nan
    }

    /// Per series: the median σ of the filter and the RMS error of the filtered RSSI against the
    /// series mean (the truth for a beacon that does not move), next to the raw standard deviation.
    public static func staticFilterFigures(_ series: [RSSISeries], filter parameters: RSSIKalmanFilter.Parameters)
        -> [(sigma: Double, rmsError: Double, rawStd: Double)]
    {
        series.map { s in
            let values = Array(s.rssi.prefix(s.count))
            let m = mean(values)
            var filter = RSSIKalmanFilter(parameters: parameters)
            var sigmas: [Double] = []
            sigmas.reserveCapacity(s.count)
            var squared = 0.0
            for i in 0..<s.count {
                let e = filter.update(rssi: s.rssi[i], at: Instant(seconds: s.times[i]))
                sigmas.append(e.sigma)
                squared += (e.rssi - m) * (e.rssi - m)
            }
            return (median(sigmas), (squared / Double(max(1, s.count))).squareRoot(), variance(values).squareRoot())
        }
    }

    /// Every gap between consecutive samples, seconds.
    public static func gaps(_ series: [RSSISeries]) -> [Double] {
        series.flatMap { s in s.count > 1 ? (1..<s.count).map { s.times[$0] - s.times[$0 - 1] } : [] }
    }

    // MARK: Distance

    /// Least-squares fit of the log-distance model. With `perReceiverOffsets` each receiver gets its
    /// own intercept (what the node's `rssiOffset` is for) and n is fitted within receivers.
    public static func fitPathLoss(_ points: [PathLossPoint], perReceiverOffsets: Bool) -> PathLossFit {
        let valid = points.filter { $0.distance > 0 && $0.distance.isFinite && $0.meanRSSI.isFinite }
        func x(_ p: PathLossPoint) -> Double { -10 * log10(p.distance) }
        var groups: [String: [PathLossPoint]] = [:]
        for p in valid { groups[perReceiverOffsets ? p.receiver : "", default: []].append(p) }
        // Within-group regression: slope from deviations around each group's means.
        var sxy = 0.0, sxx = 0.0
        var means: [String: (x: Double, y: Double)] = [:]
        for (key, group) in groups {
            let mx = mean(group.map(x)), my = mean(group.map(\.meanRSSI))
            means[key] = (mx, my)
            for p in group {
                sxy += (x(p) - mx) * (p.meanRSSI - my)
                sxx += (x(p) - mx) * (x(p) - mx)
            }
        }
        let n = sxx > 0 ? sxy / sxx : .nan
        var intercepts: [String: Double] = [:]
        for (key, m) in means { intercepts[key] = m.y - n * m.x }
        let p1 = mean(intercepts.keys.sorted().map { intercepts[$0]! })
        var residuals: [Double] = []
        for p in valid {
            let c = intercepts[perReceiverOffsets ? p.receiver : ""] ?? p1
            residuals.append(p.meanRSSI - (c + n * x(p)))
        }
        var offsets: [String: Double] = [:]
        if perReceiverOffsets { for (key, c) in intercepts { offsets[key] = c - p1 } }
        return PathLossFit(exponent: n, measuredPower: p1, offsets: offsets,
                           residualStd: (residuals.reduce(0) { $0 + $1 * $1 } / Double(max(1, residuals.count))).squareRoot())
    }

    // MARK: Proximity and publishing

    /// Filtered distances of one series under `parameters` (advertised power absent: the model's default).
    public static func filteredDistances(_ s: RSSISeries, parameters: TrackingParameters) -> [Double] {
        var filter = RSSIKalmanFilter(parameters: parameters.filter)
        return (0..<s.count).map { i in
            let e = filter.update(rssi: s.rssi[i], at: Instant(seconds: s.times[i]))
            return parameters.distance.distance(rssi: e.rssi, measuredPower: nil)
        }
    }

    /// Class changes per hour of a beacon parked exactly on a boundary (the threshold set to the
    /// series' own median filtered distance: the worst case) with hysteresis `h`. `distances` are
    /// the series' filtered distances (`filteredDistances`).
    public static func boundaryFlapsPerHour(_ s: RSSISeries, distances: [Double], hysteresis h: Double) -> Double {
        let boundary = median(distances)
        var classifier = ProximityClassifier(parameters: .init(
            immediateBelow: 0, nearBelow: boundary, hysteresis: h, unknownAfter: .infinity))
        var previous: Proximity?
        var changes = 0
        for i in 0..<min(s.count, distances.count) {
            let p = classifier.classify(distance: distances[i], at: Instant(seconds: s.times[i]))
            if let previous, previous != p { changes += 1 }
            previous = p
        }
        return s.duration > 0 ? Double(changes) / (s.duration / 3600) : 0
    }

    /// Measurements published per minute by a beacon that does not move, through the whole track
    /// as a live node runs it (filter, distance, proximity with hysteresis, publish policy, and
    /// `checkSilence` at every sample and at one-second ticks): heartbeats, steps, proximity
    /// changes and silences all count. Advertised power absent: the model's default P₁.
    public static func stillPublishesPerMinute(_ s: RSSISeries, parameters: TrackingParameters) -> Double {
        var track = BeaconTrack(parameters: parameters)
        var published = 0
        var tick: Double?
        for i in 0..<s.count {
            let t = s.times[i]
            if var next = tick {
                while next + 1 < t {
                    next += 1
                    if track.checkSilence(at: Instant(seconds: next)) != nil { published += 1 }
                }
                tick = max(next, t)
            } else {
                tick = t
            }
            if track.checkSilence(at: Instant(seconds: t)) != nil { published += 1 }
            if track.observe(rssi: Int(s.rssi[i].rounded()), measuredPower: nil, at: Instant(seconds: t)).shouldPublish {
                published += 1
            }
        }
        return s.duration > 0 ? Double(published) / (s.duration / 60) : 0
    }

    /// The true class of a distance under the thresholds (no hysteresis).
    public static func trueProximity(distance: Double, parameters: ProximityClassifier.Parameters) -> Proximity {
        distance < parameters.immediateBelow ? .immediate : distance < parameters.nearBelow ? .near : .far
    }

    /// Confusion counts `[truth][estimate]` of proximity over a recording with known distances,
    /// run through a whole `BeaconTrack` (filter, distance, hysteresis) with P₁ = `measuredPower`.
    public static func proximityConfusion(
        times: [Double], rssi: [Double], trueDistances: [Double], measuredPower: Int, parameters: TrackingParameters,
        filtered: Bool = true
    ) -> [Proximity: [Proximity: Int]] {
        var track = BeaconTrack(parameters: parameters, configuredMeasuredPower: measuredPower)
        var classifier = ProximityClassifier(parameters: parameters.proximity)
        var confusion: [Proximity: [Proximity: Int]] = [:]
        for i in 0..<min(times.count, rssi.count, trueDistances.count) {
            let time = Instant(seconds: times[i])
            let estimated: Proximity
            if filtered {
                estimated = track.observe(rssi: Int(rssi[i].rounded()), measuredPower: nil, at: time).proximity
            } else {
                let d = parameters.distance.distance(rssi: rssi[i], measuredPower: Double(measuredPower))
                estimated = classifier.classify(distance: d, at: time)
            }
            let truth = trueProximity(distance: trueDistances[i], parameters: parameters.proximity)
            confusion[truth, default: [:]][estimated, default: 0] += 1
        }
        return confusion
    }
}
