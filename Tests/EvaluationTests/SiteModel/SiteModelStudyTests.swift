import BeaconCore
import Evaluation
import PresenceAggregator
import RoomDecisions
import Testing

/// What a held-out recording's model had to learn each room from (issue 36, fifth round).
@Suite struct SiteModelStudyTests {
    private func recording(_ name: String, _ rows: [(Double, String)]) -> SiteModelEvaluation.Recording {
        SiteModelEvaluation.Recording(name: name, samples: [],
                                      truth: rows.map { TruthSample(time: Instant(seconds: $0.0), beacon: "b", room: $0.1) })
    }

    @Test func eachHeldOutRecordingGetsTheOthersSecondsPerRoom() {
        let walks = [
            recording("a", [(0, "hall"), (10, "bathroom"), (19, "hall"), (30, "hall")]),
            recording("b", [(0, "hall"), (50, "kitchen"), (80, "kitchen")]),
            recording("c", [(0, "bathroom"), (100, "hall"), (101, "hall")]),
        ]
        let seconds = SiteModelEvaluation.trainingSeconds(walks)
        // Held out a: b and c teach the bathroom 100 s; held out c: only a's 9 s of it.
        #expect(seconds["a"] == ["hall": 51, "kitchen": 30, "bathroom": 100])
        #expect(seconds["c"] == ["hall": 71, "bathroom": 9, "kitchen": 30])
        #expect(seconds["b"] == ["hall": 22, "bathroom": 109])
    }

    @Test func theEvidenceRatesChosenAmongStartWithTheDefault() {
        #expect(SiteModelEvaluation.evidenceRateChoices.first == SiteModelParameters.default.evidenceRate)
    }
}
