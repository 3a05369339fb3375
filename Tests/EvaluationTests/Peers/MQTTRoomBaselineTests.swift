import BeaconCore
import Evaluation
import Foundation
import PresenceAggregator
import RoomDecisions
import TestSupport
import Testing

/// Home Assistant's `mqtt_room` rule as `presence-bench evaluate` replays it (`MQTTRoomBaseline`).
@Suite struct MQTTRoomBaselineTests {
    static func advert(_ time: Double, _ room: String, _ rssi: Int) -> TraceSample {
        TraceSample(time: Instant(seconds: time), node: room + "-node", room: room, beacon: "tag", rssi: rssi, measuredPower: nil)
    }

    @Test("a nearer report wins at once, a farther one only once the kept report is 5 s old, and the same room's reports keep it fresh")
    func rule() {
        let adverts = [
            Self.advert(0, "kitchen", -60),
            Self.advert(1, "hall", -65),  // farther, kept report 1 s old: stays
            Self.advert(2, "hall", -59),  // nearer: the hall at once
            Self.advert(3, "kitchen", -62),  // farther: stays
            Self.advert(6, "hall", -80),  // the same room, however far: refreshes the kept report
            Self.advert(10, "kitchen", -85),  // farther, kept report 4 s old: stays
            Self.advert(11, "kitchen", -85),  // farther, kept report 5 s old: the kitchen
        ]
        let rows = MQTTRoomBaseline.decisions(of: adverts)
        #expect(rows.map(\.room) == ["kitchen", "hall", "kitchen"])
        #expect(rows.map(\.time.seconds) == [0, 2, 11])
    }

    @Test("a longer timeout holds a farther room's report off longer")
    func timeout() {
        var parameters = MQTTRoomBaseline.Parameters()
        parameters.timeout = 20
        let adverts = [Self.advert(0, "kitchen", -60), Self.advert(11, "hall", -70), Self.advert(20, "hall", -70)]
        #expect(MQTTRoomBaseline.decisions(of: adverts, parameters: parameters).map(\.room) == ["kitchen", "hall"])
        #expect(MQTTRoomBaseline.decisions(of: adverts, parameters: parameters).last?.time.seconds == 20)
    }

    /// The data README's figures for the hall, from the shared yardstick's `mqtt_room` on the same
    /// recordings: mean accuracy 0.597, 2,514 flaps, median switch 0 s.
    @Test("on the hall's nine walks it scores what the data README gives for mqtt_room")
    func hallFigures() throws {
        let directory = try RecordedData.path("traces")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".trace.csv") }.sorted()
        #expect(names.count == 9)
        let scores = try names.map { name in
            let samples = try TraceFile.samples(path: directory + "/" + name)
            let truth = try TraceFile.truth(path: directory + "/" + name.replacingOccurrences(of: ".trace.", with: ".truth."))
            return RoomDecisionScore(decisions: MQTTRoomBaseline.decisions(of: samples), truth: truth)
        }
        let site = SiteScore(scores)
        #expect(abs(site.meanAccuracy - 0.597) < 0.0005, "\(site.meanAccuracy)")
        #expect(site.flaps == 2514)
        #expect(site.medianSwitchLatency == 0)
    }
}
