import BeaconCore
import BluetoothHCI
import Testing
import TestSupport
@testable import PresenceAgent

/// A known beacon marked `worn` publishes by its level (docs/MQTT.md's `level`, `WornLevel`): the
/// mean of its adverts over the last second, on a step, and "not heard" after a short silence; the
/// same beacon not marked publishes as before and never carries a level. The beacon's real advert
/// (decoded from the horizon capture's HCI bytes) heard five times a second, as the house's wristband.
@Suite struct AgentWornLevelTests {
    let settings = AgentCore.Settings(node: TopicLevelID("test")!, room: TopicLevelID("lab")!)
    static let topic = "presence/beacons/band/test"

    /// The agent's measurements of the beacon while it is heard at `rssi(t)` (±2 dB wobble) at the
    /// times `heard(t)` says, from 0 to `seconds`, ticking every second as the service does.
    func measurements(worn: Bool, seconds: Double, heard: (Double) -> Bool = { _ in true },
                      rssi: (Double) -> Int) throws -> [(time: Double, json: String)] {
        let band = try AgentCoreTests.band(worn: worn, settings: settings)
        var core = band.core
        let template = band.template
        let start = template.time
        let wobble = [0, 2, -1, 1, -2]
        var out: [(Double, String)] = []
        for i in 0..<Int(seconds * 5) {
            let t = Double(i) / 5
            if i % 5 == 0 {
                for case .publish(let p) in core.tick(at: start + t) where p.topic == Self.topic { out.append((t, p.text)) }
            }
            guard heard(t) else { continue }
            var advert = template
            advert.time = start + t
            advert.report.rssi = Int8(rssi(t) + wobble[i % wobble.count])
            for case .publish(let p) in core.observe(advert) where p.topic == Self.topic { out.append((t, p.text)) }
        }
        return out
    }

    @Test("marked worn, each measurement carries the second's mean level; not marked, none does")
    func wornMeasurementsCarryTheLevel() throws {
        let walk: (Double) -> Int = { $0 < 30 ? -78 : -66 }
        let worn = try measurements(worn: true, seconds: 60, rssi: walk)
        let plain = try measurements(worn: false, seconds: 60, rssi: walk)
        #expect(!plain.isEmpty)
        #expect(plain.allSatisfy { !$0.json.contains(#""level""#) })
        #expect(!worn.isEmpty)
        #expect(worn.allSatisfy { $0.json.contains(#""level":-"#) })
        // The first at −78 (the wobble's mean), and the step up to −66 within two seconds.
        #expect(worn.first?.json.contains(#""level":-78"#) == true)
        let up = try #require(worn.first { $0.time >= 30 })
        #expect(up.time - 30 <= 2)
    }

    @Test("at rest a worn beacon publishes no more than twice a minute")
    func restIsQuiet() throws {
        let rest = try measurements(worn: true, seconds: 300) { _ in -78 }
        // The first advert, then the heartbeat (60 s): 5 or 6 in five minutes.
        #expect(rest.count <= 6)
    }

    @Test("silent for 2.5 s: \"not heard\" once, without a level; the track's later silence is not sent again")
    func quickSilence() throws {
        let gap: (Double) -> Bool = { $0 < 10 || $0 >= 20 }
        let worn = try measurements(worn: true, seconds: 30, heard: gap) { _ in -78 }
        let silences = worn.filter { $0.json.contains(#""proximity":"unknown""#) }
        #expect(silences.count == 1)
        let silence = try #require(silences.first)
        // The last advert at 9.8 s; ticks each second: the first tick past 12.3 s.
        #expect(silence.time == 13)
        #expect(!silence.json.contains(#""level""#))
        #expect(!silence.json.contains(#""rssi""#))
        // Heard again: published at once, with a level.
        #expect(worn.contains { $0.time == 20 && $0.json.contains(#""level":-78"#) })
        // Not marked, the track says "not heard" after its own 5 s.
        let plain = try measurements(worn: false, seconds: 30, heard: gap) { _ in -78 }
        let plainSilence = try #require(plain.first { $0.json.contains(#""proximity":"unknown""#) })
        #expect(plainSilence.time == 15)
    }
}

extension AgentCoreTests {
    /// The horizon capture's advert of `beacon` (its real bytes) and an agent at its time that knows it
    /// as `band`, marked `worn` or not: what the worn beacon's tests replay it through.
    static func band(worn: Bool, settings: AgentCore.Settings) throws -> (core: AgentCore, template: DecodedAdvertisement) {
        var options = FeedOptions()
        options.speed = 0
        let feed = try AdvertisementFeeds.open(.btsnoop(path: try RecordedData.path(RecordedData.horizonCapture)), options: options)
        var adverts: [DecodedAdvertisement] = []
        while try feed.poll(timeout: 0, { adverts.append($0) }) {}
        let template = try #require(adverts.first { $0.beaconID.rawValue == beacon })
        var core = AgentCore(settings: settings, at: template.time)
        _ = core.receiveConfiguration(
            topic: "presence/config/beacons",
            payload: Array(#"{"revision":1,"beacons":[{"beacon":"\#(beacon)","id":"band","worn":\#(worn)}]}"#.utf8),
            at: template.time)
        return (core, template)
    }
}
