import BeaconCore
#if canImport(Glibc)
import Glibc
#endif

extension ProximityScoring {
    /// One receiver's install-time calibration for one held-out group.
    public struct InstallRun: Sendable, Hashable, Codable {
        public var heldOut: String
        public var receiver: String
        /// The series it was calibrated on (the receiver's nearest to 1 m among the other groups).
        public var calibratedOn: String
        public var distance: Double
        /// The offset found: the run's 1 m level less what the shared fit expects at `distance`, dB.
        public var offset: Double
        /// Runs refused before one passed (`InstallCalibration.measure`: too noisy, moved, too short).
        public var refusedRuns: Int
    }

    /// Leave one group out, each receiver's offset found as `presence-agent calibrate` finds it:
    /// n and P₁ fitted on the other groups (the shared calibration of `leaveOneGroupOut`), then for
    /// each receiver its own series nearest to 1 m among the other groups, read as calibrate reads a
    /// run (`InstallCalibration.measure` over `settings.duration` seconds from the series' start;
    /// a refused run is run again on the next stretch, as an installer would), less the shared
    /// fit's level at that series' true distance (at 1 m, exactly calibrate's level less P₁).
    /// `wholeSeries` reads the whole series as one run instead: the limit of a long calibration.
    /// A receiver with no accepted run keeps the shared P₁.
    public static func leaveOneGroupOutInstallCalibrated(
        _ series: [ProximitySeries], settings: InstallCalibration.Settings = .init(), wholeSeries: Bool = false
    ) -> (series: [ProximitySeries], runs: [InstallRun]) {
        var scored: [ProximitySeries] = []
        var runs: [InstallRun] = []
        for held in Set(series.map(\.group)).sorted() {
            let others = series.filter { $0.group != held }
            let shared = calibrated(series.filter { $0.group == held }, fittedOn: others)
            let fit = shared.fit
            var offsets: [String: Double] = [:]
            for receiver in Set(shared.series.map(\.receiver)).sorted() {
                let candidates = others.filter { $0.receiver == receiver && $0.count > 0 }
                guard let nearest = candidates.min(by: { abs(log10($0.trueDistances[0])) < abs(log10($1.trueDistances[0])) }),
                      let level = installLevel(nearest, settings: settings, wholeSeries: wholeSeries)
                else { continue }
                let distance = nearest.trueDistances[0]
                let offset = level.mean - (fit.measuredPower - 10 * fit.exponent * log10(distance))
                offsets[receiver] = offset
                runs.append(InstallRun(heldOut: held, receiver: receiver, calibratedOn: nearest.name, distance: distance,
                                       offset: offset, refusedRuns: level.refused))
            }
            scored += shared.series.map { s in
                var s = s
                s.measuredPower += offsets[s.receiver] ?? 0
                return s
            }
        }
        return (scored, runs)
    }

    /// The first accepted run's level over consecutive stretches of `settings.duration` seconds,
    /// and how many were refused before it; the whole series as one run with `wholeSeries`.
    static func installLevel(_ series: ProximitySeries, settings: InstallCalibration.Settings, wholeSeries: Bool)
        -> (mean: Double, refused: Int)?
    {
        let times = Array(series.times.prefix(series.count)), rssi = Array(series.rssi.prefix(series.count))
        guard let first = times.first, let last = times.last else { return nil }
        if wholeSeries {
            guard case .success(let level) = InstallCalibration.measure(rssi, settings: settings, seconds: last - first) else { return nil }
            return (level.mean, 0)
        }
        var refused = 0
        var start = first
        while start <= last {
            let readings = (0..<times.count).filter { times[$0] >= start && times[$0] < start + settings.duration }.map { rssi[$0] }
            if case .success(let level) = InstallCalibration.measure(readings, settings: settings, seconds: settings.duration) {
                return (level.mean, refused)
            }
            refused += 1
            start += settings.duration
        }
        return nil
    }
}
