import BeaconCore
import BluetoothHCI
import Testing
import TestSupport
@testable import PresenceAgent

/// A new node that hears beacons but measures none says what to do, on the agent's own clock.
@Suite struct MeasuringHintTests {
    let settings = AgentCore.Settings(node: TopicLevelID("kitchen-1")!, room: TopicLevelID("kitchen")!)
    static let uuid: [UInt8] = Array(0x10...0x1F)

    func advert(minor: UInt16, address: UInt64 = 0xC0FFEE, rssi: Int8 = -60, at time: Instant) -> DecodedAdvertisement {
        var decoder = AdvertisementDecoder()
        var out: [DecodedAdvertisement] = []
        let event = IBeaconReport.event(address: address, uuid: Self.uuid, major: 1, minor: minor, rssi: rssi)
        decoder.decode(eventPacket: event[...], at: time) { out.append($0) }
        return out[0]
    }

    func logs(_ actions: [AgentAction]) -> [String] {
        actions.compactMap { if case .log(_, let message) = $0 { message } else { nil } }
    }

    /// Two beacons advertising once a second from `start`, ticking each second; the log lines.
    func run(_ core: inout AgentCore, from start: Instant, seconds: Int) -> [(at: Double, line: String)] {
        var out: [(at: Double, line: String)] = []
        for second in 0..<seconds {
            let time = start + Double(second)
            out += logs(core.tick(at: time)).map { (Double(second), $0) }
            _ = core.observe(advert(minor: 1, address: 0xA1, rssi: -55, at: time))
            _ = core.observe(advert(minor: 2, address: 0xA2, rssi: -70, at: time + 0.5))
        }
        return out
    }

    @Test func aNodeWithNothingConfiguredSaysSoAtStartThenWhatItHearsAndTheCommand() {
        let start = Instant(seconds: 1_000)
        var core = AgentCore(settings: settings, at: start)
        #expect(logs(core.startupLog).contains { $0.hasPrefix("no regions and no known beacons yet") && $0.contains("presence/config/beacons") })

        let lines = run(&core, from: start, seconds: 700)
        // At 30 s, then every 5 minutes: within a minute of start, and not every second.
        #expect(lines.map(\.at) == [30, 330, 630])
        #expect(lines[0].line.hasPrefix("heard 60 adverts in 30 s, 2 beacons by identity, but measures none: no region and no known beacon is configured"))
        #expect(lines[0].line.contains("presence-agent scan --source hci0 --duration 30 --suggest"))
        #expect(lines[1].line.hasPrefix("heard 600 adverts in 300 s, 2 beacons by identity"))
        #expect(core.hint.unmatchedCount(at: start + 700) == 2)
    }

    @Test func theHintNamesTheNodesSourceAndRoot() {
        var topics = settings
        topics.topics = TopicScheme(root: "hq/presence")!
        var core = AgentCore(settings: topics, at: Instant(seconds: 0))
        core.hint.source = "uart:/dev/ttyACM0@1000000"
        let lines = run(&core, from: Instant(seconds: 0), seconds: 31)
        #expect(lines.count == 1)
        #expect(lines.first?.line.contains("--source uart:/dev/ttyACM0@1000000 ") == true)
        #expect(lines.first?.line.contains("retained, on hq/presence/config/beacons") == true)
    }

    @Test func aNodeThatHearsNothingSaysSo() {
        var core = AgentCore(settings: settings, at: Instant(seconds: 0))
        var lines: [String] = []
        for second in 0...60 { lines += logs(core.tick(at: Instant(seconds: Double(second)))) }
        #expect(lines == [
            "heard no advertisement in 30 s: no beacon is in range, or the adapter is not scanning (see the source's lines above); try presence-agent scan --source hci0",
        ])
    }

    @Test func onceABeaconIsMeasuredTheHintStopsForGood() {
        let start = Instant(seconds: 0)
        var core = AgentCore(settings: settings, at: start)
        _ = core.receiveConfiguration(
            topic: "presence/config/beacons",
            payload: Array(#"{"revision":1,"beacons":[{"beacon":"ibeacon-10111213-1415-1617-1819-1a1b1c1d1e1f-1-1","id":"keys"}]}"#.utf8),
            at: start)
        let lines = run(&core, from: start, seconds: 400)
        #expect(lines.isEmpty)
        // The other beacon still counts as heard and unmatched, for telemetry.
        #expect(core.hint.unmatchedCount(at: start + 400) == 1)
    }

    @Test func aConfiguredNodeThatMatchesNothingSaysWhatItHasAndStartsQuietly() {
        let start = Instant(seconds: 0)
        let persisted = ["regions.json": Array(#"{"revision":3,"regions":[{"id":"office","uuid":"00000000-0000-0000-0000-000000000001"}]}"#.utf8)]
        var core = AgentCore(settings: settings, persisted: persisted, at: start)
        #expect(logs(core.startupLog).isEmpty)
        let lines = run(&core, from: start, seconds: 31)
        #expect(lines.first?.line.contains("its 1 regions and 0 known beacons match none of them") == true)
    }

    @Test func unmatchedIdentitiesAreBoundedAndForgottenAfterFiveMinutes() {
        let start = Instant(seconds: 0)
        var core = AgentCore(settings: settings, at: start)
        for minor in 0..<2_000 { _ = core.observe(advert(minor: UInt16(minor), at: start)) }
        #expect(core.hint.unmatchedCount(at: start) == MeasuringHint.identityCap)
        #expect(core.hint.unmatchedCount(at: start + 301) == 0)
    }

    /// The real capture (Govee sensors' iBeacons as scan responses) through a core with nothing
    /// configured, on the capture's clock.
    @Test func theSharedCaptureGivesTheHintOnItsOwnClock() throws {
        var options = FeedOptions()
        options.speed = 0
        let feed = try AdvertisementFeeds.open(.btsnoop(path: try RecordedData.path(RecordedData.horizonCapture)), options: options)
        var adverts: [DecodedAdvertisement] = []
        while try feed.poll(timeout: 0, { adverts.append($0) }) {}
        let start = try #require(adverts.first?.time)
        var core = AgentCore(settings: settings, at: start)
        var lines: [String] = []
        for advert in adverts {
            lines += logs(core.tick(at: advert.time))
            _ = core.observe(advert)
        }
        var time = adverts.last!.time
        while lines.isEmpty && time < start + 60 {
            time = time + 1
            lines += logs(core.tick(at: time))
        }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("2 beacons by identity, but measures none") == true)
    }
}
