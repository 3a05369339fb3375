import ArgumentParser
import BeaconCore
import Evaluation
import Foundation

/// Scores immediate/near/far on the recordings with known distances, the node's track beside the
/// peers' estimators, all on one distance calibration so that they differ only by their rule. The
/// rules live in `ProximityScoring`; this command reads the files and prints.
struct ProximityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proximity",
        abstract: "Scores proximity classes on recorded data: the node beside the Android Beacon Library and ESPresense.",
        discussion: """
            Every method classifies with the same calibration, d = 10^((P1 - rssi)/(10 n)): on the static \
            series n and P1 are one path-loss fit on the static series (and, in the leave-one-position-out \
            set, a fit on the other positions; in the per-receiver sets, one intercept per receiver); on the \
            phone-to-phone rail n is that fit's and P1 each file's mean RSSI at 1 m; the walk is the demo \
            building's simulated people heard by its four nodes for an hour, on the simulator's own radio. Balanced accuracy is the mean recall over the true classes present \
            (immediate < 0.5 m, near < 3 m, far beyond); samples within 15 % of a boundary and each \
            series' first 5 s are not scored.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, table, series
    }

    @Option(help: "The data directory (static-rssi/, rssi-vs-distance/).")
    var data: String = "data"

    @Option(help: "json (every figure), table (markdown, one row per set and method) or series (markdown, one row per static series).")
    var format: Format = .json

    @Flag(help: "Also score the candidates tried for the node (filter noise, hysteresis, settling).")
    var candidates = false

    func run() throws {
        let sets = try Self.loadSets(dataDirectory: data)
        var methods: [(String, ProximityMethod)] = [
            ("node", .node(.default)),
            ("android-running-mean-20s", .runningMean),
            ("espresense-iqr-mean-15s", .iqrFencedMean),
            ("each-sample", .sample),
        ]
        if format == .series {
            print(Self.seriesTable(sets: sets, methods: methods))
            return
        }
        if candidates { methods += ProximityCandidates.all }
        let estimators = methods.filter { ProximityCandidates.isEstimator($0.1) }.map { $0.1 }
        let unleaned = methods.filter { ProximityCandidates.isUnleaned($0.1) }.map { $0.1 }
        let report = ProximityReport(
            warmUpSeconds: ProximityScoring.warmUp, boundaryMargin: ProximityScoring.boundaryMargin,
            sets: sets.map { set in
                ProximityReport.SetScores(
                    set: set.name, series: set.series.count, calibration: set.calibration,
                    scores: methods.map { ProximityScoring.score(set.series, method: $1, name: $0) }
                        + (candidates ? [
                            ProximityScoring.score(ProximityScoring.bestPerSeries(set.series, methods: estimators),
                                                   name: "ceiling: the best estimator per series (an oracle's pick)"),
                            ProximityScoring.score(ProximityScoring.bestPerSeries(set.series, methods: unleaned),
                                                   name: "ceiling: the best estimator that does not lean, per series"),
                        ] : []))
            })
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
            FileHandle.standardOutput.write(try encoder.encode(report))
            FileHandle.standardOutput.write(Data("\n".utf8))
        case .table, .series:
            print(report.markdownTable())
        }
    }

    static func loadSets(dataDirectory: String) throws -> [(name: String, calibration: String, series: [ProximitySeries])] {
        let staticDirectory = dataDirectory + "/static-rssi"
        let distances = TrackingCalibration.parseStaticDistances(try CalibrateCommand.read(staticDirectory + "/DISTANCES.csv"))
        guard !distances.isEmpty else { throw CalibrateCommand.MissingData(path: staticDirectory + "/DISTANCES.csv") }
        let statics = try distances.map { entry in
            let parsed = TrackingCalibration.parseStaticSeries(try CalibrateCommand.read(staticDirectory + "/" + entry.file))
            // `sensorNN_x_y_z.mbd`: the beacon's position is the name after the receiver.
            let position = entry.file.split(separator: "_", maxSplits: 1).last.map(String.init) ?? entry.file
            let receiver = entry.file.split(separator: "_", maxSplits: 1).first.map(String.init) ?? entry.file
            return ProximitySeries(name: entry.file, group: position, receiver: receiver, times: parsed.times, rssi: parsed.rssi,
                                   trueDistances: Array(repeating: entry.distance, count: parsed.count))
        }
        let heraldDirectory = dataDirectory + "/rssi-vs-distance"
        let rail = try CalibrateCommand.files(in: heraldDirectory, suffix: ".csv").filter { $0.hasPrefix("herald-2") }.map { name in
            let parsed = TrackingCalibration.parseHerald(try CalibrateCommand.read(heraldDirectory + "/" + name))
            return ProximitySeries(name: name, group: name, times: parsed.times, rssi: parsed.rssi, trueDistances: parsed.distances)
        }
        guard !rail.isEmpty else { throw CalibrateCommand.MissingData(path: heraldDirectory) }
        let all = ProximityScoring.calibrated(statics, fittedOn: statics)
        let n = all.fit.exponent
        let offsets = ProximityScoring.calibrated(statics, fittedOn: statics, perReceiverOffsets: true)
        func format(_ x: Double) -> String { String(format: "%.3f", x) }
        return [
            ("static-rssi", "n \(format(n)), P1 \(format(all.fit.measuredPower)) dBm: one fit on the 60 series", all.series),
            ("static-rssi, leave one position out", "n and P1 fitted on the other 4 beacon positions",
             ProximityScoring.leaveOneGroupOut(statics)),
            ("static-rssi, per-receiver offsets", "n \(format(offsets.fit.exponent)) within receivers, "
             + "P1 \(format(offsets.fit.measuredPower)) dBm plus each receiver's offset: one fit on the 60 series", offsets.series),
            ("static-rssi, leave one position out, per-receiver offsets",
             "n, P1 and each receiver's offset fitted on the other 4 beacon positions",
             ProximityScoring.leaveOneGroupOut(statics, perReceiverOffsets: true)),
            installCalibrated(statics, wholeSeries: false),
            installCalibrated(statics, wholeSeries: true),
        ] + installCalibratedNearOneMetre(statics) + [
            ("herald rail (phone to phone)", "n \(format(n)) (static fit), P1 each file's mean RSSI at 1 m",
             ProximityScoring.calibratedAtOneMetre(rail, exponent: n, residual: all.fit.residualStd)),
            ("walk (the demo building, simulated)", "n 2.7 and P1 each person's measured power: the simulator's radio",
             demoWalk()),
        ]
    }
}

extension ProximityCommand {
    /// The static set left out with each receiver's offset as `presence-agent calibrate` finds it
    /// (`ProximityScoring.leaveOneGroupOutInstallCalibrated`), its runs summed up in the description.
    static func installCalibrated(_ statics: [ProximitySeries], wholeSeries: Bool) -> (name: String, calibration: String, series: [ProximitySeries]) {
        let (series, runs) = ProximityScoring.leaveOneGroupOutInstallCalibrated(statics, wholeSeries: wholeSeries)
        let offsets = runs.map(\.offset)
        let atOneMetre = runs.filter { $0.distance < 2 }.count
        let run = wholeSeries ? "the whole series (30 min)" : "30 s, as calibrate runs (a refused run run again on the next 30 s)"
        return ("static-rssi, leave one position out, install-time calibration" + (wholeSeries ? " (whole series)" : ""),
                "n and P1 fitted on the other 4 beacon positions; each receiver's offset from \(run) of its own series nearest "
                + "to 1 m among them, less the fit's level at that distance: \(runs.count) runs, \(atOneMetre) within 2 m, "
                + "offsets \(String(format: "%.1f", offsets.min() ?? .nan))…\(String(format: "%.1f", offsets.max() ?? .nan)) dB, "
                + "\(runs.reduce(0) { $0 + $1.refusedRuns }) runs refused before one passed, "
                + "\(Set(statics.map(\.group)).count * Set(statics.map(\.receiver)).count - runs.count) receivers with no run passed (shared P1 kept)",
                series)
    }
}

extension ProximityCommand {
    /// The same, on the series whose receiver's calibration run was within 2 m of the beacon (an
    /// install-time calibration as `calibrate` asks for it), beside the shared calibration of those series.
    static func installCalibratedNearOneMetre(_ statics: [ProximitySeries]) -> [(name: String, calibration: String, series: [ProximitySeries])] {
        let (installed, runs) = ProximityScoring.leaveOneGroupOutInstallCalibrated(statics)
        let near = Set(runs.filter { $0.distance < 2 }.map { "\($0.heldOut) \($0.receiver)" })
        func subset(_ series: [ProximitySeries]) -> [ProximitySeries] { series.filter { near.contains("\($0.group) \($0.receiver)") } }
        let name = "static-rssi, leave one position out, the \(near.count) series whose receiver calibrates within 2 m"
        return [
            (name + ": shared calibration", "n and P1 fitted on the other 4 beacon positions", subset(ProximityScoring.leaveOneGroupOut(statics))),
            (name + ": install-time calibration", "as the install-time row", subset(installed)),
        ]
    }
}

/// What `presence-bench proximity` prints.
struct ProximityReport: Encodable {
    struct SetScores: Encodable {
        var set: String
        var series: Int
        var calibration: String
        var scores: [ProximityScoring.Score]
    }

    var warmUpSeconds: Double
    var boundaryMargin: Double
    var sets: [SetScores]

    func markdownTable() -> String {
        func f(_ x: Double?) -> String { x.map { $0.isFinite ? String(format: "%.3f", $0) : "—" } ?? "—" }
        var lines = ["| set | method | balanced accuracy | immediate | near | far | accuracy | samples |",
                     "|---|---|---|---|---|---|---|---|"]
        for set in sets {
            for s in set.scores {
                lines.append("| \(set.set) | \(s.method) | \(f(s.balancedAccuracy)) | \(f(s.immediateRecall)) | "
                             + "\(f(s.nearRecall)) | \(f(s.farRecall)) | \(f(s.accuracy)) | \(s.scored) |")
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// The estimators tried beside the node while looking for where near is lost. The former steady
/// estimate (a second Kalman filter, q 0.1, hysteresis 0.2, a new class taken once it held
/// 10 s) was the node's reported class before (docs/research/2026-12-07-proximity-class.md);
/// the window candidates still use its settings, as they were measured against it.
enum ProximityCandidates {
    /// The former steady estimate's settings, which the candidates below share.
    static let steady = (filter: RSSIKalmanFilter.Parameters(processNoise: 0.1, measurementNoise: 8, restartAfter: 10),
                         hysteresis: 0.2, settle: 10.0)

    static var all: [(String, ProximityMethod)] {
        var list: [(String, ProximityMethod)] = []
        for decibels in [-2.0, -1, 1, 2] {
            list.append(("node, every reading \(decibels) dB weaker (calibration lean, a diagnostic)",
                         ProximityMethod.nodeReadingWeaker(TrackingParameters.default, decibels: decibels)))
        }
        return list + classMass + windows + distributions + decibelHysteresis + quantiles + ceilings
    }

    /// The class from each class's probability mass under the steady filter (q 0.1, settle 10 s):
    /// its σ alone, then widened by the calibration's residual, with priors on the distance.
    static var classMass: [(String, ProximityMethod)] {
        func mass(_ name: String, residual: Bool, k: Double, margin: Double, settle: Double = steady.settle) -> (String, ProximityMethod) {
            ("class mass: " + name + ", margin \(margin)" + (settle == steady.settle ? "" : ", settle \(settle) s"),
             .classMass(.init(filter: steady.filter, withCalibrationResidual: residual, priorExponent: k, margin: margin, settle: settle)))
        }
        var list = [0.0, 0.2, 0.4].map { mass("filter σ", residual: false, k: 0, margin: $0) }
        list += [0.0, 0.1, 0.2, 0.3].map { mass("filter σ + calibration residual", residual: true, k: 0, margin: $0) }
        list += [0.0, 20].map { mass("filter σ + calibration residual", residual: true, k: 0, margin: 0.2, settle: $0) }
        for (k, prior) in [(1.0, "uniform in distance"), (2, "uniform on a floor, ∝ d"), (3, "uniform in a volume, ∝ d²")] {
            list.append(mass("filter σ + calibration residual, prior " + prior, residual: true, k: k, margin: 0))
        }
        return list
    }

    /// A window's median or trimmed mean of the raw samples instead of the steady filter.
    static var windows: [(String, ProximityMethod)] {
        return [
            ("median 20 s, thresholds only", .window(.init(statistic: .median, window: 20, hysteresis: 0, settle: 0))),
            ("median 20 s, h 0.2, settle 10 s",
             .window(.init(statistic: .median, window: 20, hysteresis: steady.hysteresis, settle: steady.settle))),
            ("trimmed mean 20 s (Android's), h 0.2, settle 10 s",
             .window(.init(statistic: .trimmedMean, window: 20, hysteresis: steady.hysteresis, settle: steady.settle))),
        ]
    }

    /// The class from the window's distribution rather than one filtered value: other means over
    /// 20 s (IQR-fenced, of distance, of linear power), and the share of samples beyond a boundary.
    static var distributions: [(String, ProximityMethod)] {
        var list: [(String, ProximityMethod)] = []
        for (statistic, name) in [(WindowCandidate.Statistic.iqrFencedMean, "IQR-fenced mean"), (.iqrFencedMedian, "IQR-fenced median"),
                                  (.meanDistance, "mean of distance"),
                                  (.meanLinearPower, "mean of linear power")] {
            list.append(("\(name) 20 s, thresholds only", .window(.init(statistic: statistic, window: 20, hysteresis: 0, settle: 0))))
            list.append(("\(name) 20 s, h 0.2, settle 10 s",
                         .window(.init(statistic: statistic, window: 20, hysteresis: steady.hysteresis, settle: steady.settle))))
        }
        for share in [0.3, 0.5, 0.7] {
            list.append(("share beyond a boundary > \(share) of 20 s", .share(.init(window: 20, share: share, hysteresis: 0, settle: 0))))
            list.append(("share beyond a boundary > \(share) of 20 s, ±0.1, settle 10 s",
                         .share(.init(window: 20, share: share, hysteresis: 0.1, settle: steady.settle))))
        }
        return list
    }

    /// The steady estimate with its hysteresis in dB around each boundary's RSSI.
    static var decibelHysteresis: [(String, ProximityMethod)] {
        var list: [(String, ProximityMethod)] = []
        for h in [0.5, 1, 1.5, 2, 3] {
            list.append(("steady filter, hysteresis \(h) dB, settle 10 s",
                         .decibelHysteresis(.init(filter: steady.filter, hysteresis: h, settle: steady.settle))))
        }
        for h in [1.0, 1.5] {
            list.append(("steady filter, hysteresis \(h) dB, settle 5 s",
                         .decibelHysteresis(.init(filter: steady.filter, hysteresis: h, settle: 5))))
        }
        return list
    }
}
