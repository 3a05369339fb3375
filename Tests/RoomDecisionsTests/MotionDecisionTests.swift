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
        // The hold is off by default (it slows real departures); a site may set it.
        var with = RoomDecider(parameters: p)
        with.motionParameters.hold = 3
        let held = run(&with, beacon: "alice", rooms: ("hall", "office"), from: 0, to: 20, distances: fade) { t, d in
            if t == 0 { d.setMotion(room: "hall", occupied: true, at: Instant(seconds: t)) }
        }
        #expect(held.map(\.1) == ["hall"])
    }

    @Test("a second beacon in another room is never moved by the first one's motion")
    func motionIsShared() {
        // Alice walks hall → office at 10 s; the office sensor fires as she enters, clears, and
        // fires again at 15 s as she moves there. Bob sits in the kitchen, heard by the kitchen node
        // and the office node; at 15.25–16.25 s (in that onset's window, after Alice is placed in
        // the office) a fade puts the office 1.5 dB ahead for 1 s.
        var decider = RoomDecider(parameters: p)
        var bob: [(Double, String)] = []
        var alice: [(Double, String)] = []
        var t = 0.0
        while t <= 30 {
            let now = Instant(seconds: t)
            if t == 0 { decider.setMotion(room: "hall", occupied: true, at: now); decider.setMotion(room: "office", occupied: false, at: now); decider.setMotion(room: "kitchen", occupied: false, at: now) }
            if t == 11 { decider.setMotion(room: "office", occupied: true, at: now) }
            if t == 14 { decider.setMotion(room: "hall", occupied: false, at: now) }
            if t == 14.5 { decider.setMotion(room: "office", occupied: false, at: now) }
            if t == 15 { decider.setMotion(room: "office", occupied: true, at: now) }
            let (h, o) = walk(t)
            var inputs = [heard("hall-node", "hall", h, "alice"), heard("office-node", "office", o, "alice")]
            let bobFade = 15.25 <= t && t < 16.25
            inputs += [heard("kitchen-node", "kitchen", bobFade ? 4.0 : 2.0, "bob"), heard("office-node", "office", bobFade ? 3.5 : 7, "bob")]
            for e in inputs {
                if let d = decider.update(e, at: now) { if d.beacon == "bob" { bob.append((t, d.room)) } else { alice.append((t, d.room)) } }
            }
            for d in decider.tick(at: now) { if d.beacon == "bob" { bob.append((t, d.room)) } else { alice.append((t, d.room)) } }
            t += 0.25
        }
        #expect(alice.map(\.1) == ["hall", "office"])
        #expect((alice.last?.0 ?? .infinity) < 15, "Alice must be in the office before its onset: \(alice)")
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

    @Test("an onset older than a walk-in's few seconds no longer speeds a switch")
    func anOldOnsetDoesNotSpeed() {
        // Bob's fade towards the office at 10–11.25 s is long enough at half the dwell, not the whole.
        func bobDistances(_ t: Double) -> (Double, Double) { (10 <= t && t < 11.25) ? (8, 1.5) : (2.0, 7) }
        func decide(onset: Double) -> [String] {
            var decider = RoomDecider(parameters: p)
            return run(&decider, beacon: "bob", rooms: ("kitchen", "office"), from: 0, to: 20, distances: bobDistances) { t, d in
                if t == onset { d.setMotion(room: "office", occupied: true, at: Instant(seconds: t)) }
            }.map(\.1)
        }
        // Motion started as the fade began: perhaps Bob walking in; the fade is taken as a move.
        #expect(decide(onset: 9.5) == ["kitchen", "office", "kitchen"])
        // Motion started 5 s before (a sensor tripped through a doorway, still on): no speed-up.
        #expect(decide(onset: 5) == ["kitchen"])
    }

    @Test("a room whose sensor has seen nobody for long asks more of a switch into it")
    func quietRoomSlowsASwitch() throws {
        // Alice walks from the hall to the office between 40 and 43 s.
        let walk: (Double) -> (Double, Double) = { t in
            let x = min(max((t - 40) / 3, 0), 1)
            return (1.5 + 5 * x, 6.5 - 5 * x)
        }
        var without = RoomDecider(parameters: p)
        let plain = run(&without, beacon: "alice", rooms: ("hall", "office"), from: 0, to: 60, distances: walk)
        var with = RoomDecider(parameters: p)
        let quiet = run(&with, beacon: "alice", rooms: ("hall", "office"), from: 0, to: 60, distances: walk) { t, d in
            // The hall's sensor sees someone now and then (not quiet); the office's nobody.
            if t == 0 { d.setMotion(room: "office", occupied: false, at: Instant(seconds: t)) }
            if t.truncatingRemainder(dividingBy: 20) == 0 { d.setMotion(room: "hall", occupied: true, at: Instant(seconds: t)) }
            if t.truncatingRemainder(dividingBy: 20) == 5 { d.setMotion(room: "hall", occupied: false, at: Instant(seconds: t)) }
        }
        let slow = try #require(switchTime(quiet, to: "office"))
        let usual = try #require(switchTime(plain, to: "office"))
        #expect(slow > usual)
        #expect(quiet.map(\.1) == ["hall", "office"])
        // Both rooms quiet (nobody seen anywhere, or the hall without a sensor): the sensors say
        // nothing of where the beacon is, and the switch is as without them.
        for hallSensor in [true, false] {
            var both = RoomDecider(parameters: p)
            let still = run(&both, beacon: "alice", rooms: ("hall", "office"), from: 0, to: 60, distances: walk) { t, d in
                if t == 0 { d.setMotion(room: "office", occupied: false, at: Instant(seconds: t)) }
                if hallSensor, t == 0 { d.setMotion(room: "hall", occupied: false, at: Instant(seconds: t)) }
            }
            #expect(switchTime(still, to: "office") == usual, "hall sensor \(hallSensor): \(still)")
        }
    }

    @Test("motion that just started in a room does not move a beacon whose radio trails there")
    func onsetAloneMovesNobody() {
        // From 10 s the office node hears the beacon a little weaker than the hall's (1.65 m against
        // 1.5 m: about 1.1 dB behind); the office sensor fires at 11 s.
        func near(_ t: Double) -> (Double, Double) { t < 10 ? (1.5, 6.5) : (1.5, 1.65) }
        var decider = RoomDecider(parameters: p)
        let rooms = run(&decider, beacon: "alice", rooms: ("hall", "office"), from: 0, to: 12.5, distances: near) { t, d in
            if t == 0 { d.setMotion(room: "hall", occupied: true, at: Instant(seconds: t)) }
            if t == 11 { d.setMotion(room: "office", occupied: true, at: Instant(seconds: t)) }
        }.map(\.1)
        #expect(rooms == ["hall"])
    }

    @Test("an onset that confirms a challenge already running switches at once, and moves no other beacon")
    func confirmedOnsetSwitchesOnlyTheChallenger() throws {
        // Alice walks hall → office from 10 s: the office leads the hall's held score from 12.25 s
        // (13.75 s switch without motion). The office sensor fires at 12.5 s, her challenge running.
        // Bob sits in the kitchen, the office node hearing him 14 dB below the kitchen's: his radio
        // does not lean to the office.
        func decide(confirmed: Double, sensors: Bool) -> (alice: [(Double, String)], bob: [(Double, String)]) {
            var decider = RoomDecider(parameters: p)
            decider.motionParameters.confirmedOnsetFactor = confirmed
            var alice: [(Double, String)] = [], bob: [(Double, String)] = []
            var t = 0.0
            while t <= 20 {
                let now = Instant(seconds: t)
                if sensors, t == 0 { for room in ["hall", "office", "kitchen"] { decider.setMotion(room: room, occupied: room != "office", at: now) } }
                if sensors, t == 12.5 { decider.setMotion(room: "office", occupied: true, at: now) }
                let (h, o) = walk(t)
                let inputs = [heard("hall-node", "hall", h, "alice"), heard("office-node", "office", o, "alice"),
                              heard("kitchen-node", "kitchen", 2.0, "bob"), heard("office-node", "office", 7, "bob")]
                var changed = inputs.compactMap { decider.update($0, at: now) }
                changed += decider.tick(at: now)
                for d in changed { if d.beacon == "bob" { bob.append((t, d.room)) } else { alice.append((t, d.room)) } }
                t += 0.25
            }
            return (alice, bob)
        }
        // By default (0) the confirmed challenge needs nothing more; −1: the onset's half, as any other.
        #expect(MotionParameters.default.confirmedOnsetFactor == 0)
        let plain = decide(confirmed: 0, sensors: false)
        let halved = decide(confirmed: -1, sensors: true)
        let confirmed = decide(confirmed: 0, sensors: true)
        let usual = try #require(switchTime(plain.alice, to: "office"))
        let half = try #require(switchTime(halved.alice, to: "office"))
        let now = try #require(switchTime(confirmed.alice, to: "office"))
        #expect(now == 12.5, "the challenge confirmed by the onset switches at it: \(confirmed.alice)")
        #expect(now < half && half <= usual, "confirmed \(now) s, halved \(half) s, without motion \(usual) s")
        for run in [plain, halved, confirmed] {
            #expect(run.alice.map(\.1) == ["hall", "office"])
            #expect(run.bob.map(\.1) == ["kitchen"], "Bob moved: \(run.bob)")
        }
    }

    @Test("a sensor that stops counting takes its room back to deciding as without motion")
    func unavailableSensorCountsNoMore() {
        func fade(_ t: Double) -> (Double, Double) { (10 <= t && t < 13.5) ? (6, 2.5) : (1.5, 6.5) }
        var decider = RoomDecider(parameters: p)
        decider.motionParameters.hold = 3
        let changes = run(&decider, beacon: "alice", rooms: ("hall", "office"), from: 0, to: 20, distances: fade) { t, d in
            if t == 0 { d.setMotion(room: "hall", occupied: true, at: Instant(seconds: t)) }
            if t == 5 { d.setMotion(room: "hall", occupied: nil, at: Instant(seconds: t)) }
        }
        #expect(changes.map(\.1) == ["hall", "office", "hall"])
        #expect(decider.motion(of: "hall") == nil)
    }
}

/// The site model's motion weights, measured on labelled walks (`MotionWeights.measured`).
@Suite("Motion weights measured on labelled walks")
struct MotionWeightsTests {
    private func truth(_ spans: [(Double, Double, String)]) -> [TruthSample] {
        spans.flatMap { span in
            stride(from: span.0, to: span.1, by: 1).map { TruthSample(time: Instant(seconds: $0), beacon: "alice", room: span.2) }
        }
    }

    private func on(_ room: String, _ from: Double, _ to: Double) -> [MotionSample] {
        [MotionSample(time: Instant(seconds: from), room: room, occupied: true),
         MotionSample(time: Instant(seconds: to), room: room, occupied: false)]
    }

    @Test("a sensor that sees its own room's person weighs for that room, and its quiet against")
    func aSensorOfTheTrueRoomWeighsForIt() throws {
        // Alice in the hall for 100 s, then in the office: each room's sensor sees her there most of
        // the time, and the hall's catches her once through the doorway.
        let walk = truth([(0, 100, "hall"), (100, 200, "office")])
        let motion = (on("hall", 1, 70) + on("office", 101, 170) + on("hall", 150, 155)).sorted { $0.time < $1.time }
        let weights = try #require(MotionWeights.measured([(walk, motion)]))
        #expect(weights.active > 1, "\(weights)")
        #expect(weights.quiet < -1, "\(weights)")
        #expect(weights.seconds == 200)
    }

    @Test("a sensor on wherever the person is says nothing")
    func aSensorOnEverywhereWeighsNothing() throws {
        let walk = truth([(0, 100, "hall"), (100, 200, "office")])
        let motion = (on("hall", 0, 200) + on("office", 0, 200)).sorted { $0.time < $1.time }
        let weights = try #require(MotionWeights.measured([(walk, motion)]))
        #expect(abs(weights.active) < 0.05, "\(weights)")
    }

    @Test("walks without sensors measure nothing: the model then weighs by the issue's figures")
    func noSensorsNoWeights() {
        #expect(MotionWeights.measured([(truth([(0, 100, "hall")]), [])]) == nil)
        let issue = MotionWeights(.default)
        #expect(issue.active == MotionParameters.default.modelMotion && issue.quiet == -MotionParameters.default.modelQuiet)
    }
}
