import BeaconCore
import Evaluation
import Foundation
import PresenceAggregator
import RoomDecisions
import TestSupport
import Testing

/// The simulated motion sensors the bench's motion figures rest on (`SimulatedMotion`).
@Suite struct SimulatedMotionTests {
    @Test func theSimulatedSensorsAreSeededAndNearTheIssuesFigures() throws {
        var recordings: [SiteModelEvaluation.Recording] = []
        for site in ["traces", "traces-sal", "traces-flat"] {
            let directory = try RecordedData.path(site)
            recordings += try SiteModelEvaluation.loadRecordings(directory: directory, names: try FileManager.default.contentsOfDirectory(atPath: directory))
        }
        var figures = SimulatedMotion.Figures()
        for recording in recordings {
            let rooms = TraceFile.rooms(of: recording.samples)
            let once = SimulatedMotion().motion(truth: recording.truth, rooms: rooms, name: recording.name)
            #expect(once == SimulatedMotion().motion(truth: recording.truth, rooms: rooms, name: recording.name))
            #expect(zip(once, once.dropFirst()).allSatisfy { $0.time <= $1.time })
            figures.add(SimulatedMotion.figures(truth: recording.truth, motion: once))
        }
        // The issue's house: 0.58, 0.79 and 0.23; the simulation, one set for every site, lands near them over the three.
        #expect(abs(figures.share(figures.trueWithin10) - 0.58) < 0.1)
        #expect(abs(figures.share(figures.trueWithin30) - 0.79) < 0.1)
        #expect(abs(figures.share(figures.otherWithin10) - 0.23) < 0.1)
    }
}
