import BeaconCore
import RoomDecisions
import Testing

/// Level queries (issue 40, eighth round, `SwitchingRule.riseQuery`): a worn beacon's rise
/// report that fails the lead asks the nodes whose last published level is in its way for their
/// level now, and their answer (a measurement whose `rssi` is that level) lets it lead at once.
@Suite("RoomDecider level queries")
struct RoomDeciderLevelQueryTests {
    /// n = 2.7, a dwell no test waits out, the rise switch at 4 dB with a 2-s wait and queries.
    let rule = SwitchingRule(dwell: 30, evidenceToSwitch: 100, riseLead: 4, risePending: 2, riseQuery: 0.25)

    /// The kitchen's node (2 m, −70) holds the worn tag until 5.5 s, then falls quiet; the hall's
    /// node (3 m, −75) publishes beside it and at 6 s reports a rise to −67: 3.25 dB over the
    /// kitchen's last published advert as scores, short of the 4 dB asked.
    func decider(_ rule: SwitchingRule, kitchenReports: Bool = true) -> (RoomDecider, [String]) {
        var decider = RoomDecider(parameters: RoomDecisionParameters(pathLossExponent: 2.7), wornRule: rule, wornRiseRule: rule)
        decider.setWorn(true, for: decider.addSlot(for: "tag"))
        decider.noteReportsRises(node: "h1")
        if kitchenReports { decider.noteReportsRises(node: "k1") }
        var rooms: [String] = []
        for step in 0...11 {
            let t = Double(step) * 0.5
            if let d = decider.update(kitchen(rssi: -70), at: Instant(seconds: t)) { rooms.append(d.room) }
            if let d = decider.update(hall(rise: nil), at: Instant(seconds: t + 0.01)) { rooms.append(d.room) }
        }
        #expect(decider.takeLevelQueries().isEmpty)
        if let d = decider.update(hall(rise: -67), at: Instant(seconds: 6)) { rooms.append(d.room) }
        return (decider, rooms)
    }

    func kitchen(rssi: Double) -> NodeEvidence {
        NodeEvidence(beacon: "tag", node: "k1", room: "kitchen", rssiFiltered: -70, sigma: 1.5, distance: 2,
                     proximity: .near, rssi: rssi)
    }

    func hall(rise: Double?) -> NodeEvidence {
        NodeEvidence(beacon: "tag", node: "h1", room: "hall", rssiFiltered: -75, sigma: 1.5, distance: 3,
                     proximity: .near, rssi: -75, riseRssi: rise)
    }

    @Test("a rise short of the lead asks the held room's node for its level, at most once per riseQuery")
    func asksOncePerInterval() {
        var (decider, rooms) = decider(rule)
        #expect(rooms == ["kitchen"])
        #expect(decider.takeLevelQueries() == [RoomDecider.LevelQuery(beacon: "tag", node: "k1")])
        #expect(decider.takeLevelQueries().isEmpty)
        _ = decider.update(hall(rise: -67), at: Instant(seconds: 6.1))
        #expect(decider.takeLevelQueries().isEmpty)
        _ = decider.update(hall(rise: -67), at: Instant(seconds: 6.3))
        #expect(decider.takeLevelQueries().map(\.node) == ["k1"])
    }

    @Test("an answer that heard nothing in its last second lets the waiting rise win at once; a loud one does not")
    func answerMeetsTheWaitingRise() {
        var (quiet, _) = decider(rule)
        let moved = quiet.update(kitchen(rssi: NodeEvidence.unheardLevel), at: Instant(seconds: 6.1))
        #expect(moved?.room == "hall")

        var (loud, _) = decider(rule)
        #expect(loud.update(kitchen(rssi: -70), at: Instant(seconds: 6.1)) == nil)
        #expect(loud.room(of: "tag") == "kitchen")
        // Faded 4 dB: the hall's rise now leads by 7.25 dB.
        var (faded, _) = decider(rule)
        #expect(faded.update(kitchen(rssi: -74), at: Instant(seconds: 6.1))?.room == "hall")
    }

    @Test("only a rise short of the lead by at most levelQueryShortfall asks")
    func onlyNearMissesAsk() {
        // The hall's rise leads the kitchen's level by 3.25 dB: short by more than the shortfall
        // of a higher lead, it asks nobody; short by less, it asks.
        var far = rule
        far.riseLead = 3.25 + SwitchingRule.levelQueryShortfall + 0.5
        var (silent, _) = decider(far)
        #expect(silent.takeLevelQueries().isEmpty)
        far.riseLead = 3.25 + SwitchingRule.levelQueryShortfall - 0.5
        var (asked, _) = decider(far)
        #expect(asked.takeLevelQueries().map(\.node) == ["k1"])
    }

    @Test("nobody is asked when riseQuery is 0, nor a node that reports no rises (it would not answer)")
    func whoIsNotAsked() {
        var off = rule
        off.riseQuery = 0
        var (quietRule, _) = decider(off)
        #expect(quietRule.takeLevelQueries().isEmpty)
        var (foreign, _) = decider(rule, kitchenReports: false)
        #expect(foreign.takeLevelQueries().isEmpty)
    }
}
