import BeaconCore
import Evaluation
import RoomDecisions
import Testing

/// Bermuda 0.8's rule (`BermudaRuleBaseline`) on a few made-up adverts: what a reader of its source expects.
@Suite struct BermudaRuleTests {
    static func advert(_ time: Double, _ node: String, _ room: String, _ rssi: Int) -> TraceSample {
        TraceSample(time: Instant(seconds: time), node: node, room: room, beacon: "tag", rssi: rssi, measuredPower: nil)
    }

    @Test("Bermuda's rule: a nearer receiver wins at once, a drop of the current one barely moves it, a slightly nearer one does not win")
    func bermuda() {
        var samples: [TraceSample] = []
        // 0–10 s: the kitchen's receiver at −60, the hall's at −70: the kitchen.
        for step in 0..<40 {
            let time = Double(step) * 0.25
            samples.append(Self.advert(time, "k", "kitchen", -60))
            samples.append(Self.advert(time + 0.01, "h", "hall", -70))
        }
        // 10–20 s: the kitchen fades 12 dB for three seconds, then the hall is 2 dB louder.
        for step in 40..<80 {
            let time = Double(step) * 0.25
            samples.append(Self.advert(time, "k", "kitchen", time < 13 ? -72 : -64))
            samples.append(Self.advert(time + 0.01, "h", "hall", -62))
        }
        // 20–25 s: the hall's receiver 10 dB louder than the kitchen's: the tag walked in.
        for step in 80..<100 {
            let time = Double(step) * 0.25
            samples.append(Self.advert(time, "k", "kitchen", -70))
            samples.append(Self.advert(time + 0.01, "h", "hall", -55))
        }
        let rows = BermudaRuleBaseline.decisions(of: samples)
        #expect(rows.first?.room == "kitchen" && rows.first!.time.seconds < 1.5)
        // The fade and the slight lead of the hall leave the kitchen; the walk in wins within two cycles.
        #expect(rows.count == 2, "\(rows)")
        #expect(rows.last?.room == "hall")
        let switched = rows.last!.time.seconds
        #expect(switched > 20 && switched < 22.2, "\(switched)")
    }
}
