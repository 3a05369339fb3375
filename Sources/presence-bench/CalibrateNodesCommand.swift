import ArgumentParser
import BeaconCore
import Evaluation
import Foundation
import PresenceAggregator
import RoomDecisions

/// The node calibration in simulation on the Daniş hall (issue 55): per seed, receiver offsets
/// and transmit powers are drawn, the nodes' node-beacon adverts simulated from the hall's own path
/// loss and noise (`NodeCalibrationSimulation`) for `--minutes`, and the offsets solved on each
/// basis (`NodeCalibrationBasis`). Then the recorded walks are replayed three ways and scored as the
/// yardstick scores them: as recorded, with the offsets added to each receiver's readings, and so
/// shifted with the solved (confident) offsets taken off at the aggregator's input. One JSON object.
struct CalibrateNodesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate-nodes",
        abstract: "Simulates the nodes calibrating each other on the Daniş hall and scores the walks with and without it; prints JSON."
    )

    @Option(help: "The shared data directory: traces/ (the walks, danis-receivers.txt) and static-rssi/ (the path-loss fit).")
    var data: String = "data"

    @Option(help: "Seeded draws of offsets, powers and adverts.")
    var seeds: Int = 5

    @Option(help: "Minutes of node-beacon adverts.")
    var minutes: Double = 10

    @Option(help: "Node-beacon adverts per second.")
    var rate: Double = 1

    @Option(help: "The part of a path not the same both ways, dB (standard deviation; assumed).")
    var asymmetry: Double = 1

    @Flag(help: "Draw whole-dB offsets, so that the shifted walks' readings need no rounding and the perfect correction gives back the recorded walks exactly: isolates the solve's error from the rounding's.")
    var wholeDecibels = false

    @Option(help: ArgumentHelp("Write every replay's decisions as DIR/seed-N/VARIANT/NAME.decisions.csv (recorded under DIR/recorded), for the yardstick's score.py.", valueName: "dir"))
    var decisions: String?

    @Flag(help: "Only the offsets; do not replay the walks.")
    var offsetsOnly = false

    @Option(help: ArgumentHelp("Bad input to inject instead (repeatable): \(NodeCalibrationSimulation.BadInput.allCases.map(\.rawValue).joined(separator: ", ")). Prints, per scenario, the RMS error of the other nodes' offsets and what the solve named; no walks.", valueName: "scenario"))
    var scenario: [NodeCalibrationSimulation.BadInput] = []

    struct BasisFigures: Encodable {
        var rmsError: Double?
        var confident: Int
        var maximumStandardError: Double?
        var rejections: [String]
    }

    struct SeedReport: Encodable {
        var seed: Int
        var injectedOffsets: [String: Double]
        var injectedPowers: [String: Double]
        var bases: [String: BasisFigures]
        var shifted: EvaluateCommand.Summary?
        /// The solved (confident) offsets pushed to the agents as their `rssiOffset`.
        var calibrated: EvaluateCommand.Summary?
        /// The solved offsets taken off at the aggregator's input instead (a node that cannot be told).
        var calibratedAtAggregator: EvaluateCommand.Summary?
        /// The injected offsets themselves pushed to the agents: what a perfect solve would give.
        var calibratedWithInjected: EvaluateCommand.Summary?
    }

    struct Report: Encodable {
        var pathLoss: NodeCalibrationSimulation.PathLoss
        var receivers: Int
        var minutes: Double
        var advertsPerSecond: Double
        var asymmetry: Double
        var recorded: EvaluateCommand.Summary?
        var seeds: [SeedReport]
        var meanRMSError: [String: Double]
    }

    func run() throws {
        guard scenario.isEmpty else { return try runScenarios() }
        let positions = try NodeCalibrationSimulation.receivers(danisText: try CalibrateCommand.read(data + "/traces/danis-receivers.txt"))
        let pathLoss = try NodeCalibrationSimulation.PathLoss.fit(distancesCSV: try CalibrateCommand.read(data + "/static-rssi/DISTANCES.csv"))
        let simulation = NodeCalibrationSimulation(positions: positions, pathLoss: pathLoss, asymmetry: asymmetry, rate: rate,
                                                   duration: minutes * 60, wholeDecibelOffsets: wholeDecibels)
        let walks = offsetsOnly ? [] : try EvaluateCommand.loadTraces(directory: data + "/traces")
        func score(_ sets: [EvaluateCommand.TraceSet], atAggregator: [String: Double] = [:], atAgents: [String: Double] = [:],
                   variant: String) throws -> EvaluateCommand.Summary {
            try EvaluateCommand.Summary(sets.map { set in
                let replayed = EvaluateCommand.replay(set, tracking: .default, parameters: .default, nodeOffsets: atAggregator, agentOffsets: atAgents)
                if let decisions {
                    let folder = decisions + "/" + variant
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                    let rows = [ReplayCSV.decisionHeader] + replayed.decisions.map { ReplayCSV.decisionRow($0.decision, at: $0.time) }
                    try (rows.joined(separator: "\n") + "\n").write(toFile: folder + "/" + set.name + ".decisions.csv", atomically: true, encoding: .utf8)
                }
                return replayed.score
            })
        }
        var report = Report(pathLoss: pathLoss, receivers: positions.count, minutes: minutes, advertsPerSecond: rate,
                            asymmetry: asymmetry, recorded: offsetsOnly ? nil : try score(walks, variant: "recorded"), seeds: [], meanRMSError: [:])
        let nodes = Set(positions.keys)
        let end = Instant(seconds: minutes * 60)
        for seed in 1...max(1, seeds) {
            let draw = simulation.draw(seed: UInt64(seed))
            let solves: [(String, NodeCalibration)] = [
                ("statedPower", NodeCalibrationSolver.solve(levels: draw.levels, nodes: nodes, statedPower: draw.powers, at: end)),
                ("statedPowerCheckedByPositions", NodeCalibrationSolver.solve(levels: draw.levels, nodes: nodes, statedPower: draw.powers,
                                                                              positions: positions, at: end)),
                ("positions", NodeCalibrationSolver.solve(levels: draw.levels, nodes: nodes, positions: positions, at: end)),
                ("equalPower", NodeCalibrationSolver.solve(levels: draw.levels, nodes: nodes, at: end)),
            ]
            var bases: [String: BasisFigures] = [:]
            for (name, solved) in solves {
                bases[name] = BasisFigures(
                    rmsError: NodeCalibrationSimulation.offsetError(solved, injected: draw.offsets).map { rounded($0, 3) },
                    confident: solved.applicableOffsets.count,
                    maximumStandardError: solved.nodes.values.map(\.standardError).max().map { rounded($0, 3) },
                    rejections: solved.rejections.map(\.description))
            }
            var seedReport = SeedReport(seed: seed, injectedOffsets: draw.offsets.mapValues { rounded($0, 2) },
                                        injectedPowers: draw.powers.mapValues { rounded($0, 2) }, bases: bases)
            if !offsetsOnly {
                let shiftedWalks = walks.map { walk in
                    var shifted = walk
                    shifted.samples = NodeCalibrationSimulation.shifted(walk.samples, by: draw.offsets)
                    return shifted
                }
                let folder = "seed-\(seed)/"
                seedReport.shifted = try score(shiftedWalks, variant: folder + "shifted")
                seedReport.calibrated = try score(shiftedWalks, atAgents: solves[0].1.applicableOffsets, variant: folder + "calibrated")
                seedReport.calibratedAtAggregator = try score(shiftedWalks, atAggregator: solves[0].1.applicableOffsets,
                                                              variant: folder + "calibratedAtAggregator")
                seedReport.calibratedWithInjected = try score(shiftedWalks, atAgents: draw.offsets, variant: folder + "calibratedWithInjected")
            }
            report.seeds.append(seedReport)
        }
        for name in report.seeds.first?.bases.keys.sorted() ?? [] {
            let errors = report.seeds.compactMap { $0.bases[name]?.rmsError }
            if !errors.isEmpty { report.meanRMSError[name] = rounded(errors.reduce(0, +) / Double(errors.count), 3) }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(report), as: UTF8.self))
    }
}
