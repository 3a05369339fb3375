import BeaconCore
import Evaluation
import RoomDecisions
import Foundation
import PresenceAggregator
import TestSupport
import Testing

private func truth(_ rows: [(Double, String)]) -> [TruthSample] {
    rows.map { TruthSample(time: Instant(seconds: $0.0), beacon: "b", room: $0.1) }
}

@Suite("Room decision scoring")
struct RoomDecisionScoreTests {
    @Test("accuracy, flaps and switch latency on a constructed timeline")
    func constructed() {
        // Truth: a until 3, b from 3 (one true change).
        let rows = truth([(0, "a"), (1, "a"), (2, "a"), (3, "b"), (4, "b"), (5, "b"), (6, "b"), (7, "b")])
        // Decisions: a, then b at 4.5, a flap back to a at 5.5, b again at 6.5.
        let decisions: [(time: Instant, room: String)] = [
            (Instant(seconds: 0), "a"), (Instant(seconds: 4.5), "b"), (Instant(seconds: 5.5), "a"), (Instant(seconds: 6.5), "b"),
        ]
        let score = RoomDecisionScore(decisions: decisions, truth: rows)
        #expect(score.correctRows == 5) // rows 0,1,2 (a), 5 (b), 7 (b); wrong at 3, 4, 6
        #expect(score.accuracy == 5.0 / 8)
        #expect(score.decidedChanges == 3)
        #expect(score.trueChanges == 1)
        #expect(score.flaps == 2)
        #expect(score.switchLatencies == [1.5]) // the decision row for b at 4.5
        #expect(score.medianSwitchLatency == 1.5)
    }

    /// The yardstick counts every change of the decision timeline: inside a gap of the truth and
    /// between two truth rows too, which sampling the decision at truth rows never sees.
    @Test("decision changes in a gap of the truth and between two truth rows are flaps, as the yardstick counts them")
    func yardstickFigures() {
        // Truth: a, a gap from 2 to 10, b, back to a, a one-row visit to c, a again.
        let rows = truth([(0, "a"), (1, "a"), (2, "a"), (10, "b"), (11, "b"), (12, "b"), (13, "a"), (14, "a"), (15, "a"),
                          (16, "c"), (17, "a"), (18, "a")])
        // Decisions: a, c and back inside the gap, b, a quick a-and-back between the rows at 11 and 12,
        // a a second late; c never shown.
        let decisions: [(time: Instant, room: String)] = [
            (Instant(seconds: 0), "a"), (Instant(seconds: 4), "c"), (Instant(seconds: 6), "a"), (Instant(seconds: 10.5), "b"),
            (Instant(seconds: 11.2), "a"), (Instant(seconds: 11.6), "b"), (Instant(seconds: 14), "a"),
        ]
        let score = RoomDecisionScore(decisions: decisions, truth: rows)
        // The yardstick's score.py on these two files, computed once (2026-12-07):
        // {"accuracy": 0.75, "truthRows": 12, "transitions": 4, "latencyMedian": 0.5, "latencyP90": 0.5,
        //  "missed": 1, "decisionChanges": 6, "flaps": 3}
        #expect(score.accuracy == 0.75)
        #expect(score.truthRows == 12)
        #expect(score.trueChanges == 4)
        #expect(score.medianSwitchLatency == 0.5)
        #expect(score.p90SwitchLatency == 0.5)
        #expect(score.missedChanges == 1)
        #expect(score.decidedChanges == 6)
        #expect(score.flaps == 3)
        // A second recording: the site's figures as the yardstick's evaluate.py pools the two:
        // {"accuracy": 0.675, "flaps": 3, "missed": 1, "latencyMedianOfMedians": 0.75}
        let second = RoomDecisionScore(decisions: [(Instant(seconds: 0.5), "a"), (Instant(seconds: 3), "b")],
                                       truth: truth([(0, "a"), (1, "a"), (2, "b"), (3, "b"), (4, "b")]))
        let site = SiteScore([score, second])
        #expect(abs(site.meanAccuracy - 0.675) < 1e-12)
        #expect(site.flaps == 3)
        #expect(site.missedChanges == 1)
        #expect(site.medianSwitchLatency == 0.75)
    }

    @Test("a short visit the decision never shows before the next true change is a missed change; one shown late is not")
    func missedChanges() {
        // Truth: hall, a 1 s visit to the living room, hall again, then the bath.
        let rows = truth([(0, "hall"), (1, "hall"), (2, "living"), (2.5, "living"), (3, "hall"), (4, "hall"),
                          (5, "bath"), (6, "bath"), (7, "bath")])
        // The living room is never shown; the bath is shown 1 s late.
        let score = RoomDecisionScore(decisions: [(Instant(seconds: 0), "hall"), (Instant(seconds: 6), "bath")], truth: rows)
        #expect(score.trueChanges == 3)
        #expect(score.missedChanges == 1)
        #expect(score.switchLatencies == [0, 1]) // back in the hall at once; the missed visit has none
        #expect(score.flaps == 0)
        #expect(RoomDecisionScore.pooled([score, score]).missedChanges == 2)
        #expect(SiteScore([score, score]).missedChanges == 2)
        // Shown during the visit: followed, not missed; the bath, never shown now, is.
        let shown = RoomDecisionScore(decisions: [(Instant(seconds: 0), "hall"), (Instant(seconds: 2.5), "living"),
                                                  (Instant(seconds: 3), "hall")], truth: rows)
        #expect(shown.missedChanges == 1)
        #expect(shown.switchLatencies == [0.5, 0])
    }

    @Test("no decision yet counts as wrong; a change never followed is missed, with no latency")
    func censored() {
        let rows = truth([(0, "a"), (1, "a"), (2, "b"), (3, "b")])
        let score = RoomDecisionScore(decisions: [(Instant(seconds: 0.5), "a")], truth: rows)
        #expect(score.correctRows == 1)
        #expect(score.flaps == 0)
        #expect(score.switchLatencies.isEmpty)
        #expect(score.missedChanges == 1)
    }
}

/// Every `NAME.trace.csv` with its `NAME.truth.csv` in a shared-data directory, replayed with the
/// defaults (the agents' tracking and the aggregator's decision) and scored.
private func replaySite(_ directory: String, decision: RoomDecisionParameters = .default) throws -> SiteScore {
    let path = try RecordedData.path(directory)
    let names = try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".trace.csv") }.sorted()
    return SiteScore(try names.map { name in
        let samples = try TraceFile.samples(path: path + "/" + name)
        let truthRows = try TraceFile.truth(path: path + "/" + name.replacingOccurrences(of: ".trace.", with: ".truth."))
        let decisions = TraceReplay.decisions(of: samples, decision: decision)
        let beacons = Set(truthRows.map(\.beacon)).sorted()
        return RoomDecisionScore.pooled(beacons.map { beacon in
            RoomDecisionScore(decisions: decisions.filter { $0.decision.beacon == beacon }.map { ($0.time, $0.decision.room) },
                              truth: truthRows.filter { $0.beacon == beacon })
        })
    })
}

@Suite("The defaults on the three shared sites")
struct SharedSitesTests {
    /// One set of defaults, both sites, the figures (mean accuracy / flaps / median of
    /// medians). These are the levels reached (Sources/PresenceAggregator/PresenceAggregator.docc/RoomDecisions.md), kept
    /// from sliding back; issue 14's targets (Daniş ≥ 0.86 / ≤ 2 s, SAL ≥ 0.87 / ≤ 2.5 s) are
    /// not met by this physics rule (that article says why).
    @Test("Daniş hall, SAL bay and the flat: accuracy, flaps and latency at the levels the Room decisions article reports")
    func threeSites() throws {
        let danis = try replaySite("traces")
        #expect(danis.recordings.count == 9)
        #expect(danis.meanAccuracy >= 0.83, "Daniş \(danis.meanAccuracy)")
        #expect(danis.flaps <= 5)
        #expect((danis.medianSwitchLatency ?? 99) <= 2.6)
        let sal = try replaySite("traces-sal")
        #expect(sal.recordings.count == 5)
        // The sum of the room's power gave 0.828 / 0 / 5.1 s here (6 receivers inside, 4 outside).
        #expect(sal.meanAccuracy >= 0.835, "SAL \(sal.meanAccuracy)")
        #expect(sal.flaps <= 5)
        #expect((sal.medianSwitchLatency ?? 99) <= 4.7)
        // The furnished flat (issue 26): 0.833 / 33 / 4.11 s / 8 missed, as the yardstick scores
        // it (every change of the decision counted; 27 flaps / 4.7 s sampled at the truth rows).
        let flat = try replaySite("traces-flat")
        #expect(flat.recordings.count == 5)
        #expect(flat.pooled.trueChanges == 44)
        #expect(flat.meanAccuracy >= 0.83, "flat \(flat.meanAccuracy)")
        #expect(flat.flaps <= 33)
        #expect((flat.medianSwitchLatency ?? 99) <= 4.7)
        #expect(flat.missedChanges <= 8)
    }

    /// As the yardstick scores them, the flat's hold saves 8 flaps (33 against 41) for 0.36 s of
    /// median switch (4.11 s against 3.75 s); sampled at truth rows the switch cost nothing.
    @Test("holding the current room's score against fades costs flaps nowhere and saves them in the hall and the flat, for under 0.5 s of median switch")
    func heldScoreOnRealTraces() throws {
        var unheld = RoomDecisionParameters.default
        unheld.rule.fallRate = .infinity
        for (directory, fewer, slower) in [("traces", true, 0.1), ("traces-sal", false, 0.1), ("traces-flat", true, 0.5)] {
            let held = try replaySite(directory)
            let without = try replaySite(directory, decision: unheld)
            if fewer {
                #expect(held.flaps < without.flaps, "\(directory): \(held.flaps) vs \(without.flaps)")
            } else {
                #expect(held.flaps <= without.flaps, "\(directory): \(held.flaps) vs \(without.flaps)")
            }
            #expect(held.meanAccuracy >= without.meanAccuracy - 0.005, "\(directory)")
            #expect((held.medianSwitchLatency ?? 99) <= (without.medianSwitchLatency ?? 99) + slower, "\(directory)")
        }
    }
}

@Suite("Evaluation on a real trace")
struct RealTraceEvaluationTests {
    @Test("zigzagging_without_rotation: decisions in a sane range, far fewer flaps than the baseline")
    func realTrace() throws {
        let samples = try TraceFile.samples(path: try RecordedData.path("traces/danis-zigzagging_without_rotation.trace.csv"))
        let truthRows = try TraceFile.truth(path: try RecordedData.path("traces/danis-zigzagging_without_rotation.truth.csv"))
        #expect(samples.count == 2203)
        #expect(truthRows.count == 2203)
        let decisions = TraceReplay.decisions(of: samples).map { ($0.time, $0.decision.room) }
        let score = RoomDecisionScore(decisions: decisions, truth: truthRows)
        let baseline = RoomDecisionScore(decisions: StrongestRecentRSSIBaseline.decisions(of: samples), truth: truthRows)
        #expect(score.trueChanges == 2)
        #expect(score.accuracy > 0.8 && score.accuracy <= 1)
        #expect(score.flaps <= 3)
        #expect((score.medianSwitchLatency ?? 99) < 10)
        #expect(baseline.accuracy > 0.7 && baseline.accuracy < 0.95)
        #expect(baseline.flaps > 20)
        #expect(Set(decisions.map(\.1)).isSubset(of: ["zone1", "zone2", "zone3", "zone4"]))
    }

    /// The data README's 0.781 read same-time decision rows in the order they were decided; the
    /// yardstick (`score.py`) sorts rows by time, then room, so of several rows at one instant the
    /// last room by name holds. This baseline decides after every sample and the hall's samples
    /// share instants with its truth rows, which moves 2 % of them (0.7593 with the yardstick's
    /// score.py on the same decisions, computed once).
    @Test("the baseline's pooled accuracy over the nine traces is the yardstick's on the same decisions")
    func baselineReproducesReference() throws {
        let directory = try RecordedData.path("traces")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasPrefix("danis-") && $0.hasSuffix(".trace.csv") }.sorted()
        #expect(names.count == 9)
        var scores: [RoomDecisionScore] = []
        for name in names {
            let samples = try TraceFile.samples(path: directory + "/" + name)
            let truthRows = try TraceFile.truth(path: directory + "/" + name.replacingOccurrences(of: ".trace.", with: ".truth."))
            scores.append(RoomDecisionScore(decisions: StrongestRecentRSSIBaseline.decisions(of: samples), truth: truthRows))
        }
        let pooled = RoomDecisionScore.pooled(scores)
        #expect(abs(pooled.accuracy - 0.7593) < 0.0001, "\(pooled.accuracy)")
        #expect(pooled.trueChanges == 17)
    }

    @Test("the defaults meet issue 5's targets over the nine traces with issue 6's light publish policy")
    func defaultsMeetTheTargets() throws {
        let directory = try RecordedData.path("traces")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasPrefix("danis-") && $0.hasSuffix(".trace.csv") }.sorted()
        #expect(names.count == 9)
        var scores: [RoomDecisionScore] = []
        var flaps = 0
        var messages = 0
        var beaconNodeMinutes = 0.0
        for name in names {
            let samples = try TraceFile.samples(path: directory + "/" + name)
            let truthRows = try TraceFile.truth(path: directory + "/" + name.replacingOccurrences(of: ".trace.", with: ".truth."))
            var replay = TraceReplay()
            var decisions: [(time: Instant, room: String)] = []
            for sample in samples {
                decisions += replay.step(sample).decisions.map { ($0.time, $0.decision.room) }
            }
            let score = RoomDecisionScore(decisions: decisions, truth: truthRows)
            scores.append(score)
            flaps += score.flaps
            messages += replay.published
            let nodes = Set(samples.map(\.node)).count
            beaconNodeMinutes += Double(nodes) * (samples.last!.time.since(samples[0].time)) / 60
        }
        let pooled = RoomDecisionScore.pooled(scores)
        #expect(pooled.accuracy >= 0.85, "pooled accuracy \(pooled.accuracy)")
        #expect(flaps <= 10)
        #expect((pooled.medianSwitchLatency ?? 99) <= 3)
        // While people walk, the nodes publish far less than once per advert (about 2 per second).
        #expect(Double(messages) / beaconNodeMinutes < 25)
    }
}

/// `learn`'s tally per room and per floor: a room without a receiver counts like any other, and a
/// decided room on the right floor counts for the floor even when it is the wrong room.
@Suite struct RoomTallyTests {
    @Test func roomsAndFloorsAreCountedAtTheTruthRows() {
        let beacon = BeaconID(rawValue: "b")
        let floors = ["lounge": "ground", "hall": "ground", "bedroom": "upstairs", "landing": "upstairs"]
        let truth = [("lounge", 0.0), ("lounge", 1), ("hall", 2), ("landing", 3), ("bedroom", 4), ("bedroom", 5), ("not_home", 6)]
            .map { TruthSample(time: Instant(seconds: $0.1), beacon: beacon, room: $0.0) }
        // Physics-like: never names the hall or the landing (no receiver there).
        let decisions: [(time: Instant, room: String)] = [(Instant(seconds: 0), "lounge"), (Instant(seconds: 3), "bedroom")]
        var tally = SiteModelEvaluation.RoomTally()
        tally.add(decisions: decisions, truth: truth, floors: floors)
        #expect(tally.rows == ["lounge": 2, "hall": 1, "landing": 1, "bedroom": 2])
        #expect(tally.accuracy(room: "lounge") == 1 && tally.accuracy(room: "hall") == 0 && tally.accuracy(room: "landing") == 0)
        #expect(tally.accuracy(room: "bedroom") == 1)
        // The hall decided as the lounge and the landing as the bedroom: right floor both times.
        #expect(tally.floorAccuracy == 1)
        #expect(tally.seconds["lounge"] == 2 && tally.seconds["bedroom"] == 2)
    }
}

/// The verdict: the model (alone, or with physics) costs less than physics alone (share of time
/// decided wrong, a flap counting as 5 s of it) and — where the truth gives floors — is on the right floor at least as often; and
/// which decision serves each room.
@Suite struct SiteModelVerdictTests {
    /// One 1000-second walk (its room `hall` held all of it).
    private func summary(accuracy: Double, flaps: Int, floorRight: Int = 100, rooms: [String: (rows: Int, right: Int)] = [:])
        -> SiteModelEvaluation.Summary
    {
        var tally = SiteModelEvaluation.RoomTally()
        tally.floorRows = ["ground": 100]
        tally.floorCorrect = ["ground": floorRight]
        tally.seconds = ["hall": 1000]
        tally.rows = rooms.mapValues(\.rows)
        tally.correct = rooms.mapValues(\.right)
        let score = RoomDecisionScore(truthRows: 100, correctRows: Int((accuracy * 100).rounded()), decidedChanges: flaps, trueChanges: 0,
                                      switchLatencies: [])
        return SiteModelEvaluation.Summary(recordings: [.init(name: "walk", score: score, tally: tally)])
    }

    @Test func theModelDecidesWhenItCostsLessAndIsNotWorseOnFloors() {
        let physics = summary(accuracy: 0.6, flaps: 1, floorRight: 95)
        #expect(abs(physics.cost() - 0.405) < 1e-9)
        // 100 s wrong + 60 flaps (0.400 of the walk) against 400 s wrong + 1 flap (0.405): the model.
        #expect(summary(accuracy: 0.9, flaps: 60, floorRight: 97).verdict(against: physics) == .model)
        #expect(summary(accuracy: 0.9, flaps: 62, floorRight: 97).verdict(against: physics) == .physics)
        #expect(summary(accuracy: 0.55, flaps: 0, floorRight: 99).verdict(against: physics) == .physics)
        #expect(summary(accuracy: 0.9, flaps: 1, floorRight: 90).verdict(against: physics) == .physics)
        // Issue 36's home, 2.5 hours: the model 0.911 with 153 flaps against physics 0.590 with 9
        // is never discarded.
        func home(_ accuracy: Double, _ flaps: Int) -> SiteModelEvaluation.Summary {
            var tally = SiteModelEvaluation.RoomTally()
            tally.seconds = ["hall": 9000]
            let score = RoomDecisionScore(truthRows: 1000, correctRows: Int(accuracy * 1000), decidedChanges: flaps, trueChanges: 0,
                                          switchLatencies: [])
            return SiteModelEvaluation.Summary(recordings: [.init(name: "home", score: score, tally: tally)])
        }
        #expect(home(0.911, 153).verdict(against: home(0.590, 9)) == .model)
    }

    @Test func theVerdictFollowsTheTypicalRecordingNotOneUnlikeTheOthers() {
        func site(_ accuracies: [Double]) -> SiteModelEvaluation.Summary {
            SiteModelEvaluation.Summary(recordings: accuracies.enumerated().map { index, accuracy in
                var tally = SiteModelEvaluation.RoomTally()
                tally.seconds = ["bay": 1000]
                let score = RoomDecisionScore(truthRows: 1000, correctRows: Int((accuracy * 1000).rounded()), decidedChanges: 0,
                                              trueChanges: 0, switchLatencies: [])
                return .init(name: "recording\(index)", score: score, tally: tally)
            })
        }
        // The SAL bay's shape: three car recordings the model decides 0.05 better, one walk 0.2
        // worse. The mean cost says physics (0.015 + 0.2 over 4 > 0); the typical recording says the model.
        let physics = site([0.84, 0.84, 0.84, 0.97]), model = site([0.89, 0.89, 0.89, 0.77])
        #expect(model.cost() > physics.cost())
        #expect(abs(model.saving(against: physics) - 0.05) < 1e-9)
        #expect(model.verdict(against: physics) == .model)
        // Worse on most recordings: physics, however much better on one.
        #expect(site([0.80, 0.80, 0.80, 0.99]).verdict(against: site([0.84, 0.84, 0.84, 0.84])) == .physics)
    }

    @Test func eachRoomIsServedByTheDecisionRightMoreOfItsTime() {
        let model = summary(accuracy: 0.8, flaps: 0, rooms: ["hall": (100, 55), "bathroom": (100, 72), "bedroom": (100, 90)])
        let physics = summary(accuracy: 0.8, flaps: 0, rooms: ["hall": (100, 94), "bathroom": (100, 0), "bedroom": (100, 90)])
        #expect(model.roomDecisions(against: physics) == ["hall": .physics, "bathroom": .model, "bedroom": .model])
    }
}
