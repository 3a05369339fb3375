import BeaconCore
import Evaluation

/// An upper quantile of the window (fades only lower RSSI, so the top of the window tracks the
/// distance), and the ceilings that bound what any estimator reaches under the shared calibration.
extension ProximityCandidates {
    /// An upper quantile of the last 20 s in dB (fades only lower RSSI), alone and with the node's hold.
    static var quantiles: [(String, ProximityMethod)] {
        var list: [(String, ProximityMethod)] = []
        for p in [0.75, 0.9] {
            let percent = Int((p * 100).rounded())
            list.append(("\(percent)th percentile 20 s, thresholds only", .window(.init(statistic: .quantile(p), window: 20, hysteresis: 0, settle: 0))))
            list.append(("\(percent)th percentile 20 s, h 0.2, settle 10 s",
                         .window(.init(statistic: .quantile(p), window: 20, hysteresis: steady.hysteresis, settle: steady.settle))))
        }
        return list
    }

    /// Classes that read the true distance: not candidates, bounds.
    static var ceilings: [(String, ProximityMethod)] {
        [("ceiling: the series' long-run mean RSSI at its true distance", .oracle(.longRunMean)),
         ("ceiling: any value within the last 20 s's range", .oracle(.windowRange(window: 20)))]
    }

    /// Whether `method` is an estimator the per-series oracle may pick: not a ceiling, and not the
    /// diagnostic that shifts the calibration.
    static func isEstimator(_ method: ProximityMethod) -> Bool {
        switch method {
        case .oracle, .nodeReadingWeaker: return false
        default: return true
        }
    }

    /// Whether `method` reads the window without leaning (its estimate converges to the long-run
    /// mean or median): no prior, no share or quantile away from the middle, no mean of distance or power.
    static func isUnleaned(_ method: ProximityMethod) -> Bool {
        switch method {
        case .node, .runningMean, .iqrFencedMean, .sample, .decibelHysteresis: return true
        case .classMass(let candidate): return candidate.priorExponent == 0
        case .share(let candidate): return candidate.share == 0.5
        case .window(let candidate):
            switch candidate.statistic {
            case .median, .trimmedMean, .iqrFencedMean, .iqrFencedMedian: return true
            case .meanDistance, .meanLinearPower, .quantile: return false
            }
        case .oracle, .nodeReadingWeaker: return false
        }
    }
}

extension ProximityCommand {
    /// One row per static series of the leave-one-position-out sets: where the gap is, receiver by
    /// receiver and position by position.
    static func seriesTable(sets: [(name: String, calibration: String, series: [ProximitySeries])],
                            methods: [(String, ProximityMethod)]) -> String {
        let shown = Array(methods.prefix(3)) + Array(ProximityCandidates.ceilings.prefix(1))
        func f(_ x: Double?, _ digits: Int = 2) -> String { x.map { $0.isFinite ? String(format: "%.\(digits)f", $0) : "—" } ?? "—" }
        var lines: [String] = []
        for set in sets where set.name.contains("leave one position out") {
            lines.append("### \(set.name)")
            lines.append("| receiver | beacon position | true m | long-run mean reads m | P1 + offset | "
                         + shown.map { $0.0 }.joined(separator: " | ") + " |")
            lines.append("|" + String(repeating: "---|", count: 5 + shown.count))
            let rows = ProximityScoring.seriesRows(set.series, methods: shown.map { $0.1 })
            for r in rows.sorted(by: { ($0.receiver, $0.group) < ($1.receiver, $1.group) }) {
                lines.append("| \(r.receiver) | \(r.group) | \(f(r.trueDistance)) | \(f(r.longRunDistance)) | \(f(r.measuredPower, 1)) | "
                             + r.rightShares.map { f($0, 3) }.joined(separator: " | ") + " |")
            }
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }
}
