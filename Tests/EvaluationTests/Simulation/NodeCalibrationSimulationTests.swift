import BeaconCore
import Evaluation
import Foundation
import RoomDecisions
import TestSupport
import Testing

/// The bad input `presence-bench calibrate-nodes --scenario` injects into the hall's draws.
@Suite struct NodeCalibrationSimulationTests {
    let simulation: NodeCalibrationSimulation

    init() throws {
        simulation = NodeCalibrationSimulation(
            positions: try NodeCalibrationSimulation.receivers(danisText: try RecordedData.text("traces/danis-receivers.txt")),
            pathLoss: try NodeCalibrationSimulation.PathLoss.fit(distancesCSV: try RecordedData.text("static-rssi/DISTANCES.csv")))
    }

    @Test("a path blocked one way: that direction alone is weaker, the rest of the draw is the clean one, and the solve names the path")
    func blockedOneWay() throws {
        let clean = simulation.draw(seed: 3)
        let bad = simulation.draw(seed: 3, badInput: .blockedOneWay)
        #expect(clean.culprit == nil && clean.expectedSubjects.isEmpty)
        #expect(bad.offsets == clean.offsets && bad.powers == clean.powers && bad.statedPowers == bad.powers)
        let path = try #require(bad.expectedSubjects.first)
        let changed = bad.levels.keys.filter { bad.levels[$0] != clean.levels[$0] }
        #expect(changed.map(\.description) == [path])
        let drop = clean.levels[changed[0]]!.level - bad.levels[changed[0]]!.level
        #expect(abs(drop - NodeCalibrationSimulation.blockedLoss) < 1.5)
        let solved = NodeCalibrationSolver.solve(levels: bad.levels, nodes: Set(simulation.positions.keys), statedPower: bad.statedPowers,
                                                 at: Instant(seconds: 600))
        #expect(solved.rejections.map(\.subject) == [path])
        #expect(solved.rejections.first?.kind == .blockedPath)
    }

    @Test("a node that moves halfway is named moved and its offset not applied; one that misstates its power states it 6 dB high")
    func movedAndMisstated() throws {
        let moved = simulation.draw(seed: 4, badInput: .moved)
        let culprit = try #require(moved.culprit)
        let solved = NodeCalibrationSolver.solve(levels: moved.levels, nodes: Set(simulation.positions.keys), statedPower: moved.statedPowers,
                                                 at: Instant(seconds: 600))
        #expect(solved.rejections.map(\.kind) == [.moved])
        #expect(solved.rejections.first?.subject == culprit)
        #expect(solved.applicableOffsets[culprit] == nil)
        let misstated = simulation.draw(seed: 4, badInput: .wrongPower)
        let liar = try #require(misstated.culprit)
        #expect(misstated.statedPowers[liar]! - misstated.powers[liar]! == NodeCalibrationSimulation.misstatedPower)
    }

    @Test("another site's beacons: one no node names, heard by three nodes, and a twin of the culprit's id heard by the same three")
    func otherSite() throws {
        let draw = simulation.draw(seed: 5, badInput: .otherSite)
        let culprit = try #require(draw.culprit)
        let stranger = NodeBeacon(node: "next-door").id.rawValue
        #expect(draw.expectedSubjects == [stranger, culprit])
        #expect(draw.levels.keys.filter { $0.transmitter == stranger }.count == 3)
        #expect(draw.levels.keys.filter { $0.transmitter == culprit }.allSatisfy { draw.levels[$0]!.samples >= 590 })
        let solved = NodeCalibrationSolver.solve(levels: draw.levels, nodes: Set(simulation.positions.keys), statedPower: draw.statedPowers,
                                                 at: Instant(seconds: 600))
        #expect(solved.rejections.contains { $0.kind == .outsider && $0.subject == stranger })
    }
}
