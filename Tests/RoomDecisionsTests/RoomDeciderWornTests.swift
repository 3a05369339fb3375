import BeaconCore
import RoomDecisions
import TestSupport
import Testing

/// A beacon marked worn (a known beacon's `worn: true`) is decided with the worn profile
/// (`SwitchingRule.worn`); every other beacon exactly as before.
@Suite("RoomDecider, worn beacons")
struct RoomDeciderWornTests {
    /// Three rooms, two nodes each, a tag that moves and fades now and then, seeded: a timeline the
    /// defaults and the worn profile decide differently.
    private func walk(_ beacon: BeaconID, seed: UInt64) -> [(time: Instant, evidence: NodeEvidence)] {
        var random = SeededRandom(seed: seed)
        let rooms = ["hall", "kitchen", "bedroom"]
        var out: [(Instant, NodeEvidence)] = []
        var room = 0
        for step in 0..<2_400 {
            let t = Double(step) * 0.25
            if step % 160 == 0 { room = Int.random(in: 0..<rooms.count, using: &random) }
            let fading = Int.random(in: 0..<100, using: &random) < 3
            for (index, name) in rooms.enumerated() {
                for node in 1...2 {
                    var distance = index == room ? Double.random(in: 1.5...3.5, using: &random) : Double.random(in: 2.5...7, using: &random)
                    if fading && index == room { distance *= 4 }
                    let rssi = -70 + Double.random(in: -6...6, using: &random)
                    out.append((Instant(seconds: t + Double(index * 2 + node) * 0.01),
                                NodeEvidence(beacon: beacon, node: "\(name)\(node)", room: name, rssiFiltered: -70, sigma: 1.5,
                                             distance: distance, proximity: distance < 3 ? .near : .far, rssi: rssi)))
                }
            }
        }
        return out
    }

    private func rooms(_ decider: inout RoomDecider, _ timeline: [(time: Instant, evidence: NodeEvidence)], of beacon: BeaconID) -> [String] {
        var rooms: [String] = []
        for (time, evidence) in timeline {
            if let decision = decider.update(evidence, at: time), decision.beacon == beacon { rooms.append(decision.room) }
            for decision in decider.tick(at: time) where decision.beacon == beacon { rooms.append(decision.room) }
        }
        return rooms
    }

    @Test("a worn beacon decides as a decider of the worn profile would; the other beacon as the defaults")
    func wornSlotUsesWornProfile() throws {
        let p = RoomDecisionParameters.default
        let worn = walk("wristband", seed: 40)
        let fixed = walk("keys", seed: 41)
        let both = (worn + fixed).sorted { $0.time < $1.time }
        var mixed = RoomDecider(parameters: p)
        let slot = mixed.addSlot(for: "wristband")
        mixed.setWorn(true, for: slot)
        #expect(mixed.isWorn(slot))
        var mixedRooms: [BeaconID: [String]] = [:]
        for (time, evidence) in both {
            if let decision = mixed.update(evidence, at: time) { mixedRooms[decision.beacon, default: []].append(decision.room) }
            for decision in mixed.tick(at: time) { mixedRooms[decision.beacon, default: []].append(decision.room) }
        }
        var wornAlone = RoomDecider(parameters: p.worn)
        var fixedAlone = RoomDecider(parameters: p)
        let wornRooms = rooms(&wornAlone, worn, of: "wristband")
        #expect(mixedRooms["wristband"] == wornRooms)
        #expect(mixedRooms["keys"] == rooms(&fixedAlone, fixed, of: "keys"))
        // The timeline tells the two rules apart, so the check above has teeth.
        var asDefaults = RoomDecider(parameters: p)
        #expect(rooms(&asDefaults, worn, of: "wristband") != wornRooms)
    }

    @Test("unmarked, or forgotten and heard again, a beacon is decided with the defaults")
    func unmarkedAndForgotten() {
        var decider = RoomDecider(parameters: .default)
        let slot = decider.addSlot(for: "wristband")
        decider.setWorn(true, for: slot)
        decider.setWorn(false, for: slot)
        #expect(!decider.isWorn(slot))
        decider.setWorn(true, for: slot)
        decider.forget(beacon: "wristband")
        #expect(!decider.isWorn(decider.addSlot(for: "wristband")))
    }

    @Test("the worn profile changes only the switching rule: a site's path loss, settle, stale and away times stay")
    func wornKeepsSiteSettings() {
        let site = RoomDecisionParameters(pathLossExponent: 2.2, settleTime: 2, staleAfter: 90, awayTimeout: 45)
        let worn = site.worn
        #expect(worn.pathLossExponent == 2.2 && worn.settleTime == 2 && worn.staleAfter == 90 && worn.awayTimeout == 45)
        #expect(worn.rule == SwitchingRule.worn)
    }
}
