import BeaconCore
import Testing

/// A two-room site seen by three nodes: `a` hears the beacon loud in room `A`, `b` in room `B`,
/// `c` (between) the same in both.
private func twoRoomModel(_ parameters: SiteModelParameters = .default) -> SiteModel {
    var learner = SiteModelLearner(parameters: parameters)
    var measurements: [SiteModelLearner.Measurement] = []
    var truth: [TruthSample] = []
    let beacon = BeaconID(rawValue: "b1")
    func heard(_ node: String, _ room: String, _ rssi: Double, _ t: Double) {
        measurements.append(.init(time: Instant(seconds: t), evidence: NodeEvidence(
            beacon: beacon, node: node, room: room, rssiFiltered: rssi, sigma: 1, distance: 2, proximity: .near)))
    }
    for second in 0..<60 {
        let t = Double(second)
        let inA = second < 30
        heard("a", "A", inA ? -60 : -80, t)
        heard("b", "B", inA ? -80 : -60, t + 0.1)
        heard("c", "C", -70, t + 0.2)
        truth.append(TruthSample(time: Instant(seconds: t), beacon: beacon, room: inA ? "A" : "B"))
    }
    learner.add(measurements: measurements, truth: truth)
    return learner.model()!
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
        #expect(text.contains("\"version\": 1"))
        let read = try SiteModel(json: Array(text.utf8))
        #expect(read.rooms == model.rooms)
        #expect(read.nodes == model.nodes)
        #expect(read.parameters == model.parameters)
        for room in model.rooms.indices {
            for node in model.nodes.indices {
                #expect(abs(read.looks[room][node].mean - model.looks[room][node].mean) < 0.01)
            }
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
        #expect(error(#"{"format":"beacon-presence-site-model","version":2,"rooms":[]}"#).hasPrefix("version: "))
        let look = #"{"heard":0.5,"mean":-3,"sigma":4}"#
        #expect(error(#"{"format":"beacon-presence-site-model","version":1,"rooms":[{"name":"A","nodes":{"a":\#(look)}},{"name":"B","nodes":{"a":{"heard":0.5,"mean":-3,"sigma":-1}}}]}"#)
            == "rooms[1].nodes.a.sigma: -1 is not in 0.1…100")
        #expect(error(#"{"format":"beacon-presence-site-model","version":1,"rooms":[{"name":"A","nodes":{"a":\#(look)}},{"name":"B","nodes":{"b":\#(look)}}]}"#)
            .hasPrefix("rooms[1].nodes: lists nodes b"))
        #expect(error(#"{"format":"beacon-presence-site-model","version":1,"rooms":[{"name":"A","nodes":{"a":\#(look)}}],"extra":1}"#)
            .hasPrefix("extra: unknown key"))
        #expect(error("").hasPrefix("line 1: invalid JSON"))
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
