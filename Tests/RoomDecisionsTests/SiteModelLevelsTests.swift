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
}
