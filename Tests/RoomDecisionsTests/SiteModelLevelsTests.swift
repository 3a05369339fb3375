import BeaconCore
import RoomDecisions
import Testing

/// A home's walk (issue 53): two receivers, `a` in room `A` and `b` in room `B`, and a landing
/// between them with no receiver, where both hear the beacon at −70 dB. `rooms` gives the true room
/// of each second; nodes publish every second.
private func walk(_ rooms: [String]) -> (measurements: [SiteModelLearner.Measurement], truth: [TruthSample]) {
    let beacon = BeaconID(rawValue: "b1")
    var measurements: [SiteModelLearner.Measurement] = []
    var truth: [TruthSample] = []
    for (second, room) in rooms.enumerated() {
        let t = Double(second)
        for (offset, node) in ["a", "b"].enumerated() {
            measurements.append(.init(time: Instant(seconds: t + 0.1 * Double(offset)), evidence: NodeEvidence(
                beacon: beacon, node: node, room: node.uppercased(), rssiFiltered: level(node, in: room), sigma: 1,
                distance: 2, proximity: .near)))
        }
        truth.append(TruthSample(time: Instant(seconds: t), beacon: beacon, room: room))
    }
    return (measurements, truth)
}

/// What node `a` or `b` publishes while the beacon is in `room`: loud in its own room, quiet in
/// the other, between on the landing.
private func level(_ node: String, in room: String) -> Double {
    room == "landing" ? -70 : (node.uppercased() == room ? -60 : -80)
}

private func learned(_ rooms: [String]) -> SiteModel? {
    var learner = SiteModelLearner()
    let recording = walk(rooms)
    learner.add(measurements: recording.measurements, truth: recording.truth)
    return learner.model()
}

private let homeWalk = Array(repeating: "A", count: 60) + Array(repeating: "landing", count: 60) + Array(repeating: "B", count: 60)

@Suite struct SiteModelLevelsTests {
    @Test func aWalkedRoomWithoutAReceiverMakesAModelOfLevelsInDecibelsAsPublished() throws {
        let model = try #require(learned(homeWalk))
        #expect(model.rooms == ["A", "B", "landing"])
        #expect(model.levels)
        #expect(model.classifier == nil)
        // Levels are what the node published, not relative to the other nodes (which are 0 on the landing).
        let landing = try #require(model.roomIndex("landing")), a = try #require(model.nodeIndex("a"))
        #expect(abs(model.looks[landing][a].mean + 70) < 1)
        #expect(abs(model.looks[0][a].mean + 60) < 1.5)

        // Every room with its receiver: the classifier, as before.
        let receivers = try #require(learned(Array(homeWalk.prefix(60)) + Array(homeWalk.suffix(60))))
        #expect(!receivers.levels)
        #expect(receivers.classifier != nil)
    }

    @Test func theFilterNamesTheRoomWithoutAReceiverAndStaysThere() throws {
        let model = try #require(learned(homeWalk))
        var filter = SiteModelFilter(model: model)
        var decided: [String] = []
        // A minute in A, then a minute on the landing, measured every second by both nodes.
        for second in 0..<120 {
            let room = second < 60 ? "A" : "landing"
            for node in ["a", "b"] {
                filter.observe(node: try #require(model.nodeIndex(node)), rssi: level(node, in: room),
                               at: Instant(seconds: Double(second)))
            }
            if let index = filter.decidedRoom(), decided.last != model.rooms[index] { decided.append(model.rooms[index]) }
        }
        #expect(decided == ["A", "landing"])
    }

    @Test func aRoomNextDoorIsFollowedSoonerThanWithTheWideMargin() throws {
        let model = try #require(learned(homeWalk))
        // Seconds from leaving A for `room` until the filter decides it (nil: never within a minute).
        func switchTime(_ model: SiteModel, to room: String) throws -> Double? {
            var filter = SiteModelFilter(model: model)
            for tenth in 0..<1200 {
                let t = Double(tenth) / 10
                for node in ["a", "b"] {
                    filter.observe(node: try #require(model.nodeIndex(node)), rssi: level(node, in: t < 60 ? "A" : room),
                                   at: Instant(seconds: t))
                }
                if t >= 60, let index = filter.decidedRoom(), model.rooms[index] == room { return t - 60 }
            }
            return nil
        }
        // The landing is next door to A (the walk went between them): the neighbours' odds apply.
        var wide = model
        wide.parameters.levelNeighbourOdds = wide.parameters.levelSwitchOdds
        let soon = try #require(try switchTime(model, to: "landing")), late = try #require(try switchTime(wide, to: "landing"))
        #expect(soon < late)
    }

    @Test func theFileSaysLevelsAndReadsThemBack() throws {
        let model = try #require(learned(homeWalk))
        let text = model.json
        #expect(text.contains(#""looks": "levels""#))
        let read = try SiteModel(json: Array(text.utf8))
        #expect(read.levels)
        #expect(zip(read.looks.joined(), model.looks.joined()).allSatisfy { abs($0.mean - $1.mean) < 0.01 })
        let bad = text.replacingOccurrences(of: #""looks": "levels""#, with: #""looks": "loud""#)
        do {
            _ = try SiteModel(json: Array(bad.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.description.hasPrefix("looks: 'loud' is not levels or relative"), "\(error.description)")
        }
    }

    /// A person sits still in the bedroom (a PIR, no receiver) for three minutes, told from the
    /// landing (no PIR) only slightly by the radio, while someone else walks about room A, whose
    /// receiver says plainly the person is not there. The bedroom's sensor has been quiet for minutes:
    /// a model of levels must not hand the person to the landing for it.
    @Test func aPersonSittingStillStaysInTheirRoomWhileSomeoneElseMovesElsewhere() throws {
        let beacon = BeaconID(rawValue: "b1")
        // What `a` (room A) and `b` (room B) publish: the bedroom 2 dB quieter than the landing.
        func level(_ node: String, in room: String) -> Double {
            switch room {
            case "bed": -75
            case "landing": -73
            default: node.uppercased() == room ? -55 : -85
            }
        }
        func evidence(_ node: String, in room: String) -> NodeEvidence {
            NodeEvidence(beacon: beacon, node: node, room: node.uppercased(), rssiFiltered: level(node, in: room), sigma: 1,
                         distance: 2, proximity: .near)
        }
        let rooms = Array(repeating: "A", count: 60) + Array(repeating: "landing", count: 30)
            + Array(repeating: "bed", count: 60) + Array(repeating: "landing", count: 30) + Array(repeating: "B", count: 60)
        var learner = SiteModelLearner()
        learner.add(measurements: rooms.enumerated().flatMap { second, room in
            ["a", "b"].enumerated().map { offset, node in
                SiteModelLearner.Measurement(time: Instant(seconds: Double(second) + 0.1 * Double(offset)), evidence: evidence(node, in: room))
            }
        }, truth: rooms.enumerated().map { TruthSample(time: Instant(seconds: Double($0)), beacon: beacon, room: $1) })
        let model = try #require(learner.model())
        #expect(model.levels)
        var decider = SiteModelDecider(model: model)
        let physics = RoomDecision(beacon: beacon, room: "A", distance: 2, proximity: .near, node: nil,
                                   since: Instant(seconds: 0), confidence: 0.5, candidates: [:])
        var decided: [String] = []
        for second in 0..<180 {
            let now = Instant(seconds: Double(second))
            // The bedroom's sensor sees the person sit down, then nothing; A's fires every 10 s from 20 s on.
            if second == 0 { decider.setMotion(room: "bed", occupied: true, at: now) }
            if second == 5 { decider.setMotion(room: "bed", occupied: false, at: now) }
            if second >= 20, second % 10 == 0 { decider.setMotion(room: "A", occupied: true, at: now) }
            if second >= 20, second % 10 == 3 { decider.setMotion(room: "A", occupied: false, at: now) }
            for node in ["a", "b"] {
                if let decision = decider.update(evidence(node, in: "bed"), physics: physics, at: now) { decided.append(decision.room) }
            }
        }
        #expect(decided == ["bed"])
    }
}
