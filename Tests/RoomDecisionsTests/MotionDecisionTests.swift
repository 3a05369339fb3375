import BeaconCore
import RoomDecisions
import Testing

/// Motion as evidence in the room decision (issue 37): it speeds a switch into a room where motion
/// starts, holds a room where it continues, slows a switch into a quiet room, and never moves a
/// beacon by itself — a second beacon in another room stays where its radio puts it.
@Suite("Motion in the room decision")
struct MotionDecisionTests {
    let p = RoomDecisionParameters(pathLossExponent: 2.7)

    private func heard(_ node: String, _ room: String, _ distance: Double, _ beacon: BeaconID) -> NodeEvidence {
        NodeEvidence(beacon: beacon, node: node, room: room, rssiFiltered: -70, sigma: 1.5, distance: distance,
                     proximity: distance < 3 ? .near : .far)
    }

    /// Feeds a beacon's two rooms every 0.25 s from `from` to `to` with `distances(t)`; returns its
    /// decisions (time, room). `motion(t)` is called at each step first.
    private func run(_ decider: inout RoomDecider, beacon: BeaconID, rooms: (String, String), from: Double, to: Double,
                     distances: (Double) -> (Double, Double), motion: (Double, inout RoomDecider) -> Void = { _, _ in })
        -> [(Double, String)]
    {
        var changes: [(Double, String)] = []
        var t = from
        while t <= to + 1e-9 {
            motion(t, &decider)
            let (a, b) = distances(t)
            for e in [heard(rooms.0 + "-node", rooms.0, a, beacon), heard(rooms.1 + "-node", rooms.1, b, beacon)] {
                if let d = decider.update(e, at: Instant(seconds: t)) { changes.append((t, d.room)) }
            }
            for d in decider.tick(at: Instant(seconds: t)) where d.beacon == beacon { changes.append((t, d.room)) }
            t += 0.25
        }
        return changes
    }

    /// A walk from the hall to the office at t = 10: the office node's lead builds over 3 s.
    private func walk(_ t: Double) -> (Double, Double) {
        let x = min(max((t - 10) / 3, 0), 1)  // 0 in the hall, 1 in the office
        return (1.5 + 5 * x, 6.5 - 5 * x)
    }

    private func switchTime(_ changes: [(Double, String)], to room: String) -> Double? {
        changes.first { $0.1 == room }?.0
    }

    @Test("motion starting in the room walked into makes the switch faster")
    func onsetSpeedsTheSwitch() throws {
        var without = RoomDecider(parameters: p)
        let plain = run(&without, beacon: "alice", rooms: ("hall", "office"), from: 0, to: 20, distances: walk)
        var with = RoomDecider(parameters: p)
        let moved = run(&with, beacon: "alice", rooms: ("hall", "office"), from: 0, to: 20, distances: walk) { t, d in
            if t == 0 { d.setMotion(room: "office", occupied: false, at: Instant(seconds: t)); d.setMotion(room: "hall", occupied: true, at: Instant(seconds: t)) }
            if t == 11 { d.setMotion(room: "office", occupied: true, at: Instant(seconds: t)) }
        }
        let slow = try #require(switchTime(plain, to: "office"))
        let fast = try #require(switchTime(moved, to: "office"))
        #expect(fast < slow, "with motion \(fast) s, without \(slow) s")
        #expect(plain.map(\.1) == ["hall", "office"] && moved.map(\.1) == ["hall", "office"])
    }

    @Test("motion in the current room holds it through a fade that would otherwise switch")
    func motionHoldsThroughAFade() {
        // In the hall all along; at 10–13.5 s a body fade takes 16 dB off the hall node.
        func fade(_ t: Double) -> (Double, Double) { (10 <= t && t < 13.5) ? (6, 2.5) : (1.5, 6.5) }
        var without = RoomDecider(parameters: p)
        let plain = run(&without, beacon: "alice", rooms: ("hall", "office"), from: 0, to: 20, distances: fade)
        #expect(plain.map(\.1) == ["hall", "office", "hall"], "without motion the fade flaps: \(plain)")
        var with = RoomDecider(parameters: p)
        let held = run(&with, beacon: "alice", rooms: ("hall", "office"), from: 0, to: 20, distances: fade) { t, d in
            if t == 0 { d.setMotion(room: "hall", occupied: true, at: Instant(seconds: t)) }
        }
        #expect(held.map(\.1) == ["hall"])
    }

    @Test("a second beacon in another room is never moved by the first one's motion")
    func motionIsShared() {
        // Alice walks hall → office at 10 s; the office sensor fires as she enters, the hall's
        // while she leaves. Bob sits in the kitchen, heard by the kitchen node and the office node;
        // at 14–16 s (after Alice is placed in the office) a fade puts the office 1.5 dB ahead for 1 s.
        var decider = RoomDecider(parameters: p)
        var bob: [(Double, String)] = []
        var alice: [(Double, String)] = []
        var t = 0.0
        while t <= 30 {
            let now = Instant(seconds: t)
            if t == 0 { decider.setMotion(room: "hall", occupied: true, at: now); decider.setMotion(room: "office", occupied: false, at: now); decider.setMotion(room: "kitchen", occupied: false, at: now) }
            if t == 11 { decider.setMotion(room: "office", occupied: true, at: now) }
            if t == 14 { decider.setMotion(room: "hall", occupied: false, at: now) }
            let (h, o) = walk(t)
            var inputs = [heard("hall-node", "hall", h, "alice"), heard("office-node", "office", o, "alice")]
            let bobFade = 14.5 <= t && t < 15.5
            inputs += [heard("kitchen-node", "kitchen", bobFade ? 4.0 : 2.0, "bob"), heard("office-node", "office", bobFade ? 3.5 : 7, "bob")]
            for e in inputs {
                if let d = decider.update(e, at: now) { if d.beacon == "bob" { bob.append((t, d.room)) } else { alice.append((t, d.room)) } }
            }
            for d in decider.tick(at: now) { if d.beacon == "bob" { bob.append((t, d.room)) } else { alice.append((t, d.room)) } }
            t += 0.25
        }
        #expect(alice.map(\.1) == ["hall", "office"])
        #expect(bob.map(\.1) == ["kitchen"], "Bob moved: \(bob)")
    }

    @Test("the onset of a room where another beacon already is does not speed a switch into it")
    func explainedMotionDoesNotPull() {
        // Bob's fade lasts long enough to switch at half the dwell (1.25 s of a 3 dB lead), not the whole.
        func bobDistances(_ t: Double) -> (Double, Double) { (10 <= t && t < 11.25) ? (8, 1.5) : (2.0, 7) }
        func decide(aliceInOffice: Bool) -> [(Double, String)] {
            var decider = RoomDecider(parameters: p)
            if aliceInOffice {
                _ = run(&decider, beacon: "alice", rooms: ("hall", "office"), from: 0, to: 2) { _ in (6, 1.5) }
            }
            return run(&decider, beacon: "bob", rooms: ("kitchen", "office"), from: 2.25, to: 20, distances: bobDistances) { t, d in
                if t == 9.5 { d.setMotion(room: "office", occupied: true, at: Instant(seconds: t)) }
            }
        }
        // Nobody in the office: the onset is Bob's to explain, and the fade moves him there.
        #expect(decide(aliceInOffice: false).map(\.1) == ["kitchen", "office", "kitchen"])
        // Alice is in the office: her motion, not Bob's; he stays.
        #expect(decide(aliceInOffice: true).map(\.1) == ["kitchen"])
    }

    @Test("a room whose sensor has seen nobody for long asks more of a switch into it")
    func quietRoomSlowsASwitch() throws {
        var without = RoomDecider(parameters: p)
        let plain = run(&without, beacon: "alice", rooms: ("hall", "office"), from: 0, to: 60) { t in
            let x = min(max((t - 40) / 3, 0), 1)
            return (1.5 + 5 * x, 6.5 - 5 * x)
        }
        var with = RoomDecider(parameters: p)
        let quiet = run(&with, beacon: "alice", rooms: ("hall", "office"), from: 0, to: 60) { t in
            let x = min(max((t - 40) / 3, 0), 1)
            return (1.5 + 5 * x, 6.5 - 5 * x)
        } motion: { t, d in
            if t == 0 { d.setMotion(room: "office", occupied: false, at: Instant(seconds: t)) }
        }
        let slow = try #require(switchTime(quiet, to: "office"))
        let usual = try #require(switchTime(plain, to: "office"))
        #expect(slow > usual)
        #expect(quiet.map(\.1) == ["hall", "office"])
    }

    @Test("a sensor that stops counting takes its room back to deciding as without motion")
    func unavailableSensorCountsNoMore() {
        func fade(_ t: Double) -> (Double, Double) { (10 <= t && t < 13.5) ? (6, 2.5) : (1.5, 6.5) }
        var decider = RoomDecider(parameters: p)
        let changes = run(&decider, beacon: "alice", rooms: ("hall", "office"), from: 0, to: 20, distances: fade) { t, d in
            if t == 0 { d.setMotion(room: "hall", occupied: true, at: Instant(seconds: t)) }
            if t == 5 { d.setMotion(room: "hall", occupied: nil, at: Instant(seconds: t)) }
        }
        #expect(changes.map(\.1) == ["hall", "office", "hall"])
        #expect(decider.motion(of: "hall") == nil)
    }
}
