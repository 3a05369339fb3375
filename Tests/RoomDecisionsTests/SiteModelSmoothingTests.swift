import BeaconCore
import RoomDecisions
import Testing

/// Issue 36, fourth round: a fixed-lag smoother over the model's filter, and a leaving rate per
/// room from how long the walks stayed in it.
@Suite struct SiteModelSmoothingTests {
    private let beacon = BeaconID(rawValue: "b1")

    /// A walk A (30 s) → B (30 s) → A (10 s) heard by `a` in A and `b` in B.
    private func model(_ parameters: SiteModelParameters = .default) -> SiteModel {
        var learner = SiteModelLearner(parameters: parameters)
        var measurements: [SiteModelLearner.Measurement] = []
        var truth: [TruthSample] = []
        for second in 0..<70 {
            let inA = second < 30 || second >= 60
            for (offset, node) in [("a", "A", inA ? -60.0 : -80), ("b", "B", inA ? -80.0 : -60)].enumerated() {
                measurements.append(.init(time: Instant(seconds: Double(second) + 0.1 * Double(offset)), evidence: NodeEvidence(
                    beacon: beacon, node: node.0, room: node.1, rssiFiltered: node.2, sigma: 1, distance: 2, proximity: .near)))
            }
            truth.append(TruthSample(time: Instant(seconds: Double(second)), beacon: beacon, room: inA ? "A" : "B"))
        }
        learner.add(measurements: measurements, truth: truth)
        return learner.model()!
    }

    /// The rooms a filter decides over a replay where the beacon sits in A, looks like B for
    /// `blip` seconds from 20 s, sits in A again, and moves to B for good at 40 s; with the time each
    /// room was first decided.
    private func decided(_ model: SiteModel, blip: Double, looks: (a: Double, b: Double) = (-80, -60)) -> [(room: String, at: Double)] {
        var filter = SiteModelFilter(model: model)
        var rooms: [(room: String, at: Double)] = []
        var time = 0.0
        while time < 60 {
            let inBlip = time >= 20 && time < 20 + blip
            let inA = time < 40 && !inBlip
            filter.observe(node: model.nodeIndex("a")!, rssi: inBlip ? looks.a : inA ? -60 : -80, at: Instant(seconds: time))
            filter.observe(node: model.nodeIndex("b")!, rssi: inBlip ? looks.b : inA ? -80 : -60, at: Instant(seconds: time + 0.05))
            if let room = filter.decidedRoom(), rooms.last?.room != model.rooms[room] {
                rooms.append((model.rooms[room], time))
            }
            time += 0.1
        }
        return rooms
    }

    /// What the smoother can and cannot do (issue 36, fourth round): a half-second stretch of
    /// readings that lean towards B is decided B by the forward filter but not by the smoother; a
    /// stretch that looks clearly like B is decided B by both (the later evidence does not outweigh
    /// it), and a real move is decided the lag later.
    @Test func aWeakBriefStretchIsSmoothedAwayAStrongOneIsNot() {
        var parameters = SiteModelParameters.default
        parameters.smoothingLag = 1.5
        let weak = (a: -72.0, b: -68.0), strong = (a: -76.0, b: -64.0)
        #expect(decided(model(), blip: 0.5, looks: weak).map(\.room) == ["A", "B", "A", "B"])
        #expect(decided(model(parameters), blip: 0.5, looks: weak).map(\.room) == ["A", "B"])
        #expect(decided(model(parameters), blip: 0.5, looks: strong).map(\.room) == ["A", "B", "A", "B"])
        let forward = decided(model(), blip: 0, looks: weak).last!.at
        let smoothed = decided(model(parameters), blip: 0, looks: weak).last!.at
        #expect(forward > 40 && forward < 40.5)
        #expect(abs(smoothed - forward - 1.5) < 0.2)
    }

    @Test func theWalksStaysAreLearnedAndKeptInTheFile() throws {
        let model = model()
        // A: visits of 30 s and 9 s (the last row ends the walk); B: one of 30 s.
        #expect(model.stays == [19.5, 30])
        let text = model.json
        #expect(text.contains(#""samples": "#) && text.contains(#""stay": 19.5, "neighbours": ["B"], "nodes""#))
        #expect(try SiteModel(json: Array(text.utf8)).stays == model.stays)
        var parameters = model.parameters
        #expect(model.leavingRates == [1, 1])
        parameters.stayRateExponent = 1
        var rated = model
        rated.parameters = parameters
        // Each room's rate against the typical stay (√(19.5·30)): the shorter stay left sooner.
        let typical = (19.5 * 30.0).squareRoot()
        #expect(zip(rated.leavingRates, [typical / 19.5, typical / 30]).allSatisfy { abs($0 - $1) < 1e-9 })
    }
}
