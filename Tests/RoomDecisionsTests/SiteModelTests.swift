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

    /// What `learn` writes its own reader accepts: a node that hears a room in every one of 36 000
    /// samples (an hour) and one that never hears it would otherwise be written as 1 and 0.
    @Test func aNodeHeardAlwaysOrNeverIsWrittenSoItReadsBack() throws {
        let model = learnedModel(seconds: 3_600) { second in
            let inA = second % 600 < 300
            return (inA ? "A" : "B", [("a", "A", inA ? -60 : -80), ("b", "B", inA ? -80 : -60)])
        }
        let a = try #require(model.nodeIndex("a"))
        #expect(model.looks[0][a].heard == SiteModel.Look.heardBounds.upperBound)
        let read = try SiteModel(json: Array(model.json.utf8))
        #expect(zip(read.looks.joined(), model.looks.joined()).allSatisfy { abs($0.heard - $1.heard) <= 0.00005 })
        // A node never heard in a room, and one always heard, written by hand or by `learn` before
        // the bound: read as the bounds, not refused.
        var edges = model
        edges.looks[0][a].heard = 1
        edges.looks[1][a].heard = 0
        let text = edges.json
        #expect(text.contains("\"heard\": 0.9999") && text.contains("\"heard\": 0.0001"))
        let old = text.replacingOccurrences(of: "\"heard\": 0.9999", with: "\"heard\": 1")
            .replacingOccurrences(of: "\"heard\": 0.0001", with: "\"heard\": 0")
        #expect(old.contains("\"heard\": 1,") && old.contains("\"heard\": 0,"))
        let back = try SiteModel(json: Array(old.utf8))
        #expect(back.looks[0][a].heard == 0.9999 && back.looks[1][a].heard == 0.0001)
    }

    /// Rooms learn their floor from the truth's `floor` column, and the file keeps it.
    @Test func floorsFromTheTruthAreLearnedAndKept() throws {
        var learner = SiteModelLearner()
        let beacon = BeaconID(rawValue: "b1")
        var measurements: [SiteModelLearner.Measurement] = [], truth: [TruthSample] = []
        for second in 0..<60 {
            let t = Double(second), up = second >= 30
            for (offset, node) in [("lounge-ap", -60.0 - (up ? 10 : 0)), ("bedroom-ap", -75.0 + (up ? 12 : 0))].enumerated() {
                measurements.append(.init(time: Instant(seconds: t + 0.1 * Double(offset)), evidence: NodeEvidence(
                    beacon: beacon, node: node.0, room: node.0 == "lounge-ap" ? "lounge" : "bedroom", rssiFiltered: node.1,
                    sigma: 1, distance: 2, proximity: .near)))
            }
            // The landing has no receiver of its own: a room of the model all the same.
            let room = up ? (second < 40 ? "landing" : "bedroom") : "lounge"
            truth.append(TruthSample(time: Instant(seconds: t), beacon: beacon, room: room,
                                     floor: room == "lounge" ? "ground" : room == "landing" ? nil : "upstairs"))
        }
        truth.append(TruthSample(time: Instant(seconds: 45), beacon: beacon, room: "landing", floor: "upstairs"))
        truth.sort { $0.time < $1.time }
        learner.add(measurements: measurements, truth: truth)
        let model = try #require(learner.model())
        #expect(model.rooms == ["bedroom", "landing", "lounge"])
        #expect(model.floors == ["upstairs", "upstairs", "ground"])
        let text = model.json
        #expect(text.contains(#"{"name": "landing", "floor": "upstairs", "samples": "#))
        #expect(try SiteModel(json: Array(text.utf8)).floors == model.floors)
        let bad = text.replacingOccurrences(of: #""floor": "ground""#, with: #""floor": "Ground Floor""#)
        do {
            _ = try SiteModel(json: Array(bad.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.description.hasPrefix("rooms[2].floor: 'Ground Floor' is not a floor name"))
        }
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

    /// A model learned with three receivers, one of them off: it is no evidence (not "never hears
    /// the beacon" in every room), the model decides with the others, and says so once.
    @Test func aReceiverOffIsNoEvidenceAndIsReportedOnce() {
        // a and b tell A from B; c hears the beacon only in B (loud), so its silence says "A".
        let model = learnedModel(seconds: 120) { second in
            let inA = second % 60 < 30
            return (inA ? "A" : "B", [("a", "A", inA ? -62 : -72), ("b", "B", inA ? -72 : -62)] + (inA ? [] : [("c", "C", -55.0)]))
        }
        var decider = SiteModelDecider(model: model)
        var rooms: [String] = []
        // Room B, c switched off: a and b alone say B. (Deciding starts at the second round, as the
        // physics decision's settle time makes it start once the nodes have spoken.)
        for step in 0..<40 {
            let t = Double(step) * 0.5
            for (node, room, rssi) in [("a", "A", -72.0), ("b", "B", -62.0)] {
                if let d = decider.update(evidence(node, room, rssi), physics: step == 0 ? nil : physics("B"), at: Instant(seconds: t)) {
                    rooms.append(d.room)
                }
            }
        }
        #expect(rooms == ["B"])
        #expect(decider.takeAbsentNodes() == ["c"])
        #expect(decider.takeAbsentNodes().isEmpty)
        // c comes back and hears nothing: now its silence counts, and with a and b saying A, A.
        _ = decider.setNodeStatus(node: "c", online: true, at: Instant(seconds: 20)) { _ in physics("B") }
        for step in 40..<80 {
            let t = Double(step) * 0.5
            for (node, room, rssi) in [("a", "A", -62.0), ("b", "B", -72.0)] {
                if let d = decider.update(evidence(node, room, rssi), physics: physics("B"), at: Instant(seconds: t)) {
                    rooms.append(d.room)
                }
            }
        }
        #expect(rooms == ["B", "A"])
        #expect(decider.takeAbsentNodes().isEmpty)
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

/// The floor plan as walked (issue 36): which rooms the truth went between, kept in the file, and
/// the transition prior the filter moves a room change along.
@Suite struct SiteModelNeighbourTests {
    /// A walk hall → bathroom → hall → living, 20 s each: the bathroom and the living room never touch.
    private func model(_ parameters: SiteModelParameters = .default) -> SiteModel {
        learnedModel(seconds: 80, parameters) { second in
            let room = ["hall", "bathroom", "hall", "living"][second / 20]
            let loud = room == "living" ? -60.0 : -75
            return (room, [("living-ap", "living", loud), ("hall-ap", "hall", room == "hall" ? -60 : -72)])
        }
    }

    @Test func theWalkJoinsTheRoomsItWentBetween() throws {
        let model = model()
        #expect(model.rooms == ["bathroom", "hall", "living"])
        #expect(model.neighbours == [[1], [0, 2], [1]])
        let text = model.json
        #expect(text.contains(#"{"name": "hall", "samples": "#) && text.contains(#""neighbours": ["bathroom", "living"], "nodes""#))
        #expect(try SiteModel(json: Array(text.utf8)).neighbours == model.neighbours)
        let wrong = text.replacingOccurrences(of: #""neighbours": ["hall"], "nodes""#, with: #""neighbours": ["attic"], "nodes""#)
        do {
            _ = try SiteModel(json: Array(wrong.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.description.contains("neighbours: 'attic' is not another room of the model"))
        }
        // A file written before (no neighbours): every room change spread evenly, as then.
        var old = model
        old.neighbours = nil
        #expect(try SiteModel(json: Array(old.json.utf8)).neighbours == nil)
    }

    @Test func aRoomChangeGoesToTheWalkedNeighbours() throws {
        var parameters = SiteModelParameters.default
        // The model here has a room without a receiver, so it is of levels: their share applies.
        parameters.levelUnwalkedMoveShare = 0.1
        let prior = try #require(model(parameters).transitionPrior)
        // From the bathroom: 0.9 to the hall, and 0.1 spread over all three.
        #expect(abs(prior[0][1] - (0.9 + 0.1 / 3)) < 1e-9 && abs(prior[0][2] - 0.1 / 3) < 1e-9)
        #expect(prior.allSatisfy { abs($0.reduce(0, +) - 1) < 1e-9 })
        parameters.levelUnwalkedMoveShare = 1
        #expect(model(parameters).transitionPrior == nil)
        // By default a model of levels moves only to the walked neighbours: the living room is
        // reached from the bathroom only through the hall.
        let walked = try #require(model(.default).transitionPrior)
        #expect(walked[0][2] == 0 && abs(walked[0][1] - 1) < 1e-9)
    }
}
