import ArgumentParser
import BeaconCore
import Foundation
import PresenceAggregator

/// `presence-bench evaluate-learned`: the learned site model's leave-one-recording-out scores on
/// every shared site, as one JSON object — until `evaluate` reports it as its `learned` mode
/// (`EvaluateCommand.learnedScores`), the same figures on their own.
struct EvaluateLearnedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate-learned",
        abstract: "Scores the learned site model leave-one-recording-out on every shared site; prints one JSON object."
    )

    @Option(help: "The shared data directory (holding traces/ and traces-sal/).")
    var data: String = "../shared/data"

    struct Row: Encodable {
        var name: String
        var accuracy: Double
        var flaps: Int
        var medianSwitchLatency: Double?
    }

    struct SiteReport: Encodable {
        var directory: String
        var recordings: [Row]
        /// Mean of per-recording accuracy, flaps summed, median of per-recording median latencies.
        var meanAccuracy: Double
        var flaps: Int
        var medianSwitchLatency: Double?
    }

    struct Report: Encodable {
        var mode: String
        var parameters: [String: Double]
        var sites: [String: SiteReport]
    }

    func run() throws {
        let p = SiteModelParameters.default
        var report = Report(mode: EvaluateCommand.learnedModeName, parameters: [
            "sampleInterval": p.sampleInterval, "evidenceRate": p.evidenceRate, "switchRate": p.switchRate,
            "outlierShare": p.outlierShare, "outlierRange": p.outlierRange, "minimumSigma": p.minimumSigma,
            "priorSnapshots": p.priorSnapshots, "switchOdds": p.switchOdds, "staleAfter": p.staleAfter,
        ], sites: [:])
        for (site, directory) in [("danis", data + "/traces"), ("sal", data + "/traces-sal")] {
            let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            let recordings = try SiteModelEvaluation.loadRecordings(directory: directory, names: names)
            let scores = EvaluateCommand.learnedScores(recordings.map { ($0.name, $0.samples, $0.truth) },
                                                       tracking: .default, decision: .default)
            let summary = SiteModelEvaluation.Summary(recordings: scores.map { .init(name: $0.name, score: $0.score) })
            report.sites[site] = SiteReport(
                directory: directory,
                recordings: scores.map { Row(name: $0.name, accuracy: Self.rounded($0.score.accuracy),
                                             flaps: $0.score.flaps, medianSwitchLatency: $0.score.medianSwitchLatency.map { Self.rounded($0) }) },
                meanAccuracy: Self.rounded(summary.meanAccuracy), flaps: summary.flaps,
                medianSwitchLatency: summary.medianSwitchLatency.map { Self.rounded($0) })
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(report), as: UTF8.self))
    }

    static func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
}
