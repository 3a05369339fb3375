import BeaconCore
import Evaluation
import Foundation
import RoomDecisions
import TestSupport
import Testing

/// The two things issue 40 judges a decision by at home: a recording replayed as a worn tag
/// (`WornTagSignal`), and Bermuda's rule on the same adverts (`BermudaRuleBaseline`).
@Suite struct WornTagAndBermudaTests {
    static func flat(_ name: String) throws -> (samples: [TraceSample], truth: [TruthSample]) {
        // The shared traces end their lines with CR LF, one Character to Swift: split on any newline.
        var trace = TraceParser(), truth = TruthParser()
        let samples = try RecordedData.text("traces-flat/\(name).trace.csv").split(whereSeparator: \.isNewline)
            .compactMap { try trace.parse(line: $0) }
        let rows = try RecordedData.text("traces-flat/\(name).truth.csv").split(whereSeparator: \.isNewline)
            .compactMap { try truth.parse(line: $0) }
        return (samples, rows)
    }

    static func advert(_ time: Double, _ node: String, _ room: String, _ rssi: Int) -> TraceSample {
        TraceSample(time: Instant(seconds: time), node: node, room: room, beacon: "tag", rssi: rssi, measuredPower: nil)
    }

    @Test("a worn tag: the wristband's packets on the recording's receivers, the same on every run, other for another name")
    func wornTag() throws {
        let (samples, truth) = try Self.flat("flat-calib3")
        let model = WornTagSignal()
        let worn = model.apply(to: samples, truth: truth, name: "flat-calib3")
        #expect(worn == model.apply(to: samples, truth: truth, name: "flat-calib3"))
        #expect(worn != model.apply(to: samples, truth: truth, name: "flat-calib4"))
        #expect(Set(worn.map(\.node)).isSubset(of: Set(samples.map(\.node))))
        #expect(zip(worn, worn.dropFirst()).allSatisfy { $0.time <= $1.time })
        // No receiver hears two packets closer than the report gap, and none hears more than the
        // tag sent (5 a second); the recording heard 6 a second per anchor.
        let span = samples.last!.time.since(samples[0].time)
        for node in Set(worn.map(\.node)) {
            let times = worn.filter { $0.node == node }.map(\.time.seconds)
            #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= model.parameters.reportGap - 1e-9 })
            #expect(Double(times.count) / span < 5)
        }
        // The body and the walls cost packets: every receiver hears fewer than the tag sends.
        #expect(Double(worn.count) / span < 5 * Double(Set(samples.map(\.node)).count) * model.parameters.heard)
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

    @Test("the signal figures of the flat as recorded are issue 40's flat column")
    func flatFigures() throws {
        let names = ["flat-calib1", "flat-calib2", "flat-calib3", "flat-calib4", "flat-test_robot"]
        let figures = SignalFigures(try names.map { name in
            let (samples, truth) = try Self.flat(name)
            return SignalFigures.Recording(samples: samples, truth: truth)
        })
        // The issue: 6.1 adverts a second per receiver; another room loudest in 0.160 of the
        // in-room seconds, 277 episodes an hour, lasting 1 / 4 / 10 s.
        #expect(abs(figures.packetsPerSecondPerReceiver - 6.1) < 0.2)
        #expect(abs(figures.invertedShare - 0.160) < 0.02)
        #expect(abs(figures.episodes.perHour - 277) < 30)
        #expect(figures.episodes.length.first == 1)
    }
}
