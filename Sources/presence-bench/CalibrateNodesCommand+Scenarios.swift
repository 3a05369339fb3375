import ArgumentParser
import BeaconCore
import Evaluation
import Foundation
import RoomDecisions

extension NodeCalibrationSimulation.BadInput: ExpressibleByArgument {}

/// `calibrate-nodes --scenario`: bad input injected into the seeded draws (issue 55, item 5), and
/// per scenario what the solve made of it: whether it named the culprit (and nothing else), the
/// RMS error of the other nodes' offsets, and whether it applied an offset to the culprit anyway.
extension CalibrateNodesCommand {
    struct ScenarioSeed: Encodable {
        var seed: Int
        var culprit: String?
        var expected: [String]
        /// Every rejection, `subject: reason`.
        var named: [String]
        /// RMS error of the offsets of the nodes the bad input is not about, dB.
        var rmsErrorOfOthers: Double?
        /// The culprit's offset applied (confident), and its error against the injected one, dB.
        var culpritApplied: Bool
        var culpritAppliedError: Double?
    }

    struct ScenarioFigures: Encodable {
        var basis: String
        /// Each expected subject's kind (`outsider`, `culprit`, `path`): the seeds that named it.
        var namedBySubject: [String: Int]
        /// Subjects named on all seeds that the bad input is not about (false alarms).
        var othersNamed: Int
        var culpritApplied: Int
        var meanRMSErrorOfOthers: Double?
        var seeds: [ScenarioSeed]
    }

    struct ScenarioReport: Encodable {
        var receivers: Int
        var minutes: Double
        var seedsRun: Int
        var scenarios: [String: [ScenarioFigures]]
    }

    func runScenarios() throws {
        let positions = try NodeCalibrationSimulation.receivers(danisText: try CalibrateCommand.read(data + "/traces/danis-receivers.txt"))
        let pathLoss = try NodeCalibrationSimulation.PathLoss.fit(distancesCSV: try CalibrateCommand.read(data + "/static-rssi/DISTANCES.csv"))
        let simulation = NodeCalibrationSimulation(positions: positions, pathLoss: pathLoss, asymmetry: asymmetry, rate: rate,
                                                   duration: minutes * 60, wholeDecibelOffsets: wholeDecibels)
        let nodes = Set(positions.keys)
        let end = Instant(seconds: minutes * 60)
        var report = ScenarioReport(receivers: positions.count, minutes: minutes, seedsRun: max(1, seeds), scenarios: [:])
        for badInput in scenario {
            var bases: [(String, [ScenarioSeed])] = [("statedPower", []), ("statedPowerCheckedByPositions", [])]
            for seed in 1...max(1, seeds) {
                let draw = simulation.draw(seed: UInt64(seed), badInput: badInput)
                let solves = [
                    NodeCalibrationSolver.solve(levels: draw.levels, nodes: nodes, statedPower: draw.statedPowers, at: end),
                    NodeCalibrationSolver.solve(levels: draw.levels, nodes: nodes, statedPower: draw.statedPowers, positions: positions, at: end),
                ]
                for (k, solved) in solves.enumerated() {
                    // A blocked path is about a path: both its nodes' offsets are expected back.
                    let about = badInput == .blockedOneWay ? nil : draw.culprit
                    let others = draw.offsets.filter { $0.key != about }
                    let culpritEntry = about.flatMap { solved.nodes[$0] }
                    var culpritError: Double?
                    if let about, let entry = culpritEntry, entry.confident {
                        // Against the injected offsets of all nodes, centred on the solved nodes' mean.
                        let solvedNodes = draw.offsets.keys.filter { solved.nodes[$0] != nil }
                        let injectedMean = solvedNodes.map { draw.offsets[$0]! }.reduce(0, +) / Double(solvedNodes.count)
                        let solvedMean = solvedNodes.map { solved.nodes[$0]!.offset }.reduce(0, +) / Double(solvedNodes.count)
                        culpritError = rounded((entry.offset - solvedMean) - (draw.offsets[about]! - injectedMean), 2)
                    }
                    bases[k].1.append(ScenarioSeed(
                        seed: seed, culprit: draw.culprit, expected: draw.expectedSubjects,
                        named: solved.rejections.map { "\($0.kind.rawValue) \($0.description)" },
                        rmsErrorOfOthers: NodeCalibrationSimulation.offsetError(solved, injected: others).map { rounded($0, 3) },
                        culpritApplied: culpritEntry?.confident ?? false, culpritAppliedError: culpritError))
                }
            }
            report.scenarios[badInput.rawValue] = bases.map { name, seeds in
                let errors = seeds.compactMap(\.rmsErrorOfOthers)
                return ScenarioFigures(
                    basis: name,
                    namedBySubject: seeds.reduce(into: [:]) { counts, seed in
                        for subject in seed.expected {
                            let role = subject == seed.culprit ? "culprit" : subject.contains("→") ? "path" : "outsider"
                            counts[role, default: 0] += seed.named.contains { $0.contains(" \(subject): ") } ? 1 : 0
                        }
                    },
                    othersNamed: seeds.reduce(0) { count, seed in
                        count + seed.named.filter { named in !seed.expected.contains { named.contains(" \($0): ") } }.count
                    },
                    culpritApplied: seeds.filter(\.culpritApplied).count,
                    meanRMSErrorOfOthers: errors.isEmpty ? nil : rounded(errors.reduce(0, +) / Double(errors.count), 3),
                    seeds: seeds)
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(report), as: UTF8.self))
    }
}
