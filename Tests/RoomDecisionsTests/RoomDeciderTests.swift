import BeaconCore
import RoomDecisions
import TestSupport
import Foundation
import Testing

private func evidence(_ node: String, _ room: String, distance: Double, beacon: BeaconID = "keys") -> NodeEvidence {
    NodeEvidence(beacon: beacon, node: node, room: room, rssiFiltered: -70, sigma: 1.5, distance: distance,
                 proximity: distance < 3 ? .near : .far)
}

/// What a node publishes when it stops hearing the beacon.
private func silence(_ node: String, _ room: String, beacon: BeaconID = "keys") -> NodeEvidence {
    NodeEvidence(beacon: beacon, node: node, room: room, rssiFiltered: -80, sigma: 2, distance: nil, proximity: .unknown)
}

/// A deterministic generator for noise (SplitMix64).
private typealias SeededGenerator = SeededRandom

@Suite("RoomDecider")
struct RoomDeciderTests {
    /// The defaults, with n pinned to 2.7 so the dB figures below do not move with the agent's calibration.
    let p = RoomDecisionParameters(pathLossExponent: 2.7)

    @Test("deciding starts one settle time after the first evidence, with distance, node, candidates and confidence")
    func firstDecision() throws {
        var decider = RoomDecider(parameters: p)
        #expect(decider.update(evidence("k1", "kitchen", distance: 1.5), at: Instant(seconds: 0)) == nil)
        #expect(decider.decision(for: "keys") == nil)
        #expect(decider.tick(at: Instant(seconds: p.settleTime - 0.01)).isEmpty)
        let started = decider.tick(at: Instant(seconds: p.settleTime))
        let first = try #require(started.first)
        #expect(started.count == 1)
        #expect(first.room == "kitchen")
        #expect(first.distance == 1.5)
        #expect(first.node == "k1")
        #expect(first.since == Instant(seconds: p.settleTime))
        #expect(first.confidence == 1) // no other room heard
        #expect(decider.update(evidence("h1", "hall", distance: 6), at: Instant(seconds: 1.2)) == nil)
        let now = try #require(decider.decision(for: "keys"))
        #expect(now.candidates == ["kitchen": 1.5, "hall": 6])
        // Kitchen leads by 27·log10(6/1.5) = 16.3 dB: confidence 1 − 10^(−1.63) ≈ 0.977.
        #expect(abs(now.confidence - 0.9766) < 0.001)
    }

    @Test("the settle time lets every node report before deciding starts: no flap from the first node's word")
    func settleAvoidsFirstNodeFlap() {
        var decider = RoomDecider(parameters: p)
        var rooms: [String] = []
        for step in 0..<20 {
            let t = Double(step) * 0.25
            // The far kitchen node happens to report first in every round.
            for e in [evidence("k1", "kitchen", distance: 8), evidence("h1", "hall", distance: 1.5)] {
                if let d = decider.update(e, at: Instant(seconds: t + (e.node == "h1" ? 0.01 : 0))) { rooms.append(d.room) }
            }
        }
        #expect(rooms == ["hall"])
    }

    @Test("a clear move switches after the dwell, not before")
    func clearMove() {
        var decider = RoomDecider(parameters: p)
        var switches: [(Double, String)] = []
        for step in 0..<80 {  // 40 s, each node reporting every 0.5 s
            let t = Double(step) * 0.5
            let moved = t >= 20
            for (node, room, near) in [("k1", "kitchen", !moved), ("h1", "hall", moved)] {
                if let d = decider.update(evidence(node, room, distance: near ? 1.2 : 7), at: Instant(seconds: t)) {
                    switches.append((t, d.room))
                }
            }
        }
        #expect(switches.map(\.1) == ["kitchen", "hall"])
        let switchTime = switches.last?.0 ?? 0
        #expect(switchTime >= 20 + p.rule.dwell)
        #expect(switchTime <= 20 + p.rule.dwell + 0.5)
    }

    /// The rooms decided while a kitchen node (2 m) and a hall node (3 m) report every 0.25 s for
    /// 20 s, and from 5 s on the kitchen node's evidence is `kitchenAfter` metres for `lasting`
    /// seconds (then 2 m again) while the hall node's is `hallAfter` metres.
    private func rooms(_ parameters: RoomDecisionParameters, kitchenAfter: Double, hallAfter: Double,
                       lasting: Double) -> [(Double, String)] {
        var decider = RoomDecider(parameters: parameters)
        var rooms: [(Double, String)] = []
        for step in 0..<80 {
            let t = Double(step) * 0.25
            let changed = t >= 5 && t < 5 + lasting
            for (node, room, distance) in [("k1", "kitchen", changed ? kitchenAfter : 2), ("h1", "hall", changed ? hallAfter : 3)] {
                if let d = decider.update(evidence(node, room, distance: distance), at: Instant(seconds: t)) { rooms.append((t, d.room)) }
            }
        }
        return rooms
    }

    @Test("a deep, brief fade of the current room's node keeps the room; held no longer than a fade, the drop is a move")
    func fadeIsHeldMoveIsNot() {
        // A body between the tag and the kitchen node: 15 dB (2 m → 7.2 m at n = 2.7) for 2 s.
        let fade = 2 * pow10(15 / 27.0)
        #expect(rooms(p, kitchenAfter: fade, hallAfter: 3, lasting: 2).map(\.1) == ["kitchen"])
        // Without the hold (the rule before issue 26, margin 0) the same fade hands the room to the hall
        // after the dwell, and it comes back: two flaps.
        var unheld = p
        unheld.rule.fallRate = .infinity
        #expect(rooms(unheld, kitchenAfter: fade, hallAfter: 3, lasting: 2).map(\.1) == ["kitchen", "hall", "kitchen"])
        // A move: the kitchen falls and stays down while the hall rises. The hall's lead over the
        // held kitchen is immediate (the hall rose 9.5 dB above where the kitchen was), so the
        // switch comes after the dwell as before.
        let moved = rooms(p, kitchenAfter: fade, hallAfter: 1.2, lasting: 15)
        #expect(moved.map(\.1) == ["kitchen", "hall"])
        #expect(moved.count == 2 && moved[1].0 <= 5 + p.rule.dwell + 0.25)
        // The kitchen merely dropping for good (nothing rises): the hold lets it fall 4 dB/s, so
        // the hall (4.75 dB behind) takes over about 4.75 / 4 s later than after a move.
        let faded = rooms(p, kitchenAfter: fade, hallAfter: 3, lasting: 15)
        #expect(faded.map(\.1) == ["kitchen", "hall"])
        #expect(faded.count == 2 && faded[1].0 > 5 + p.rule.dwell + 0.5 && faded[1].0 <= 5 + 4.75 / p.rule.fallRate + p.rule.dwell + 0.5)
    }

    @Test("a beacon sitting still with noisy evidence does not flap (a decider without hysteresis does)")
    func sitStillNoNoiseFlaps() {
        var generator = SeededGenerator(seed: 42)
        var decider = RoomDecider(parameters: p)
        var eager = RoomDecider(parameters: RoomDecisionParameters(pathLossExponent: 2.7, rule: SwitchingRule(margin: 0, dwell: 0, evidenceToSwitch: 0)))
        var changes = 0, eagerChanges = 0
        // Kitchen node ~3 m, hall node ~4 m: 3.4 dB apart, filtered evidence with σ ≈ 1.5 dB each.
        for step in 0..<2400 {  // 10 minutes at 4 reports per second
            let t = Double(step) * 0.25
            let node = step % 2 == 0 ? ("k1", "kitchen", 3.0) : ("h1", "hall", 4.0)
            let noise = 1.5 * generator.gaussian()
            let distance = node.2 * pow10(noise / 27)
            let e = evidence(node.0, node.1, distance: distance)
            if decider.update(e, at: Instant(seconds: t)) != nil { changes += 1 }
            if eager.update(e, at: Instant(seconds: t)) != nil { eagerChanges += 1 }
        }
        #expect(changes == 1) // deciding started, nothing else
        #expect(decider.decision(for: "keys")?.room == "kitchen")
        #expect(eagerChanges > 10)
    }

    @Test("a node going offline is ignored; its room loses at once when it was the only voice")
    func nodeOffline() throws {
        var decider = RoomDecider(parameters: p)
        _ = decider.update(evidence("k1", "kitchen", distance: 1), at: Instant(seconds: 0))
        _ = decider.update(evidence("h1", "hall", distance: 5), at: Instant(seconds: 0.1))
        #expect(decider.tick(at: Instant(seconds: 0.5)).isEmpty)
        #expect(decider.tick(at: Instant(seconds: 0.9)).isEmpty)
        #expect(decider.update(evidence("k1", "kitchen", distance: 1), at: Instant(seconds: 1))?.room == "kitchen")
        // Kitchen cannot be defended any more; hall takes over after the dwell (not at once, so
        // that nodes reporting a vanished beacon one by one do not flip the room).
        #expect(decider.setNodeStatus(node: "k1", online: false, at: Instant(seconds: 1)).isEmpty)
        #expect(decider.tick(at: Instant(seconds: 1 + p.rule.dwell - 0.1)).isEmpty)
        #expect(decider.tick(at: Instant(seconds: 1 + p.rule.dwell)).map(\.room) == ["hall"])
        #expect(decider.isOffline(node: "k1"))
        // Measurements still arriving from the offline node (e.g. a stale retained message) count for nothing.
        for step in 0..<20 {
            #expect(decider.update(evidence("k1", "kitchen", distance: 0.5), at: Instant(seconds: 2 + Double(step))) == nil)
        }
        #expect(decider.decision(for: "keys")?.candidates == ["hall": 5])
        // Back online: its evidence counts again, and kitchen wins after the dwell.
        #expect(decider.setNodeStatus(node: "k1", online: true, at: Instant(seconds: 30)).isEmpty)
        var room = "hall"
        for step in 0..<20 {
            let t = 30 + Double(step) * 0.5
            for e in [evidence("h1", "hall", distance: 5), evidence("k1", "kitchen", distance: 1)] {
                if let d = decider.update(e, at: Instant(seconds: t)) { room = d.room }
            }
        }
        #expect(room == "kitchen")
    }

    @Test("a beacon that vanishes: its nodes report unknown, the room holds, not_home one away timeout later, back at once")
    func vanishGivesNotHome() throws {
        var decider = RoomDecider(parameters: p)
        _ = decider.update(evidence("k1", "kitchen", distance: 1), at: Instant(seconds: 5))
        _ = decider.update(evidence("h1", "hall", distance: 6), at: Instant(seconds: 5.2))
        #expect(decider.tick(at: Instant(seconds: 6)).map(\.room) == ["kitchen"])
        // Battery dies at 6 s: the nodes say unknown 5 s later, one after the other.
        #expect(decider.update(silence("k1", "kitchen"), at: Instant(seconds: 11.2)) == nil)
        #expect(decider.decision(for: "keys")?.candidates == ["hall": 6])
        #expect(decider.update(silence("h1", "hall"), at: Instant(seconds: 11.6)) == nil)
        // No flip to hall (whose node spoke last): nobody hears the beacon, the room holds…
        #expect(decider.tick(at: Instant(seconds: 11.6 + p.awayTimeout - 0.1)).isEmpty)
        #expect(decider.decision(for: "keys")?.room == "kitchen")
        // …until the away timeout after the last node went unknown.
        let away = decider.tick(at: Instant(seconds: 11.6 + p.awayTimeout))
        #expect(away.map(\.room) == [RoomDecision.notHome])
        #expect(away.first?.distance == nil)
        #expect(away.first?.confidence == 0)
        #expect(decider.tick(at: Instant(seconds: 100)).isEmpty) // once
        #expect(decider.update(evidence("h1", "hall", distance: 2), at: Instant(seconds: 120)) == nil)
        let back = try #require(decider.tick(at: Instant(seconds: 120 + p.settleTime)).first)
        #expect(back.room == "hall")
        #expect(back.since == Instant(seconds: 121))
    }

    @Test("a still beacon heard by two nodes publishing once a minute stays put for an hour: no flap, no not_home")
    func stillBeaconHeartbeatsOnly() {
        var decider = RoomDecider(parameters: p)
        var changes: [String] = []
        var t = 0.0
        while t < 3600 {
            for second in 0..<60 {
                let at = Instant(seconds: t + Double(second))
                // Each node publishes its heartbeat once a minute, 20 s out of phase.
                if second == 0, let d = decider.update(evidence("k1", "kitchen", distance: 2), at: at) { changes.append(d.room) }
                if second == 20, let d = decider.update(evidence("h1", "hall", distance: 5), at: at) { changes.append(d.room) }
                changes += decider.tick(at: at).map(\.room)
            }
            t += 60
        }
        #expect(changes == ["kitchen"])
        #expect(decider.decision(for: "keys")?.candidates == ["kitchen": 2, "hall": 5])
    }

    @Test("a lost unknown is caught by staleAfter (from now); then not_home one away timeout later")
    func staleSafetyNet() {
        var decider = RoomDecider(parameters: p)
        _ = decider.update(evidence("k1", "kitchen", distance: 1), at: Instant(seconds: 0))
        _ = decider.update(evidence("h1", "hall", distance: 4), at: Instant(seconds: 0))
        #expect(decider.tick(at: Instant(seconds: 1)).map(\.room) == ["kitchen"])
        // k1's unknown is lost; h1 keeps its heartbeat. Kitchen's evidence goes stale at 150 s and
        // hall takes over after the dwell.
        var switchedAt: Double?
        for second in 2...200 {
            let at = Instant(seconds: Double(second))
            if second % 60 == 0, let d = decider.update(evidence("h1", "hall", distance: 4), at: at), d.room == "hall" {
                switchedAt = switchedAt ?? Double(second)
            }
            for d in decider.tick(at: at) where d.room == "hall" { switchedAt = switchedAt ?? Double(second) }
        }
        #expect(switchedAt.map { $0 > p.staleAfter && $0 <= p.staleAfter + p.rule.dwell + 2 } == true)
        // h1's unknown is lost too: stale at 180 + 150 s, not_home 30 s later.
        var awayAt: Double?
        for second in 201...400 {
            for d in decider.tick(at: Instant(seconds: Double(second))) where d.room == RoomDecision.notHome { awayAt = Double(second) }
        }
        #expect(awayAt == 180 + p.staleAfter + p.awayTimeout)
    }

    @Test("a room's score is the mean of its nodes: more receivers in a room do not make it win")
    func moreReceiversDoNotWin() {
        var decider = RoomDecider(parameters: p)
        var rooms: [String] = []
        func feed(_ t: Double, secondKitchenNodeAt second: Double?) {
            var updates = [evidence("h1", "hall", distance: 2.5), evidence("k1", "kitchen", distance: 3)]
            if let second { updates.append(evidence("k2", "kitchen", distance: second)) }
            for e in updates {
                if let d = decider.update(e, at: Instant(seconds: t)) { rooms.append(d.room) }
            }
        }
        // Hall's node is nearer than the kitchen's: hall, however long it lasts.
        for step in 0..<20 { feed(Double(step) * 0.5, secondKitchenNodeAt: nil) }
        #expect(rooms == ["hall"])
        // A second kitchen node just as far: a sum would give the kitchen 3 dB more and the
        // beacon (0.85 dB over hall); the mean is unchanged, and hall stays.
        for step in 20..<40 { feed(Double(step) * 0.5, secondKitchenNodeAt: 3) }
        #expect(rooms == ["hall"])
        // That node now at 1.5 m: the kitchen's mean power leads hall by 1.6 dB, and it wins.
        for step in 40..<60 { feed(Double(step) * 0.5, secondKitchenNodeAt: 1.5) }
        #expect(rooms == ["hall", "kitchen"])
        #expect(decider.decision(for: "keys")?.node == "k2")
    }

    @Test("beacons are decided independently, and garbage evidence is ignored")
    func beaconsIndependentAndGarbageIgnored() {
        var decider = RoomDecider(parameters: p)
        _ = decider.update(evidence("k1", "kitchen", distance: 1, beacon: "a"), at: Instant(seconds: 0))
        _ = decider.update(evidence("h1", "hall", distance: 1, beacon: "b"), at: Instant(seconds: 0))
        #expect(decider.tick(at: Instant(seconds: 1)).map(\.beacon) == ["a", "b"])
        #expect(decider.update(evidence("h1", "hall", distance: .nan, beacon: "a"), at: Instant(seconds: 1)) == nil)
        #expect(decider.update(evidence("h1", "hall", distance: -1, beacon: "a"), at: Instant(seconds: 1)) == nil)
        #expect(decider.update(evidence("h1", "hall", distance: 1, beacon: "a"), at: Instant(seconds: .nan)) == nil)
        #expect(decider.decidedBeacons == ["a", "b"])
        #expect(decider.decision(for: "a")?.room == "kitchen")
        #expect(decider.decision(for: "b")?.room == "hall")
    }

    @Test("forget(beacon:) drops a beacon's state and frees its slot; heard again, it starts afresh")
    func forgetStartsAfresh() throws {
        var decider = RoomDecider(parameters: p)
        _ = decider.update(evidence("k1", "kitchen", distance: 1), at: Instant(seconds: 0))
        _ = decider.update(evidence("h1", "hall", distance: 1, beacon: "other"), at: Instant(seconds: 0))
        #expect(decider.tick(at: Instant(seconds: 1)).map(\.room) == ["kitchen", "hall"])
        #expect(decider.beaconCount == 2)
        let slot = try #require(decider.slot(of: "keys"))
        decider.forget(beacon: "keys")
        #expect(decider.beaconCount == 1)
        #expect(decider.slot(of: "keys") == nil)
        #expect(decider.decision(for: "keys") == nil)
        #expect(decider.decision(in: slot) == nil)
        #expect(decider.decidedBeacons == ["other"])
        // A silence does not bring it back; evidence does, as a beacon never seen: settle again.
        #expect(decider.update(silence("k1", "kitchen"), at: Instant(seconds: 2)) == nil)
        #expect(decider.beaconCount == 1)
        #expect(decider.update(evidence("h1", "hall", distance: 1), at: Instant(seconds: 3)) == nil)
        #expect(decider.slot(of: "keys") == slot)  // the freed slot is reused
        #expect(decider.tick(at: Instant(seconds: 3.9)).isEmpty)
        let back = try #require(decider.tick(at: Instant(seconds: 4)).first)
        #expect(back.room == "hall")
        #expect(back.since == Instant(seconds: 4))
        decider.forget(beacon: "keys")
        decider.forget(beacon: "other")
        decider.forget(beacon: "other")  // twice is harmless
        #expect(decider.beaconCount == 0)
        #expect(decider.slotCapacity == 0)
    }

    @Test("memory follows the beacons held: 10,000 beacons forgotten leave nothing behind")
    func memoryIsBoundedByForgetting() {
        var decider = RoomDecider(parameters: p)
        for round in 0..<10 {
            for index in 0..<1000 {
                let beacon = BeaconID(rawValue: "mac-\(round)-\(index)")
                _ = decider.update(evidence("k1", "kitchen", distance: 2, beacon: beacon), at: Instant(seconds: Double(round)))
            }
            #expect(decider.beaconCount == 1000)
            #expect(decider.slotCapacity == 1000)  // slots of forgotten beacons are reused
            for index in 0..<1000 { decider.forget(beacon: BeaconID(rawValue: "mac-\(round)-\(index)")) }
        }
        #expect(decider.beaconCount == 0)
    }

    @Test("slots under 40,000 random adds and forgets of ids of every length are what a dictionary would hold")
    func slotsMatchADictionary() {
        var decider = RoomDecider(parameters: p)
        var random = SeededGenerator(seed: 0x51075)
        // Short (inline) and long ids, non-ASCII ones, and ids sharing a long prefix as real ones do.
        let ids = (0..<3000).map { index -> BeaconID in
            switch index % 4 {
            case 0: BeaconID(rawValue: "m\(index)")
            case 1: BeaconID(rawValue: "ibeacon-494e5445-4c4c-495f-524f-434b535f4857-\(index)-\(index % 7)")
            case 2: BeaconID(rawValue: String(repeating: "é", count: index % 50) + "\(index)")
            default: BeaconID(rawValue: String(repeating: "x", count: index % 81) + "-\(index)")
            }
        }
        var expected: [BeaconID: Int] = [:]
        for _ in 0..<40_000 {
            let beacon = ids[Int.random(in: 0..<ids.count, using: &random)]
            if Int.random(in: 0..<3, using: &random) == 0 {
                decider.forget(beacon: beacon)
                expected[beacon] = nil
            } else {
                let slot = decider.addSlot(for: beacon).index
                if let known = expected[beacon] { #expect(slot == known) }
                expected[beacon] = slot
            }
            #expect(decider.beaconCount == expected.count)
        }
        for beacon in ids {
            #expect(decider.slot(of: beacon)?.index == expected[beacon])
            if let slot = expected[beacon] { #expect(decider.beacon(in: .init(index: slot)) == beacon) }
        }
        #expect(Set(expected.values).count == expected.count)
    }
}

private func pow10(_ x: Double) -> Double { pow(10, x) }
