import BeaconCore
import Testing
import TestSupport
@testable import PresenceAgent

/// Each tracked beacon keeps the regions it matches instead of looking them up at every
/// advertisement; a regions config must still take effect at the beacon's next advertisement.
@Suite struct AgentCoreRegionCacheTests {
    static let uuid = AgentCoreFloodTests.siteUUID
    static let uuidText = AgentCoreFloodTests.siteUUIDText
    static let start = Instant(seconds: 1_800_000_000)

    static func regions(_ entries: [(id: String, major: Int?)], revision: Int) -> [UInt8] {
        let list = entries.map { entry in
            entry.major.map { #"{"id":"\#(entry.id)","uuid":"\#(uuidText)","major":\#($0)}"# } ?? #"{"id":"\#(entry.id)","uuid":"\#(uuidText)"}"#
        }
        return Array(#"{"revision":\#(revision),"regions":[\#(list.joined(separator: ","))]}"#.utf8)
    }

    /// One advertisement of (major, minor) from its own address, through the decoder.
    static func hear(_ core: inout AgentCore, major: UInt16, minor: UInt16, at seconds: Double) -> [AgentPublication] {
        var decoder = AdvertisementDecoder()
        var out: [AgentPublication] = []
        let bytes = IBeaconReport.event(
            address: 0xC000_0000_0000 | UInt64(major) << 16 | UInt64(minor), uuid: uuid, major: major, minor: minor, rssi: -60)
        decoder.decode(eventPacket: bytes[...], at: start + seconds) { advertisement in
            for case .publish(let publication) in core.observe(advertisement) { out.append(publication) }
        }
        return out
    }

    static func configure(_ core: inout AgentCore, _ payload: [UInt8], at seconds: Double) {
        _ = core.receiveConfiguration(topic: "presence/config/regions", payload: payload, at: start + seconds)
    }

    static func rangingTopics(_ core: inout AgentCore, at seconds: Double) -> [String: String] {
        var out: [String: String] = [:]
        for case .publish(let publication) in core.tick(at: start + seconds) where publication.topic.hasSuffix("/ranging") {
            out[publication.topic] = publication.text
        }
        return out
    }

    @Test func aTrackedBeaconFollowsTheRegionsToTheirNewMajor() {
        var core = AgentCore(settings: AgentCore.Settings(node: TopicLevelID("hall")!, room: TopicLevelID("hall")!), at: Self.start)
        Self.configure(&core, Self.regions([("five", 5)], revision: 1), at: 0)
        let first = Self.hear(&core, major: 5, minor: 1, at: 1)
        #expect(first.contains { $0.topic == "presence/nodes/hall/regions/five/event" && $0.text.contains(#""event":"enter""#) })
        _ = Self.hear(&core, major: 5, minor: 1, at: 2)

        // "five" now means major 6; the beacon's major 5 is "other"'s.
        Self.configure(&core, Self.regions([("five", 6), ("other", 5)], revision: 2), at: 3)
        let after = Self.hear(&core, major: 5, minor: 1, at: 4)
        #expect(after.contains { $0.topic == "presence/nodes/hall/regions/other/event" && $0.text.contains(#""event":"enter""#) })
        #expect(!after.contains { $0.topic.contains("/regions/five/") })
        #expect(core.monitor.state(of: TopicLevelID("other")!) == .inside)
        #expect(core.monitor.state(of: TopicLevelID("five")!) == .unknown)
        let ranging = Self.rangingTopics(&core, at: 4.5)
        #expect(ranging["presence/nodes/hall/regions/other/ranging"]?.contains(#""major":5,"minor":1"#) == true)
        #expect(ranging["presence/nodes/hall/regions/five/ranging"] == nil)
    }

    @Test func aBeaconTrackedForDiscoveryEntersARegionAddedLater() {
        var settings = AgentCore.Settings(node: TopicLevelID("hall")!, room: TopicLevelID("hall")!)
        settings.reportUnknown = true
        var core = AgentCore(settings: settings, at: Self.start)
        let first = Self.hear(&core, major: 7, minor: 2, at: 1)
        #expect(first.map(\.topic) == ["presence/beacons/ibeacon-\(Self.uuidText)-7-2/hall"])
        #expect(core.trackedBeaconCount == 1)

        Self.configure(&core, Self.regions([("seven", 7)], revision: 1), at: 2)
        let after = Self.hear(&core, major: 7, minor: 2, at: 3)
        #expect(after.contains { $0.topic == "presence/nodes/hall/regions/seven/event" && $0.text.contains(#""event":"enter""#) })
        #expect(core.tracks.group(at: core.tracks.slot(of: .iBeacon(uuid: BeaconUUID(bytes: Self.uuid)!, major: 7, minor: 2))!) == .region)
    }

    @Test func aBeaconWhoseRegionWasRemovedIsNoLongerMeasured() {
        var core = AgentCore(settings: AgentCore.Settings(node: TopicLevelID("hall")!, room: TopicLevelID("hall")!), at: Self.start)
        Self.configure(&core, Self.regions([("five", 5)], revision: 1), at: 0)
        #expect(!Self.hear(&core, major: 5, minor: 1, at: 1).isEmpty)
        Self.configure(&core, Self.regions([("six", 6)], revision: 2), at: 2)
        // Far off, so a measurement would be due by the step rule if the beacon were still measured.
        var decoder = AdvertisementDecoder()
        var actions: [AgentAction] = []
        let bytes = IBeaconReport.event(address: 0xC000_0005_0001, uuid: Self.uuid, major: 5, minor: 1, rssi: -95)
        decoder.decode(eventPacket: bytes[...], at: Self.start + 70) { actions += core.observe($0) }
        #expect(actions.isEmpty)
    }
}
