import BeaconCore
import Evaluation
import RoomDecisions
import Testing

@Suite("A site's figures")
struct SiteScoreTests {
    @Test("mean of per-recording accuracy, flaps summed, median of per-recording median latencies")
    func siteFigures() {
        let a = RoomDecisionScore(truthRows: 10, correctRows: 9, decidedChanges: 3, trueChanges: 2, switchLatencies: [1, 3])
        let b = RoomDecisionScore(truthRows: 30, correctRows: 15, decidedChanges: 1, trueChanges: 1, switchLatencies: [5])
        let c = RoomDecisionScore(truthRows: 5, correctRows: 5, decidedChanges: 0, trueChanges: 0, switchLatencies: [])
        let d = RoomDecisionScore(truthRows: 10, correctRows: 8, decidedChanges: 4, trueChanges: 3, switchLatencies: [0.5, 0.5, 0.5])
        let site = SiteScore([a, b, c, d])
        // Each recording counts once: (0.9 + 0.5 + 1 + 0.8) / 4, not 37 of 55 rows.
        #expect(abs(site.meanAccuracy - 0.8) < 1e-12)
        #expect(abs(site.pooled.accuracy - 37.0 / 55) < 1e-12)
        #expect(site.flaps == 1 + 0 + 0 + 1)
        // Medians 2, 5 and 0.5 (c has no change): their median is 2; pooled, d's three quick
        // changes weigh three times (0.5, 0.5, 0.5, 1, 3, 5: 0.75).
        #expect(site.medianSwitchLatency == 2)
        #expect(site.pooled.medianSwitchLatency == 0.75)
        #expect(SiteScore([c]).medianSwitchLatency == nil)
        #expect(SiteScore([]).meanAccuracy == 0)
    }
}
