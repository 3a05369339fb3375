import BeaconCore
@testable import RoomDecisions
import TestSupport
import Testing

/// Each beacon's next change by time alone (issue 38): the live aggregator evaluates a beacon at
/// that moment instead of at the next tick after it. The time must be exact: an evaluation at it
/// makes the change, one a representable instant earlier does not.
@Suite("RoomDecider's due times")
struct RoomDeciderDueTimeTests {
    static let beacon = BeaconID(rawValue: "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-4-1")

    static func evidence(_ node: String, _ room: String, _ distance: Double?, beacon: BeaconID = beacon) -> NodeEvidence {
        NodeEvidence(beacon: beacon, node: node, room: room, rssiFiltered: -70, sigma: 2, distance: distance,
                     proximity: distance == nil ? .unknown : .near)
    }

    @Test("a switch whose dwell ends between two ticks is due when the dwell ends, and decided then")
    func switchIsDueWhenItsDwellEnds() throws {
        var decider = RoomDecider()
        decider.servesDueTimes = true
        _ = decider.update(Self.evidence("kitchen-1", "kitchen", 1), at: Instant(seconds: 0))
        _ = decider.update(Self.evidence("hall-1", "hall", 4), at: Instant(seconds: 0))
        // The settle time: placed at 1 s exactly, the due time of a new beacon.
        let placing = decider.nextDueTime()
        #expect(placing == Instant(seconds: 1))
        let placed = decider.decideDue(at: Instant(seconds: 1))
        #expect(placed.map(\.room) == ["kitchen"])
        for quarter in 5...40 { _ = decider.tick(at: Instant(seconds: Double(quarter) / 4)) }

        // A move at 10.1 s: the hall leads by more than the lead cap at once, so its dwell decides.
        let moved = 10.1
        _ = decider.update(Self.evidence("hall-1", "hall", 0.5), at: Instant(seconds: moved))
        _ = decider.update(Self.evidence("kitchen-1", "kitchen", 5), at: Instant(seconds: moved))
        let nextDue = decider.nextDueTime()
        let due = try #require(nextDue)
        #expect(abs(due.seconds - (moved + 1.5)) < 1e-9)
        // The ticks before it change nothing; the one after it (11.75 s) would have been 0.15 s late.
        var ticked = decider
        let early = ticked.tick(at: Instant(seconds: 11.5))
        let notYet = decider.decideDue(at: Instant(seconds: due.seconds.nextDown))
        #expect(early.isEmpty && notYet.isEmpty)
        let switched = decider.decideDue(at: due)
        #expect(switched.map(\.room) == ["hall"])
        #expect(switched.first?.since == due)
        let after = decider.nextDueTime()
        #expect(after == nil)
    }

    @Test("a challenger appears when the held score has fallen to it, and switches a dwell later")
    func challengerStartsWhenTheHeldScoreFalls() throws {
        var decider = RoomDecider()
        decider.servesDueTimes = true
        _ = decider.update(Self.evidence("kitchen-1", "kitchen", 1), at: Instant(seconds: 0))
        _ = decider.update(Self.evidence("hall-1", "hall", 4), at: Instant(seconds: 0))
        _ = decider.decideDue(at: Instant(seconds: 1))
        _ = decider.tick(at: Instant(seconds: 2))
        // The hall comes to 1.2 m and the kitchen goes to 5 m: the kitchen's held score (its 1 m)
        // falls at 4 dB/s, and the hall challenges only once it has fallen below the hall's score.
        _ = decider.update(Self.evidence("hall-1", "hall", 1.2), at: Instant(seconds: 5))
        _ = decider.update(Self.evidence("kitchen-1", "kitchen", 5), at: Instant(seconds: 5))
        let nextStart = decider.nextDueTime()
        let start = try #require(nextStart)
        #expect(start.seconds > 5 && start.seconds < 6)
        let started = decider.decideDue(at: start)
        #expect(started.isEmpty)
        let slot = try #require(decider.slot(of: Self.beacon))
        #expect(decider.states[slot.index].lists.challengeCount == 1)
        // The ticks (every 0.25 s) integrate its lead against the falling held score; each
        // evaluation re-computes the due time, and the switch falls between two ticks.
        var tick = 5.5
        // (A due time more than 30 s ahead is not kept: the ticks re-compute it.)
        while (decider.nextDueTime()?.seconds ?? .infinity) > tick, tick < 10 {
            let ticked = decider.tick(at: Instant(seconds: tick))
            #expect(ticked.isEmpty)
            tick += 0.25
        }
        let nextDue = decider.nextDueTime()
        let due = try #require(nextDue)
        #expect(due.seconds >= start.seconds + 1.5 && due.seconds > tick - 0.25 && due.seconds < tick)
        let switched = decider.decideDue(at: due)
        #expect(switched.map(\.room) == ["hall"])
        #expect(switched.first?.since == due)
    }

    @Test("random evidence: every due time is exact, and none is missed between inputs", arguments: [UInt64(3), 0xD0E])
    func dueTimesAreExact(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let nodes = [("kitchen-1", "kitchen"), ("kitchen-2", "kitchen"), ("hall-1", "hall"), ("office-1", "office")]
        let parameterSets = [
            RoomDecisionParameters(staleAfter: 1e6, awayTimeout: 1e6),
            RoomDecisionParameters(staleAfter: 1e6, awayTimeout: 1e6,
                                   rule: SwitchingRule(margin: 0.5, dwell: 2, evidenceToSwitch: 3, leadCap: 2)),
        ]
        var checked = 0
        var switches = 0
        for parameters in parameterSets {
            var decider = RoomDecider(parameters: parameters)
            decider.servesDueTimes = true
            var time = 100.0
            var nextTick = 100.25
            var home = 0
            for _ in 0..<3_000 {
                let next = time + Double.random(in: 0...1.2, using: &random)
                // What the service does between inputs: ticks every 0.25 s, and each due time as it falls.
                while true {
                    let due = decider.nextDueTime()?.seconds ?? .infinity
                    guard min(due, nextTick) <= next else { break }
                    guard due <= nextTick else {
                        _ = decider.tick(at: Instant(seconds: nextTick))
                        time = nextTick
                        nextTick += 0.25
                        continue
                    }
                    #expect(due > time, "a due time in the past")
                    let slot = try #require(decider.slot(of: Self.beacon))
                    let state = decider.states[slot.index]
                    // An instant earlier, an evaluation changes nothing...
                    var early = decider
                    early.tickEvaluatesEveryBeacon = true
                    let earlier = early.tick(at: Instant(seconds: due.nextDown))
                    #expect(earlier.isEmpty)
                    #expect(early.states[slot.index].lists.challengeCount == state.lists.challengeCount)
                    // ...at the due time it places, switches or starts a challenger.
                    let changed = decider.decideDue(at: Instant(seconds: due))
                    let after = decider.states[slot.index].lists.challengeCount
                    #expect(!changed.isEmpty || after > state.lists.challengeCount, "nothing happened at \(due)")
                    switches += changed.count
                    checked += 1
                    time = due
                }
                time = next
                if Int.random(in: 0..<12, using: &random) == 0 { home = Int.random(in: 0..<nodes.count, using: &random) }
                let index = Int.random(in: 0..<nodes.count, using: &random)
                let distance: Double? =
                    Int.random(in: 0..<40, using: &random) == 0
                    ? nil : (index == home ? 1.0 : 3.0) * Double.random(in: 0.7...1.4, using: &random)
                _ = decider.update(Self.evidence(nodes[index].0, nodes[index].1, distance), at: Instant(seconds: time))
            }
        }
        #expect(checked > 300, "\(checked) due times checked")
        #expect(switches > 50, "\(switches) switches at due times")
    }
}
