import BeaconCore
import RoomDecisions
import Testing

/// The fast clock's rise gate (issue 40, fifth round, `RoomDecisionParameters.fastRise`): a streak
/// starts only at a raw reading that high over its node's own filtered value.
@Suite("RoomDecider fast clock rise gate")
struct RoomDeciderFastRiseTests {
    /// n = 2.7, a fast clock of 3 dB for 1 s, and a dwell no test here waits out.
    let p = RoomDecisionParameters(pathLossExponent: 2.7, dwell: 30, evidenceToSwitch: 100, fastLead: 3, fastFor: 1)

    /// Kitchen (2 m) decided; from 10 s, every 0.5 s, the hall's node (3 m filtered) publishes an
    /// advert `hallRaw` dB over its filtered value, and the kitchen's node reports `kitchenFrom` m.
    func rooms(_ p: RoomDecisionParameters, hallRaw: Double, kitchenFrom: Double = 2) -> [(Double, String)] {
        var decider = RoomDecider(parameters: p)
        var rooms: [(Double, String)] = []
        for step in 0..<40 {
            let t = Double(step) * 0.5
            let late = t >= 10
            let hall = NodeEvidence(beacon: "tag", node: "h1", room: "hall", rssiFiltered: -70, sigma: 1.5, distance: 3,
                                    proximity: .near, rssi: -70 + (late ? hallRaw : 0))
            let kitchen = NodeEvidence(beacon: "tag", node: "k1", room: "kitchen", rssiFiltered: -70, sigma: 1.5,
                                       distance: late ? kitchenFrom : 2, proximity: .near, rssi: -70)
            if let d = decider.update(hall, at: Instant(seconds: t)) { rooms.append((t, d.room)) }
            if let d = decider.update(kitchen, at: Instant(seconds: t + 0.01)) { rooms.append((t, d.room)) }
        }
        return rooms
    }

    @Test("a raw reading risen over its node's filtered value starts the streak; one short of the rise does not")
    func riseStartsTheStreak() {
        // Raw 12 dB over filtered: 7.25 dB over the kitchen, risen 12 dB. From 10 s, won at 11 s.
        var gated = p
        gated.fastRise = 12
        #expect(rooms(gated, hallRaw: 12).map { "\($0.0) \($0.1)" } == ["1.0 kitchen", "11.0 hall"])
        // Asked to have risen 13 dB, the same readings start nothing.
        gated.fastRise = 13
        #expect(rooms(gated, hallRaw: 12).map(\.1) == ["kitchen"])
    }

    @Test("a shadow on the held room leaves the challenger at its own level: without the gate it switches, with it not")
    func shadowStartsNoStreak() {
        // From 10 s the kitchen's node reads 10 m (a body in the way); the held score falls 4 dB/s
        // until the hall's steady readings lead it by 3 dB, and a second later the fast clock fires.
        let ungated = rooms(p, hallRaw: 0, kitchenFrom: 10)
        #expect(ungated.map(\.1) == ["kitchen", "hall"])
        var gated = p
        gated.fastRise = 3
        #expect(rooms(gated, hallRaw: 0, kitchenFrom: 10).map(\.1) == ["kitchen"])
    }
}
