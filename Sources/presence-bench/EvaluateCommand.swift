import ArgumentParser
import BeaconCore
import Foundation
import PresenceAggregator

/// Scores room decisions on the walking traces against their ground truth.
///
/// Replays each `danis-*.trace.csv` through the agent's tracking and the aggregator's decision
/// (`TraceReplay`), scores it at every row of the matching `.truth.csv` (`RoomDecisionScore`),
/// and does the same for the README's "strongest raw RSSI in the last 1 s" baseline, which
/// validates the scorer against the published reference figures.
struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Scores room decisions on the walking traces; prints one JSON object."
    )

    @Option(help: "Directory holding danis-*.trace.csv and their .truth.csv.")
    var traces: String = "../shared/data/traces"

    @Option(help: "Margin in dB (default: RoomDecisionParameters.default).")
    var margin: Double?

    @Option(help: "Dwell in seconds.")
    var dwell: Double?

    @Option(help: "Evidence to switch in dB·s.")
    var evidence: Double?

    @Option(help: "Lead cap in dB.")
    var leadCap: Double?

    @Option(help: "Settle time in seconds.")
    var settleTime: Double?

    @Option(help: "The agents' publish step floor in dB (default: MeasurementPublishPolicy.Parameters.default).")
    var rssiStep: Double?

    @Option(help: "The agents' publish step σ multiple k.")
    var sigmaMultiple: Double?

    @Option(help: "The agents' step while moving, dB.")
    var movingStep: Double?

    @Option(help: "How long a step publish keeps the moving step, seconds.")
    var movingFor: Double?

    @Option(help: "The agents' heartbeat in seconds.")
    var heartbeat: Double?

    @Flag(help: "Also score a grid of margin × dwell × evidence settings (the README's table).")
    var grid = false

    func run() throws {
        var parameters = RoomDecisionParameters.default
        if let margin { parameters.margin = margin }
        if let dwell { parameters.dwell = dwell }
        if let evidence { parameters.evidenceToSwitch = evidence }
        if let leadCap { parameters.leadCap = leadCap }
        if let settleTime { parameters.settleTime = settleTime }

        var tracking = TrackingParameters.default
        if let rssiStep { tracking.publish.rssiStep = rssiStep }
        if let sigmaMultiple { tracking.publish.sigmaMultiple = sigmaMultiple }
        if let heartbeat { tracking.publish.heartbeat = heartbeat }
        if let movingStep { tracking.publish.movingStep = movingStep }
        if let movingFor { tracking.publish.movingFor = movingFor }

        let sets = try Self.loadTraces(directory: traces)
        var report = Report(
            parameters: .init(parameters), publish: tracking.publish,
            traces: [], pooled: .init(name: "pooled", scores: []), baseline: .init(name: "pooled", scores: []),
            grid: nil
        )
        var mine: [RoomDecisionScore] = [], base: [RoomDecisionScore] = []
        var totalMessages = 0, totalMinutes = 0.0
        for set in sets {
            let (score, messages, minutes) = Self.replay(set, tracking: tracking, parameters: parameters)
            let baseline = Self.scoreBaseline(set)
            mine.append(score)
            base.append(baseline)
            var row = TraceRow(name: set.name, scores: [score], baseline: baseline)
            row.messagesPerBeaconMinute = minutes > 0 ? rounded(Double(messages) / minutes, 2) : nil
            report.traces.append(row)
            totalMessages += messages
            totalMinutes += minutes
        }
        report.messagesPerBeaconMinuteMoving = totalMinutes > 0 ? rounded(Double(totalMessages) / totalMinutes, 2) : nil
        report.pooled = .init(name: "pooled", scores: mine)
        report.baseline = .init(name: "strongest raw RSSI in the last 1 s", scores: base)
        if grid {
            var rows: [GridRow] = []
            for margin in [0.0, 0.25, 0.5, 1, 2] {
                for dwell in [0.0, 1, 1.5, 2, 3] {
                    for evidence in [0.5, 1.5, 3] {
                        var p = parameters
                        p.margin = margin
                        p.dwell = dwell
                        p.evidenceToSwitch = evidence
                        let summary = Summary(name: "grid", scores: sets.map { Self.replay($0, tracking: tracking, parameters: p).score })
                        rows.append(GridRow(margin: margin, dwell: dwell, evidenceToSwitch: evidence, summary: summary))
                    }
                }
            }
            report.grid = rows
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(report)
        print(String(decoding: data, as: UTF8.self))
    }

    struct TraceSet {
        var name: String
        var samples: [TraceSample]
        var truth: [TruthSample]
    }

    static func loadTraces(directory: String) throws -> [TraceSet] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasPrefix("danis-") && $0.hasSuffix(".trace.csv") }
            .sorted()
        guard !names.isEmpty else { throw ValidationError("no danis-*.trace.csv in \(directory)") }
        return try names.map { name in
            let base = String(name.dropLast(".trace.csv".count))
            let trace = directory + "/" + name
            let truth = directory + "/" + base + ".truth.csv"
            do {
                return TraceSet(name: base, samples: try TraceFile.samples(path: trace), truth: try TraceFile.truth(path: truth))
            } catch let error as TraceError {
                throw ValidationError("\(base): \(error)")
            }
        }
    }

    /// Replays the trace: its score, and the measurements the nodes published over how many
    /// beacon-node-minutes (each (beacon, node) pair counted from the trace's first sample to its last).
    static func replay(_ set: TraceSet, tracking: TrackingParameters, parameters: RoomDecisionParameters)
        -> (score: RoomDecisionScore, messages: Int, beaconNodeMinutes: Double)
    {
        var replay = TraceReplay(tracking: tracking, decision: parameters)
        var rows: [(time: Instant, decision: RoomDecision)] = []
        for sample in set.samples {
            for timed in replay.step(sample).decisions { rows.append((timed.time, timed.decision)) }
        }
        let score = perBeacon(set) { beacon in
            rows.filter { $0.decision.beacon == beacon }.map { ($0.time, $0.decision.room) }
        }
        var pairs = Set<String>()
        for sample in set.samples { pairs.insert(sample.beacon.rawValue + "\u{0}" + sample.node) }
        let duration = (set.samples.last?.time).map { $0.since(set.samples[0].time) } ?? 0
        return (score, replay.published, Double(pairs.count) * duration / 60)
    }

    static func scoreBaseline(_ set: TraceSet) -> RoomDecisionScore {
        perBeacon(set) { beacon in
            StrongestRecentRSSIBaseline.decisions(of: set.samples.filter { $0.beacon == beacon })
        }
    }

    static func perBeacon(_ set: TraceSet, decisions: (BeaconID) -> [(time: Instant, room: String)]) -> RoomDecisionScore {
        let beacons = Set(set.truth.map(\.beacon)).sorted()
        return RoomDecisionScore.pooled(beacons.map { beacon in
            RoomDecisionScore(decisions: decisions(beacon), truth: set.truth.filter { $0.beacon == beacon })
        })
    }

    struct Report: Encodable {
        var parameters: Parameters
        /// The agents' publish policy used in the replay.
        var publish: MeasurementPublishPolicy.Parameters
        var traces: [TraceRow]
        var pooled: Summary
        var baseline: Summary
        /// Measurements published per beacon per node per minute over all traces (people walking),
        /// heard and `unknown` alike: the broker load while moving (issue 6).
        var messagesPerBeaconMinuteMoving: Double?
        var grid: [GridRow]?
    }

    struct Parameters: Encodable {
        var margin, dwell, evidenceToSwitch, leadCap, settleTime, staleAfter, awayTimeout, pathLossExponent: Double
        init(_ p: RoomDecisionParameters) {
            margin = p.margin; dwell = p.dwell; evidenceToSwitch = p.evidenceToSwitch; leadCap = p.leadCap
            settleTime = p.settleTime
            staleAfter = p.staleAfter; awayTimeout = p.awayTimeout; pathLossExponent = p.pathLossExponent
        }
    }

    struct TraceRow: Encodable {
        var name: String
        var accuracy: Double
        var flaps: Int
        var medianSwitchLatency: Double?
        var switchLatencies: [Double]
        var messagesPerBeaconMinute: Double?
        var baseline: Summary
        init(name: String, scores: [RoomDecisionScore], baseline: RoomDecisionScore) {
            let score = RoomDecisionScore.pooled(scores)
            self.name = name
            accuracy = rounded(score.accuracy, 4)
            flaps = score.flaps
            medianSwitchLatency = score.medianSwitchLatency.map { rounded($0, 3) }
            switchLatencies = score.switchLatencies.map { rounded($0, 3) }
            self.baseline = Summary(name: "baseline", scores: [baseline])
        }
    }

    /// Pooled figures over several traces: `meanAccuracy` is the mean of per-trace accuracies,
    /// `pooledAccuracy` the share of all truth rows; flaps add up; the latency median is over
    /// every true change of every trace.
    struct Summary: Encodable {
        var name: String
        var meanAccuracy: Double
        var pooledAccuracy: Double
        var flaps: Int
        var medianSwitchLatency: Double?
        var trueChanges: Int
        init(name: String, scores: [RoomDecisionScore]) {
            self.name = name
            meanAccuracy = scores.isEmpty ? 0 : rounded(scores.map(\.accuracy).reduce(0, +) / Double(scores.count), 4)
            let pooled = RoomDecisionScore.pooled(scores)
            pooledAccuracy = rounded(pooled.accuracy, 4)
            flaps = scores.map(\.flaps).reduce(0, +)
            medianSwitchLatency = pooled.medianSwitchLatency.map { rounded($0, 3) }
            trueChanges = pooled.trueChanges
        }
    }

    struct GridRow: Encodable {
        var margin, dwell, evidenceToSwitch: Double
        var summary: Summary
    }
}

private func rounded(_ value: Double, _ places: Int) -> Double {
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    return (value * scale).rounded() / scale
}
