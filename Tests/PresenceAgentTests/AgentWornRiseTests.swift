import BeaconCore
import BluetoothHCI
import Testing
import TestSupport
@testable import PresenceAgent

/// A known beacon marked `worn` (issue 40, sixth round): the agent publishes its rise at once, with
/// `rise` and `riseRssi`; the same beacon not marked publishes neither. Real HCI bytes (the horizon
/// capture), its RSSI raised 12 dB from the middle on, as if the wearer walked up to this node.
@Suite struct AgentWornRiseTests {
    let settings = AgentCore.Settings(node: TopicLevelID("test")!, room: TopicLevelID("lab")!)

    func measurements(worn: Bool) throws -> (texts: [String], stepAt: Instant) {
        let start = Instant(seconds: 1_612_150_079)
        var core = AgentCore(settings: settings, at: start)
        _ = core.receiveConfiguration(
            topic: "presence/config/beacons",
            payload: Array(#"{"revision":1,"beacons":[{"beacon":"\#(AgentCoreTests.beacon)","id":"band","worn":\#(worn)}]}"#.utf8),
            at: start)
        var options = FeedOptions()
        options.speed = 0
        let feed = try AdvertisementFeeds.open(.btsnoop(path: try RecordedData.path(RecordedData.horizonCapture)), options: options)
        var adverts: [DecodedAdvertisement] = []
        while try feed.poll(timeout: 0, { adverts.append($0) }) {}
        let ours = adverts.filter { $0.beaconID.rawValue == AgentCoreTests.beacon }
        let stepAt = ours[ours.count / 2].time
        var out: [String] = []
        var lastTick: Instant?
        for var advert in adverts {
            if lastTick == nil || advert.time - lastTick! >= 1 {
                for case .publish(let p) in core.tick(at: advert.time) where p.topic == "presence/beacons/band/test" { out.append(p.text) }
                lastTick = advert.time
            }
            if advert.time >= stepAt, let rssi = advert.report.rssi { advert.report.rssi = rssi + 12 }
            for case .publish(let p) in core.observe(advert) where p.topic == "presence/beacons/band/test" { out.append(p.text) }
        }
        return (out, stepAt)
    }

    @Test("marked worn, the step up publishes a rise with the level it rose to; not marked, no measurement carries one")
    func wornBeaconReportsItsRise() throws {
        let worn = try measurements(worn: true).texts
        let plain = try measurements(worn: false).texts
        #expect(!plain.isEmpty)
        #expect(plain.allSatisfy { !$0.contains("\"rise\"") && !$0.contains("riseRssi") })
        let rises = worn.filter { $0.contains(#""rise":"#) }
        #expect(!rises.isEmpty)
        #expect(rises.allSatisfy { $0.contains(#""riseRssi":"#) })
        // The rise goes out beside the usual measurements, not instead of them.
        #expect(worn.count >= plain.count)
    }
}
