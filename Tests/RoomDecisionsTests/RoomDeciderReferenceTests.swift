import BeaconCore
import RoomDecisions
import TestSupport
import Testing

/// The room decision with interned names, slots and partial re-scoring must decide exactly as the
/// straightforward string-keyed version did (`ReferenceRoomDecider`): same decisions, at the same
/// calls, with the same distances, confidences and candidates, bit for bit.
@Suite("RoomDecider against the reference")
struct RoomDeciderReferenceTests {
    static let nodes: [(node: String, room: String)] = [
        ("kitchen-1", "kitchen"), ("kitchen-2", "kitchen"), ("hall-1", "hall"), ("hall-2", "hall"),
        ("office-1", "office"), ("a-node-with-a-name-longer-than-fifteen-bytes", "a-room-with-a-long-name"),
    ]

    @Test("a seeded random stream of evidence, silences, node statuses, ticks and forgets: identical decisions",
          arguments: [UInt64(1), 2, 3, 0xFEED])
    func randomStreamMatchesTheReference(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let parameters = RoomDecisionParameters(pathLossExponent: 2.5, staleAfter: 20, awayTimeout: 8)
        var reference = ReferenceRoomDecider(parameters: parameters)
        var byID = RoomDecider(parameters: parameters)
        var bySlot = RoomDecider(parameters: parameters)
        let beacons = (0..<12).map { BeaconID(rawValue: "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-1-\($0)") }
        // Each beacon wanders between rooms; its nearest node is in its current room.
        var home = beacons.map { _ in Int.random(in: 0..<Self.nodes.count, using: &random) }
        var time = 0.0
        var decisions = 0

        for step in 0..<30_000 {
            time += Double.random(in: 0...0.25, using: &random)
            let at = Instant(seconds: time)
            let roll = Int.random(in: 0..<1000, using: &random)
            if roll < 5 {
                // Nodes go offline and come back.
                let node = Self.nodes[Int.random(in: 0..<Self.nodes.count, using: &random)].node
                let online = Bool.random(using: &random)
                let expected = reference.setNodeStatus(node: node, online: online, at: at)
                #expect(byID.setNodeStatus(node: node, online: online, at: at) == expected, "step \(step)")
                #expect(bySlot.setNodeStatus(node: node, online: online, at: at) == expected, "step \(step)")
                decisions += expected.count
            } else if roll < 120 {
                let expected = reference.tick(at: at)
                #expect(byID.tick(at: at) == expected, "step \(step)")
                #expect(bySlot.tick(at: at) == expected, "step \(step)")
                decisions += expected.count
            } else if roll < 123 {
                let beacon = beacons[Int.random(in: 0..<beacons.count, using: &random)]
                reference.forget(beacon: beacon)
                byID.forget(beacon: beacon)
                bySlot.forget(beacon: beacon)
            } else {
                let index = Int.random(in: 0..<beacons.count, using: &random)
                if Int.random(in: 0..<200, using: &random) == 0 { home[index] = Int.random(in: 0..<Self.nodes.count, using: &random) }
                let nodeIndex = Int.random(in: 0..<Self.nodes.count, using: &random)
                var (node, room) = Self.nodes[nodeIndex]
                // Now and then a node is moved to another room by its configuration.
                if nodeIndex == 5, Int.random(in: 0..<50, using: &random) == 0 { room = "hall" }
                let distance: Double?
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<8: distance = nil  // silence
                case 8: distance = [Double.nan, -1, .infinity][Int.random(in: 0..<3, using: &random)]
                default:
                    let base = nodeIndex == home[index] ? 1.0 : 3.0 + Double(abs(nodeIndex - home[index]))
                    distance = base * Double.random(in: 0.6...1.6, using: &random)
                }
                let evidence = NodeEvidence(
                    beacon: beacons[index], node: node, room: room, rssiFiltered: -70, sigma: 2, distance: distance,
                    proximity: distance == nil ? .unknown : (distance! < 1 ? .immediate : .near))
                let expected = reference.update(evidence, at: at)
                #expect(byID.update(evidence, at: at) == expected, "step \(step)")
                // As AggregatorCore does: a slot for anything heard, none made by a silence.
                let slot = evidence.isSilence ? bySlot.slot(of: evidence.beacon) : bySlot.addSlot(for: evidence.beacon)
                if let slot {
                    #expect(bySlot.update(evidence, in: slot, at: at) == expected, "step \(step)")
                } else {
                    #expect(expected == nil, "step \(step)")
                }
                if expected != nil { decisions += 1 }
            }
            if step % 250 == 0 {
                for beacon in beacons {
                    let expected = reference.decision(for: beacon)
                    #expect(byID.decision(for: beacon) == expected, "step \(step)")
                    #expect(bySlot.decision(for: beacon) == expected, "step \(step)")
                    if let slot = bySlot.slot(of: beacon) { checkSummary(bySlot, slot) }
                }
                #expect(byID.decidedBeacons == reference.decidedBeacons)
                #expect(bySlot.decidedBeacons == reference.decidedBeacons)
            }
        }
        // The stream exercised the decider: decisions, not a run of nils.
        #expect(decisions > 100)
    }

    @Test("a beacon heard by 40 nodes in 20 rooms decides as the reference does, and a copy of the decider is its own")
    func manyNodesAndCopies() {
        var random = SeededRandom(seed: 40)
        let parameters = RoomDecisionParameters(pathLossExponent: 2.5, staleAfter: 20, awayTimeout: 8)
        var reference = ReferenceRoomDecider(parameters: parameters)
        var decider = RoomDecider(parameters: parameters)
        // More nodes than a beacon's first block of evidence holds: it grows while in use.
        let nodes = (0..<40).map { (node: "node-\($0)", room: "room-\($0 % 20)") }
        let beacons = (0..<3).map { BeaconID(rawValue: "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-2-\($0)") }
        var home = beacons.map { _ in Int.random(in: 0..<nodes.count, using: &random) }
        var time = 0.0
        var decisions = 0
        for step in 0..<20_000 {
            time += Double.random(in: 0...0.05, using: &random)
            let at = Instant(seconds: time)
            if step % 100 == 0 {
                let expected = reference.tick(at: at)
                #expect(decider.tick(at: at) == expected, "step \(step)")
                decisions += expected.count
            }
            if step % 1_000 == 500 {
                // A copy taken now and then sent elsewhere: the original must not notice.
                var copy = decider
                for (node, room) in nodes {
                    for beacon in beacons {
                        _ = copy.update(NodeEvidence(beacon: beacon, node: node, room: room, rssiFiltered: -70, sigma: 2,
                                                     distance: node == nodes[7].node ? 0.5 : nil,
                                                     proximity: node == nodes[7].node ? .immediate : .unknown), at: at)
                    }
                }
                _ = copy.tick(at: Instant(seconds: time + 60))
                for beacon in beacons { #expect(decider.decision(for: beacon) == reference.decision(for: beacon), "step \(step)") }
            }
            let index = Int.random(in: 0..<beacons.count, using: &random)
            if Int.random(in: 0..<300, using: &random) == 0 { home[index] = Int.random(in: 0..<nodes.count, using: &random) }
            let nodeIndex = Int.random(in: 0..<nodes.count, using: &random)
            let (node, room) = nodes[nodeIndex]
            let distance: Double? =
                Int.random(in: 0..<20, using: &random) == 0
                ? nil : (nodeIndex == home[index] ? 1.0 : 2.0 + Double(abs(nodeIndex - home[index])) / 4)
                    * Double.random(in: 0.7...1.4, using: &random)
            let evidence = NodeEvidence(
                beacon: beacons[index], node: node, room: room, rssiFiltered: -70, sigma: 2, distance: distance,
                proximity: distance == nil ? .unknown : .near)
            let expected = reference.update(evidence, at: at)
            #expect(decider.update(evidence, at: at) == expected, "step \(step)")
            if expected != nil { decisions += 1 }
        }
        #expect(decisions > 20)
    }

    /// `summary(in:)` shows what the decision shows.
    private func checkSummary(_ decider: RoomDecider, _ slot: RoomDecider.BeaconSlot) {
        let summary = decider.summary(in: slot)
        guard let decision = decider.decision(in: slot) else {
            #expect(!summary.isDecided)
            return
        }
        #expect(summary.roomCode.map { decider.roomName(code: $0) } == decision.room)
        #expect(summary.distance == decision.distance)
        #expect(summary.proximity == decision.proximity)
        #expect((summary.nodeCode == nil) == (decision.node == nil))
        #expect(summary.candidateRoomsExact)
        #expect(summary.candidateRooms.nonzeroBitCount == decision.candidates.count)
    }
}
