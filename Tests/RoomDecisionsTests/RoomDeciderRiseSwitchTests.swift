import BeaconCore
import RoomDecisions
import Testing

/// The rise switch (issue 40, sixth round, `RoomDecisionParameters.riseLead`): a node's rise report
/// (`NodeEvidence.riseRssi`, a worn beacon's adverts risen over their own recent mean) switches at
/// once when the level it rose to leads every other room's latest score by `riseLead` dB.
@Suite("RoomDecider rise switch")
struct RoomDeciderRiseSwitchTests {
    /// n = 2.7 and a dwell no test here waits out: only the rise switch can move the beacon.
    let p = RoomDecisionParameters(pathLossExponent: 2.7, dwell: 30, evidenceToSwitch: 100, riseLead: 4)

    /// Kitchen's node at 2 m (−70 filtered) holds the tag; at 10 s the hall's node (3 m, −74.75
    /// filtered as a score) publishes once, with a rise report to `riseRssi`.
    func rooms(_ p: RoomDecisionParameters, riseRssi: Double?, worn: Bool = false) -> [(Double, String)] {
        var decider = RoomDecider(parameters: worn ? .default : p, wornRule: p, wornRiseRule: nil)
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
        off.riseLead = .infinity
        #expect(rooms(off, riseRssi: -65).map(\.1) == ["kitchen"])
        #expect(rooms(p, riseRssi: nil).map(\.1) == ["kitchen"])
    }

    @Test("the worn profile's rule reads the rise for a beacon marked worn only")
    func wornOnly() {
        #expect(rooms(p, riseRssi: -65, worn: true).map(\.1) == ["kitchen", "hall"])
        // The same decider's common rule has no rise switch.
        var decider = RoomDecider(parameters: .default, wornRule: p)
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
}
