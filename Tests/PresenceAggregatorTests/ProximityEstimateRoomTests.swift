import BeaconCore
import Foundation
import PresenceAggregator
import RoomDecisions
import Testing
import TestSupport

/// Issue 39: the reported proximity class has its own, steadier estimate, and the room decision
/// is untouched. Every recording of every site is replayed twice — with the class read from the
/// room filter, as before, and with the defaults — and the nodes must publish the same
/// measurements at the same times and the aggregator make the same decisions; only the
/// `proximity` they carry may differ.
@Suite struct ProximityEstimateRoomTests {
    @Test func theClassesOwnEstimateChangesNoPublishAndNoRoomDecision() throws {
        var before = TrackingParameters.default
        before.proximityEstimate = .init(filter: before.filter, hysteresis: before.proximity.hysteresis, warmUp: 0, settle: 0)
        var proximityChanged = 0
        for site in DecisionBaselineTests.sites {
            let directory = try RecordedData.path(site)
            let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            for recording in try SiteModelEvaluation.loadRecordings(directory: directory, names: names) {
                let old = SiteModelEvaluation.published(recording, tracking: before)
                let new = SiteModelEvaluation.published(recording)
                #expect(old.count == new.count, "\(site) \(recording.name): published count")
                for (a, b) in zip(old, new) {
                    var b = b
                    if a.evidence.proximity != b.evidence.proximity { proximityChanged += 1 }
                    b.evidence.proximity = a.evidence.proximity
                    #expect(a.time == b.time && a.evidence == b.evidence, "\(site) \(recording.name) at \(a.time)")
                }
                let oldDecisions = TraceReplay.decisions(of: recording.samples, tracking: before)
                let newDecisions = TraceReplay.decisions(of: recording.samples)
                #expect(oldDecisions.count == newDecisions.count, "\(site) \(recording.name): decision count")
                for (a, b) in zip(oldDecisions, newDecisions) {
                    var d = b.decision
                    d.proximity = a.decision.proximity
                    #expect(a.time == b.time && a.decision == d, "\(site) \(recording.name) at \(a.time)")
                }
            }
        }
        // The test means something: the reported classes do differ somewhere.
        #expect(proximityChanged > 0)
    }
}
