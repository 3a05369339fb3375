import BeaconCore
import RoomDecisions
import TestSupport
import Testing

/// A tick evaluates only the beacons that time alone may change (issue 38); it must decide exactly
/// as a tick over every beacon: the same decisions at the same calls, bit for bit.
@Suite("RoomDecider's tick schedule")
struct RoomDeciderTickScheduleTests {
    static let nodes: [(node: String, room: String)] = [
        ("kitchen-1", "kitchen"), ("kitchen-2", "kitchen"), ("hall-1", "hall"), ("hall-2", "hall"),
        ("office-1", "office"), ("office-2", "office"),
    ]

    @Test("ticks every 0.25 s over 300 beacons that fade, move, fall silent and have their own away timeouts: identical decisions, few evaluated",
          arguments: [UInt64(7), 0xBEEF])
    func scheduledTicksDecideAsTicksOverEveryBeacon(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let parameters = RoomDecisionParameters(staleAfter: 20, awayTimeout: 8)
        var every = RoomDecider(parameters: parameters)
        every.tickEvaluatesEveryBeacon = true
        var scheduled = RoomDecider(parameters: parameters)
        let beacons = (0..<300).map { BeaconID(rawValue: "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-2-\($0)") }
        var home = beacons.map { _ in Int.random(in: 0..<Self.nodes.count, using: &random) }
        var time = 0.0
        var nextTick = 0.25
        var decisions = 0
        var ticks = 0
        var evaluated = 0

        for step in 0..<40_000 {
            time += Double.random(in: 0...0.01, using: &random)
            while nextTick <= time {
                let at = Instant(seconds: nextTick)
                let expected = every.tick(at: at)
                #expect(scheduled.tick(at: at) == expected, "tick at \(nextTick)")
                decisions += expected.count
                ticks += 1
                evaluated += scheduled.lastTickEvaluations
                nextTick += 0.25
            }
            let at = Instant(seconds: time)
            let roll = Int.random(in: 0..<1000, using: &random)
            let index = Int.random(in: 0..<beacons.count, using: &random)
            if roll < 2 {
                let node = Self.nodes[Int.random(in: 0..<Self.nodes.count, using: &random)].node
                let online = Bool.random(using: &random)
                #expect(scheduled.setNodeStatus(node: node, online: online, at: at)
                        == every.setNodeStatus(node: node, online: online, at: at), "step \(step)")
            } else if roll < 4 {
                every.forget(beacon: beacons[index])
                scheduled.forget(beacon: beacons[index])
            } else if roll < 6, let slot = every.slot(of: beacons[index]), let other = scheduled.slot(of: beacons[index]) {
                let seconds: Double? = Bool.random(using: &random) ? Double.random(in: 2...12, using: &random) : nil
                every.setAwayTimeout(seconds, for: slot)
                scheduled.setAwayTimeout(seconds, for: other)
            } else {
                if Int.random(in: 0..<300, using: &random) == 0 { home[index] = Int.random(in: 0..<Self.nodes.count, using: &random) }
                // Beacons 0..<30 are heard often; the rest now and then, or fall silent for a while.
                if index >= 30, Int.random(in: 0..<10, using: &random) > 0 { continue }
                let nodeIndex = Int.random(in: 0..<Self.nodes.count, using: &random)
                let (node, room) = Self.nodes[nodeIndex]
                let distance: Double?
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<6: distance = nil  // silence
                case 6..<16: distance = 8 * Double.random(in: 0.8...1.5, using: &random)  // a fade
                default:
                    let base = nodeIndex == home[index] ? 1.0 : 2.0 + Double(abs(nodeIndex - home[index]))
                    distance = base * Double.random(in: 0.8...1.25, using: &random)
                }
                let evidence = NodeEvidence(
                    beacon: beacons[index], node: node, room: room, rssiFiltered: -70, sigma: 2, distance: distance,
                    proximity: distance == nil ? .unknown : .near)
                #expect(scheduled.update(evidence, at: at) == every.update(evidence, at: at), "step \(step)")
            }
        }
        for beacon in beacons { #expect(scheduled.decision(for: beacon) == every.decision(for: beacon)) }
        #expect(decisions > 100)
        // Most beacons are quiet at most ticks: far fewer evaluated than the 300 a tick over all.
        #expect(Double(evaluated) / Double(ticks) < 100, "\(evaluated) evaluations in \(ticks) ticks")
    }

    @Test("with rooms' motion known, every beacon is evaluated and the decisions stay the same")
    func motionTicksEveryBeacon() {
        var every = RoomDecider()
        every.tickEvaluatesEveryBeacon = true
        var scheduled = RoomDecider()
        let beacon = BeaconID(rawValue: "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-3-1")
        for second in 0..<20 {
            let at = Instant(seconds: Double(second))
            let distance = second < 10 ? 1.0 : 4.0
            for (node, room, d) in [("kitchen-1", "kitchen", distance), ("hall-1", "hall", 5 - distance)] {
                let evidence = NodeEvidence(beacon: beacon, node: node, room: room, rssiFiltered: -70, sigma: 2,
                                            distance: d, proximity: .near)
                #expect(scheduled.update(evidence, at: at) == every.update(evidence, at: at))
            }
            if second == 5 {
                every.setMotion(room: "kitchen", occupied: true, at: at)
                scheduled.setMotion(room: "kitchen", occupied: true, at: at)
            }
            for quarter in 1...3 {
                let tick = Instant(seconds: Double(second) + Double(quarter) / 4)
                #expect(scheduled.tick(at: tick) == every.tick(at: tick))
            }
            if second > 5 { #expect(scheduled.lastTickEvaluations == 1) }
        }
        #expect(scheduled.decision(for: beacon) == every.decision(for: beacon))
    }
}
