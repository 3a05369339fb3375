import BeaconCore
import Testing
@testable import PresenceAgent

/// Reports without an RSSI (127, "not available"), as BlueZ's emulated controllers send every one
/// and some controllers send on some PHYs: presence for regions, never a measurement.
@Suite struct AgentCoreNoRSSITests {
    static let uuid = "494e5445-4c4c-495f-524f-434b535f4857"
    static let beacon = "ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20594-62207"
    let settings = AgentCore.Settings(node: TopicLevelID("test")!, room: TopicLevelID("lab")!)

    /// A real legacy advertising report (HCI event bytes, after the H4 indicator) of an iBeacon,
    /// its RSSI byte (the last) replaced.
    static func report(rssi: UInt8) -> [UInt8] {
        var bytes = HexDigits.bytes("3e2702010400ab6fbf38c1a41b1aff4c000215494e54454c4c495f524f434b535f48575072f2ffc2cf")!
        bytes[bytes.count - 1] = rssi
        return bytes
    }

    /// One report a second from `from` for `seconds`, ticking each second; the publications in order.
    func hear(_ core: inout AgentCore, rssi: UInt8, from start: Double, seconds: Int) -> [AgentPublication] {
        var decoder = AdvertisementDecoder()
        var out: [AgentPublication] = []
        for second in 0..<seconds {
            let time = Instant(seconds: start + Double(second))
            var actions = core.tick(at: time)
            decoder.decode(eventPacket: Self.report(rssi: rssi)[...], at: time) { actions += core.observe($0) }
            for case .publish(let publication) in actions { out.append(publication) }
        }
        return out
    }

    func coreWithRegion(at start: Instant) -> AgentCore {
        var core = AgentCore(settings: settings, at: start)
        _ = core.receiveConfiguration(
            topic: "presence/config/regions",
            payload: Array(#"{"revision":1,"regions":[{"id":"office","uuid":"\#(Self.uuid)"}]}"#.utf8), at: start)
        return core
    }

    @Test func aBeaconHeardOnlyWithoutRSSIEntersItsRegionAndIsRangedWithoutADistance() {
        let start = 1_800_000_000.0
        var core = coreWithRegion(at: Instant(seconds: start))
        let published = hear(&core, rssi: 0x7F, from: start, seconds: 40)
        let states = published.filter { $0.topic == "presence/nodes/test/regions/office/state" }.map(\.text)
        #expect(states.last == "inside")
        let enters = published.filter { $0.topic == "presence/nodes/test/regions/office/event" && $0.text.contains(#""event":"enter""#) }
        #expect(enters.count == 1)
        #expect(enters.first?.text.contains(#""beacon":"\#(Self.beacon)""#) == true)
        // No measurement: one with proximity unknown and no RSSI would tell the aggregator this node
        // stopped hearing the beacon.
        #expect(!published.contains { $0.topic.hasPrefix("presence/beacons/") })
        let ranging = published.filter { $0.topic == "presence/nodes/test/regions/office/ranging" }
        let list = try? #require(ranging.last?.text)
        #expect(list?.contains(#""beacon":"\#(Self.beacon)""#) == true)
        #expect(list?.contains(#""proximity":"unknown""#) == true)
        #expect(list?.contains("distance") == false && list?.contains("rssi") == false)
        #expect(core.rssiUnavailableCount == 40)
        #expect(core.trackedBeaconCount == 1)
    }

    @Test func aBeaconWhoseRSSIStopsIsSaidUnrangedOnceAndStaysInside() {
        let start = 1_800_000_000.0
        var core = coreWithRegion(at: Instant(seconds: start))
        let ranged = hear(&core, rssi: 0xCF, from: start, seconds: 40)
        #expect(ranged.filter { $0.topic == "presence/nodes/test/regions/office/state" }.last?.text == "inside")
        #expect(ranged.contains { $0.topic == "presence/beacons/\(Self.beacon)/test" && $0.text.contains(#""rssi":-49"#) })

        let unranged = hear(&core, rssi: 0x7F, from: start + 40, seconds: 60)
        let measurements = unranged.filter { $0.topic == "presence/beacons/\(Self.beacon)/test" }
        // Its range is gone: said once, as when a beacon falls silent; not again at each report.
        #expect(measurements.count == 1)
        #expect(measurements.first?.text.contains(#""proximity":"unknown""#) == true)
        #expect(measurements.first?.text.contains(#""rssi""#) == false)
        // Still here: no exit.
        #expect(!unranged.contains { $0.topic.hasSuffix("/regions/office/event") && $0.text.contains(#""event":"exit""#) })
        #expect(!unranged.contains { $0.topic.hasSuffix("/regions/office/state") && $0.text != "inside" })
    }
}
