import BeaconCore
import RoomDecisions
import Testing

/// A model learned from one labelled minute-long recording of beacon `b1`: `second(t)` gives, for
/// each whole second, the true room and what each node (with its room) publishes.
private func learnedModel(seconds: Int, _ parameters: SiteModelParameters = .default,
                          _ second: (Int) -> (room: String, heard: [(node: String, room: String, rssi: Double)])) -> SiteModel {
    var learner = SiteModelLearner(parameters: parameters)
    var measurements: [SiteModelLearner.Measurement] = []
    var truth: [TruthSample] = []
    let beacon = BeaconID(rawValue: "b1")
    for index in 0..<seconds {
        let t = Double(index)
        let (room, heard) = second(index)
        for (offset, node) in heard.enumerated() {
            measurements.append(.init(time: Instant(seconds: t + 0.1 * Double(offset)), evidence: NodeEvidence(
                beacon: beacon, node: node.node, room: node.room, rssiFiltered: node.rssi, sigma: 1, distance: 2, proximity: .near)))
        }
        truth.append(TruthSample(time: Instant(seconds: t), beacon: beacon, room: room))
    }
    learner.add(measurements: measurements, truth: truth)
    return learner.model()!
}

/// A two-room site seen by three nodes: `a` hears the beacon loud in room `A`, `b` in room `B`,
/// `c` (between) the same in both.
private func twoRoomModel(_ parameters: SiteModelParameters = .default) -> SiteModel {
    learnedModel(seconds: 60, parameters) { second in
        let inA = second < 30
        return (inA ? "A" : "B", [("a", "A", inA ? -60 : -80), ("b", "B", inA ? -80 : -60), ("c", "C", -70)])
    }
}

private func evidence(_ node: String, _ room: String, _ rssi: Double?, beacon: String = "b1") -> NodeEvidence {
    NodeEvidence(beacon: BeaconID(rawValue: beacon), node: node, room: room, rssiFiltered: rssi ?? -70, sigma: 1,
                 distance: rssi == nil ? nil : 2, proximity: rssi == nil ? .unknown : .near)
}

private func physics(_ room: String, beacon: String = "b1") -> RoomDecision {
    RoomDecision(beacon: BeaconID(rawValue: beacon), room: room, distance: 2, proximity: .near, node: nil,
                 since: Instant(seconds: 0), confidence: 0.5, candidates: [:])
}

@Suite struct SiteModelTests {
    @Test func learnsHowEachRoomLooksToEachNode() {
        let model = twoRoomModel()
        #expect(model.rooms == ["A", "B"])
        #expect(model.nodes == ["a", "b", "c"])
        #expect(model.samples.allSatisfy { $0 > 250 })
        // Relative to the mean of the nodes hearing it (-70): a is +10 dB in A and −10 dB in B.
        let a = model.nodeIndex("a")!
        #expect(abs(model.looks[0][a].mean - 10) < 1.5)
        #expect(abs(model.looks[1][a].mean + 10) < 1.5)
        #expect(model.looks[0][a].heard > 0.95)
    }

    @Test func fileRoundTripsAndIsVersioned() throws {
        let model = twoRoomModel()
        let text = model.json
        #expect(text.contains("\"format\": \"beacon-presence-site-model\""))
        #expect(text.contains("\"version\": 2"))
        #expect(text.contains("\"decision\": \"model\""))
        #expect(text.contains("\"features\": [\"room:A\", \"room:B\", \"rssi:a\", \"rssi:b\", \"rssi:c\", \"heard:a\", \"heard:b\", \"heard:c\"]"))
        let read = try SiteModel(json: Array(text.utf8))
        #expect(read.rooms == model.rooms)
        #expect(read.nodes == model.nodes)
        #expect(read.parameters == model.parameters)
        // c stands in room C, which is none of the model's rooms.
        #expect(read.nodeRooms == ["A", "B", nil])
        #expect(read.decision == .model)
        for room in model.rooms.indices {
            for node in model.nodes.indices {
                #expect(abs(read.looks[room][node].mean - model.looks[room][node].mean) < 0.01)
            }
        }
        let written = try #require(model.classifier), back = try #require(read.classifier)
        for room in model.rooms.indices {
            #expect(abs(back.biases[room] - written.biases[room]) < 1e-5)
            #expect(zip(back.weights[room], written.weights[room]).allSatisfy { abs($0 - $1) < 1e-5 })
        }
        #expect(read.json == text)
    }

    /// A version 1 file (looks only, before the classifier) is still read and decides by its looks.
    @Test func aVersionOneFileStillDecidesByItsLooks() throws {
        var model = twoRoomModel()
        model.classifier = nil
        let text = model.json
            .replacingOccurrences(of: "\"version\": 2", with: "\"version\": 1")
            .replacingOccurrences(of: "  \"decision\": \"model\",\n", with: "")
        let read = try SiteModel(json: Array(text.utf8))
        #expect(read.classifier == nil)
        var decider = SiteModelDecider(model: read)
        var rooms: [String] = []
        for second in 0..<20 {
            let inA = second < 10
            for (node, room, rssi) in [("a", "A", inA ? -61.0 : -79), ("b", "B", inA ? -79.0 : -61)] {
                if let decision = decider.update(evidence(node, room, rssi), physics: physics("C"), at: Instant(seconds: Double(second))) {
                    rooms.append(decision.room)
                }
            }
        }
        #expect(rooms == ["A", "B"])
    }

    /// `learn` found physics the better decision: the file says so and the decider follows physics.
    @Test func aModelJudgedWorseThanPhysicsLeavesTheDecisionToPhysics() {
        var model = twoRoomModel()
        model.decision = .physics
        var decider = SiteModelDecider(model: model)
        var rooms: [String] = []
        for second in 0..<10 {
            if let decision = decider.update(evidence("a", "A", -61), physics: physics("B"), at: Instant(seconds: Double(second))) {
                rooms.append(decision.room)
            }
        }
        #expect(rooms == ["B"])
        #expect(model.json.contains("\"decision\": \"physics\""))
    }

    /// At a doorway the loudest node is not the room: learned from the pattern across the nodes,
    /// the classifier places the beacon where the truth says while physics (the loudest room) would not.
    @Test func theClassifierLearnsWhatSignalStrengthAloneGetsWrong() {
        // Inside, the far inside node `deep` is loudest; just outside the door, the door node
        // `door` (inside) is loudest but `deep` has fallen away and `out` is rising.
        let model = learnedModel(seconds: 120) { second in
            let inside = (second / 20) % 2 == 0
            return (inside ? "inside" : "outside",
                    [("door", "inside", inside ? -66 : -58), ("deep", "inside", inside ? -57 : -75), ("out", "outside", inside ? -78 : -64)])
        }
        var filter = SiteModelFilter(model: model)
        let door = model.nodeIndex("door")!, deep = model.nodeIndex("deep")!, out = model.nodeIndex("out")!
        for step in 0..<30 {
            let t = Instant(seconds: Double(step) * 0.1)
            filter.observe(node: door, rssi: -58, at: t)
            filter.observe(node: deep, rssi: -75, at: t)
            filter.observe(node: out, rssi: -64, at: t)
        }
        // The mean power of the inside nodes (-58, -75) is ~3 dB above outside's -64: physics says inside.
        #expect(filter.decidedRoom().map { model.rooms[$0] } == "outside")
    }

    @Test func malformedFilesNameTheLineOrTheField() {
        func error(_ text: String) -> String {
            do {
                _ = try SiteModel(json: Array(text.utf8))
                return "accepted"
            } catch {
                return error.description
            }
        }
        #expect(error("{\n  \"format\": \"beacon-presence-site-model\",\n  \"version\": 1,\n  oops\n}").hasPrefix("line 4: invalid JSON"))
        #expect(error(#"{"format":"x","version":1,"rooms":[]}"#).hasPrefix("format: "))
        #expect(error(#"{"format":"beacon-presence-site-model","version":3,"rooms":[]}"#).hasPrefix("version: "))
        #expect(error(#"{"format":"beacon-presence-site-model","version":2,"decision":"maybe","rooms":[]}"#)
            == "decision: 'maybe' is not model or physics")
        let look = #"{"heard":0.5,"mean":-3,"sigma":4}"#
        #expect(error(#"{"format":"beacon-presence-site-model","version":1,"rooms":[{"name":"A","nodes":{"a":\#(look)}},{"name":"B","nodes":{"a":{"heard":0.5,"mean":-3,"sigma":-1}}}]}"#)
            == "rooms[1].nodes.a.sigma: -1 is not in 0.1…100")
        #expect(error(#"{"format":"beacon-presence-site-model","version":1,"rooms":[{"name":"A","nodes":{"a":\#(look)}},{"name":"B","nodes":{"b":\#(look)}}]}"#)
            .hasPrefix("rooms[1].nodes: lists nodes b"))
        #expect(error(#"{"format":"beacon-presence-site-model","version":1,"rooms":[{"name":"A","nodes":{"a":\#(look)}}],"extra":1}"#)
            .hasPrefix("extra: unknown key"))
        #expect(error("").hasPrefix("line 1: invalid JSON"))
        // The classifier's features must be the model's, in order, with one number each.
        let rooms = #""rooms":[{"name":"A","nodes":{"a":\#(look)}},{"name":"B","nodes":{"a":\#(look)}}]"#
        let features = #""features":["room:A","room:B","rssi:a","heard:a"]"#
        let good = #""means":[0,0,0,0],"scales":[1,1,1,1],"rooms":{"A":{"bias":0,"weights":[1,0,0,0]},"B":{"bias":0,"weights":[0,1,0,0]}}"#
        #expect(error(#"{"format":"beacon-presence-site-model","version":2,\#(rooms),"classifier":{\#(features),\#(good)}}"#) == "accepted")
        #expect(error(#"{"format":"beacon-presence-site-model","version":2,\#(rooms),"classifier":{"features":["room:A","room:B","rssi:b","heard:b"],\#(good)}}"#)
            .hasPrefix("classifier.features: expected the 4 features of the model's rooms and nodes: room:A, room:B, rssi:a, heard:a"))
        #expect(error(#"{"format":"beacon-presence-site-model","version":2,\#(rooms),"classifier":{\#(features),\#(good.replacingOccurrences(of: "[0,1,0,0]", with: "[0,1,0]"))}}"#)
            == "classifier.rooms.B.weights: has 3 numbers, not 4")
        #expect(error(#"{"format":"beacon-presence-site-model","version":2,\#(rooms),"classifier":{\#(features),\#(good.replacingOccurrences(of: "\"scales\":[1,1,1,1]", with: "\"scales\":[1,0,1,1]"))}}"#)
            .hasPrefix("classifier.scales[1]: expected a number in"))
        #expect(error(#"{"format":"beacon-presence-site-model","version":2,\#(rooms),"nodeRooms":{"a":"C"}}"#)
            == "nodeRooms.a: expected one of the model's rooms")
    }

    @Test func followsAMoveAndHoldsWithoutFlapping() {
        var decider = SiteModelDecider(model: twoRoomModel())
        var rooms: [String] = []
        for second in 0..<40 {
            let t = Double(second)
            let inA = second < 20
            for (node, room, rssi) in [("a", "A", inA ? -61.0 : -79), ("b", "B", inA ? -79.0 : -61), ("c", "C", -70.0)] {
                let p = physics("C")
                if let decision = decider.update(evidence(node, room, rssi), physics: p, at: Instant(seconds: t + 0.05)) {
                    rooms.append(decision.room)
                }
            }
        }
        #expect(rooms == ["A", "B"])
    }

    @Test func anOfflineNodeLeavesTheOthersToDecide() {
        var decider = SiteModelDecider(model: twoRoomModel())
        var last: String?
        _ = decider.setNodeStatus(node: "b", online: false, at: Instant(seconds: 0)) { _ in nil }
        for second in 0..<10 {
            let t = Double(second)
            if let d = decider.update(evidence("a", "A", -61), physics: physics("A"), at: Instant(seconds: t)) { last = d.room }
            if let d = decider.update(evidence("c", "C", -70), physics: physics("A"), at: Instant(seconds: t + 0.5)) { last = d.room }
        }
        #expect(last == "A")
        #expect(decider.room(of: BeaconID(rawValue: "b1")) == "A")
    }

    @Test func unknownNodesAreReportedOnceAndABeaconHeardOnlyByThemFollowsPhysics() {
        var decider = SiteModelDecider(model: twoRoomModel())
        var decided: [String] = []
        for second in 0..<5 {
            if let d = decider.update(evidence("x", "garage", -60, beacon: "b2"), physics: physics("garage", beacon: "b2"),
                                      at: Instant(seconds: Double(second))) {
                decided.append(d.room)
            }
        }
        #expect(decided == ["garage"])
        #expect(decider.takeUnknownNodes() == ["x"])
        #expect(decider.takeUnknownNodes().isEmpty)
    }

    @Test func awayIsThePhysicsTimeoutAndTheFilterStartsAfresh() {
        var decider = SiteModelDecider(model: twoRoomModel())
        let beacon = BeaconID(rawValue: "b1")
        _ = decider.update(evidence("a", "A", -61), physics: physics("A"), at: Instant(seconds: 0))
        _ = decider.update(evidence("a", "A", -61), physics: physics("A"), at: Instant(seconds: 5))
        #expect(decider.room(of: beacon) == "A")
        let away = decider.tick(at: Instant(seconds: 40)) { _ in physics(RoomDecision.notHome) }
        #expect(away.map(\.room) == [RoomDecision.notHome])
        #expect(decider.posterior(of: beacon).map { abs($0[0] - 0.5) < 1e-9 } == true)
    }
}
