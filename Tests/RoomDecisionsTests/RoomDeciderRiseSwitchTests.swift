import BeaconCore
import RoomDecisions
import Testing

/// The rise switch (issue 40, sixth round, `SwitchingRule.riseLead`): a node's rise report
/// (`NodeEvidence.riseRssi`, a worn beacon's adverts risen over their own recent mean) switches at
/// once when the level it rose to leads every other room's latest score by `riseLead` dB.
@Suite("RoomDecider rise switch")
struct RoomDeciderRiseSwitchTests {
    /// n = 2.7 and a dwell no test here waits out: only the rise switch can move the beacon.
    let p = RoomDecisionParameters(pathLossExponent: 2.7, rule: SwitchingRule(dwell: 30, evidenceToSwitch: 100, riseLead: 4))

    /// Kitchen's node at 2 m (−70 filtered) holds the tag; at 10 s the hall's node (3 m, −74.75
    /// filtered as a score) publishes once, with a rise report to `riseRssi`.
    func rooms(_ p: RoomDecisionParameters, riseRssi: Double?, worn: Bool = false) -> [(Double, String)] {
        var decider = RoomDecider(parameters: worn ? .default : p, wornRule: p.rule, wornRiseRule: nil)
        if worn { decider.setWorn(true, for: decider.addSlot(for: "tag")) }
        var rooms: [(Double, String)] = []
        for step in 0..<30 {
            let t = Double(step) * 0.5
            let kitchen = NodeEvidence(beacon: "tag", node: "k1", room: "kitchen", rssiFiltered: -70, sigma: 1.5,
                                       distance: 2, proximity: .near, rssi: -70)
            if let d = decider.update(kitchen, at: Instant(seconds: t)) { rooms.append((t, d.room)) }
            let hall = NodeEvidence(beacon: "tag", node: "h1", room: "hall", rssiFiltered: -75, sigma: 1.5, distance: 3,
                                    proximity: .near, rssi: -75, riseRssi: t == 10 ? riseRssi : nil)
            if let d = decider.update(hall, at: Instant(seconds: t + 0.01)) { rooms.append((t, d.room)) }
        }
        return rooms
    }

    @Test("a rise that leads the held room by the lead switches at once; one short of it does not")
    func riseLeadSwitches() {
        // Risen to −65: as a score 10 dB over its filtered −75, so 5.25 dB over the kitchen's.
        #expect(rooms(p, riseRssi: -65).map { "\($0.0) \($0.1)" } == ["1.0 kitchen", "10.0 hall"])
        // Risen to −67: 3.25 dB over the kitchen, under the 4 dB asked.
        #expect(rooms(p, riseRssi: -67).map(\.1) == ["kitchen"])
    }

    @Test("without riseLead, or without a report, the same measurements switch nothing")
    func offOrNoReport() {
        var off = p
        off.rule.riseLead = .infinity
        #expect(rooms(off, riseRssi: -65).map(\.1) == ["kitchen"])
        #expect(rooms(p, riseRssi: nil).map(\.1) == ["kitchen"])
    }

    @Test("the worn profile's rule reads the rise for a beacon marked worn only")
    func wornOnly() {
        #expect(rooms(p, riseRssi: -65, worn: true).map(\.1) == ["kitchen", "hall"])
        // The same decider's common rule has no rise switch.
        var decider = RoomDecider(parameters: .default, wornRule: p.rule)
        var last = ""
        for step in 0..<22 {
            let t = Double(step) * 0.5
            let kitchen = NodeEvidence(beacon: "fixed", node: "k1", room: "kitchen", rssiFiltered: -70, sigma: 1.5,
                                       distance: 2, proximity: .near)
            if let d = decider.update(kitchen, at: Instant(seconds: t)) { last = d.room }
            let hall = NodeEvidence(beacon: "fixed", node: "h1", room: "hall", rssiFiltered: -75, sigma: 1.5, distance: 3,
                                    proximity: .near, riseRssi: t == 10 ? -65 : nil)
            if let d = decider.update(hall, at: Instant(seconds: t + 0.01)) { last = d.room }
        }
        #expect(last == "kitchen")
    }

    @Test("a node counts as one that reports rises from its first rise report on; a worn tag then switches on it")
    func nodesThatReportRisesAreLearned() {
        var decider = RoomDecider(parameters: .default)
        decider.setWorn(true, for: decider.addSlot(for: "tag"))
        #expect(!decider.reportsRises(node: "h1"))
        var rooms: [String] = []
        for step in 0..<30 {
            let t = Double(step) * 0.5
            let kitchen = NodeEvidence(beacon: "tag", node: "k1", room: "kitchen", rssiFiltered: -70, sigma: 1.5,
                                       distance: 2, proximity: .near, rssi: -70)
            if let d = decider.update(kitchen, at: Instant(seconds: t)) { rooms.append(d.room) }
            let hall = NodeEvidence(beacon: "tag", node: "h1", room: "hall", rssiFiltered: -75, sigma: 1.5, distance: 3,
                                    proximity: .near, rssi: -75, riseRssi: t == 10 ? -65 : nil)
            if let d = decider.update(hall, at: Instant(seconds: t + 0.01)) { rooms.append(d.room) }
        }
        #expect(decider.reportsRises(node: "h1"))
        #expect(!decider.reportsRises(node: "k1"))
        // The default rule's rise switch took the hall's report (the worn profile alone keeps the kitchen).
        #expect(rooms == ["kitchen", "hall"])
    }

    /// Kitchen's node holds the tag (−70); at 10 s the hall's node reports a rise to −67 (3.25 dB over
    /// the kitchen as a score: short of the lead); at 11 s the kitchen's node publishes its fade (−75).
    func pendingRooms(_ p: RoomDecisionParameters, hallAfter: Double = -75) -> [String] {
        var decider = RoomDecider(parameters: p, wornRule: p.rule, wornRiseRule: nil)
        var rooms: [String] = []
        func send(_ e: NodeEvidence, _ t: Double) { if let d = decider.update(e, at: Instant(seconds: t)) { rooms.append(d.room) } }
        for step in 0..<20 {
            let t = Double(step) * 0.5
            send(NodeEvidence(beacon: "tag", node: "k1", room: "kitchen", rssiFiltered: -70, sigma: 1.5, distance: 2,
                              proximity: .near, rssi: -70), t)
            send(NodeEvidence(beacon: "tag", node: "h1", room: "hall", rssiFiltered: -75, sigma: 1.5, distance: 3,
                              proximity: .near, rssi: -75), t + 0.01)
        }
        send(NodeEvidence(beacon: "tag", node: "h1", room: "hall", rssiFiltered: -75, sigma: 1.5, distance: 3,
                          proximity: .near, rssi: -67, riseRssi: -67), 10)
        send(NodeEvidence(beacon: "tag", node: "h1", room: "hall", rssiFiltered: -74, sigma: 1.5, distance: 3,
                          proximity: .near, rssi: hallAfter), 10.5)
        send(NodeEvidence(beacon: "tag", node: "k1", room: "kitchen", rssiFiltered: -71, sigma: 1.5, distance: 2,
                          proximity: .near, rssi: -75), 11)
        return rooms
    }

    @Test("risePending: a rise short of the lead waits, and wins when the held room's node publishes its fade")
    func pendingRiseWinsLater() {
        // Without waiting, the report is lost.
        #expect(pendingRooms(p) == ["kitchen"])
        var waits = p
        waits.rule.risePending = 2
        // The hall's next reading (−67 as a score over −74 filtered, raw −67) holds the rise's level.
        #expect(pendingRooms(waits, hallAfter: -67) == ["kitchen", "hall"])
        // A next reading back down (raw −75) takes the waiting rise down with it.
        #expect(pendingRooms(waits, hallAfter: -75) == ["kitchen"])
        // Waiting 0.5 s: the fade at 11 s comes too late.
        waits.rule.risePending = 0.5
        #expect(pendingRooms(waits, hallAfter: -67) == ["kitchen"])
    }
}
