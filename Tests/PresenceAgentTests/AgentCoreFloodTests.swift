import BeaconCore
import Testing
import TestSupport
@testable import PresenceAgent

/// Issue 7: a flood of distinct random addresses and beacon ids must not grow the agent without
/// bound, and must not change what it says about the beacons it is there for. Driven through
/// `AgentCore` with real HCI bytes and an injected clock; no broker, no sleeping.
@Suite struct AgentCoreFloodTests {
    static let siteUUID: [UInt8] = [0xFD, 0xA5, 0x06, 0x93, 0xA4, 0xE2, 0x4F, 0xB1, 0xAF, 0xCF, 0xC6, 0xEB, 0x07, 0x64, 0x78, 0x25]
    static let siteUUIDText = "fda50693-a4e2-4fb1-afcf-c6eb07647825"
    static let otherUUID: [UInt8] = Array(repeating: 0x42, count: 16)
    static let start = Instant(seconds: 1_800_000_000)

    struct Run {
        var published: [AgentPublication] = []
        var maxTracked = 0
        var core: AgentCore
    }

    /// `seconds` of a site: three beacons in the region `office` (site uuid, major 1), one known
    /// beacon outside every region (minor 9 of major 2), each heard once a second with a steady
    /// walk of RSSI; plus, when `flood` > 0, that many advertisements of distinct random addresses
    /// and random-uuid ids spread over the same time. Discovery is on, so every flooding id is a
    /// beacon the agent would measure.
    static func run(seconds: Int, flood: Int, cap: Int) throws -> Run {
        var settings = AgentCore.Settings(
            node: TopicLevelID("hall")!, room: TopicLevelID("hall")!, reportUnknown: true, maximumTracks: cap)
        settings.rangingHeartbeat = 30
        var core = AgentCore(settings: settings, at: start)
        _ = core.receiveConfiguration(
            topic: "presence/config/regions",
            payload: Array(#"{"revision":1,"regions":[{"id":"office","uuid":"\#(siteUUIDText)","major":1}]}"#.utf8), at: start)
        _ = core.receiveConfiguration(
            topic: "presence/config/beacons",
            payload: Array(#"{"revision":1,"beacons":[{"beacon":"ibeacon-\#(siteUUIDText)-2-9","id":"keys","name":"Keys"}]}"#.utf8),
            at: start)
        var run = Run(core: core)
        var decoder = AdvertisementDecoder()
        var random = SeededRandom(seed: 2026)
        let floodPerSecond = flood / max(1, seconds)
        let site: [(major: UInt16, minor: UInt16, address: UInt64)] = [(1, 1, 0xC1), (1, 2, 0xC2), (1, 3, 0xC3), (2, 9, 0xC9)]

        func feed(_ bytes: [UInt8], at time: Instant) {
            decoder.decode(eventPacket: bytes[...], at: time) { advertisement in
                for case .publish(let publication) in run.core.observe(advertisement) { run.published.append(publication) }
            }
            run.maxTracked = max(run.maxTracked, run.core.trackedBeaconCount)
        }
        for second in 0..<seconds {
            let base = start + Double(second)
            for case .publish(let publication) in run.core.tick(at: base) { run.published.append(publication) }
            for (k, beacon) in site.enumerated() {
                // A slow walk plus a little fixed wobble: measurements, proximity changes, ranging.
                let rssi = Int8(-60 - (second / 7 + k * 5) % 25 + (second % 3) - 1)
                feed(IBeaconReport.event(address: beacon.address, uuid: siteUUID, major: beacon.major, minor: beacon.minor, rssi: rssi),
                     at: base + 0.1 * Double(k + 1))
            }
            for k in 0..<floodPerSecond {
                let uuid = random.bytes(16)
                let ids = random.next()
                feed(IBeaconReport.event(address: 0xC000_0000_0000 | (ids & 0x3FFF_FFFF_FFFF), uuid: uuid == siteUUID ? otherUUID : uuid,
                           major: UInt16(truncatingIfNeeded: ids >> 46), minor: UInt16(truncatingIfNeeded: ids >> 30),
                           rssi: Int8(-50 - Int(ids % 40))),
                     at: base + 0.5 + 0.4 * Double(k) / Double(floodPerSecond))
            }
        }
        for extra in 0..<45 {
            for case .publish(let publication) in run.core.tick(at: start + Double(seconds + extra)) { run.published.append(publication) }
        }
        return run
    }

    /// What the node says about the beacons it is there for: the region's and the known beacon's.
    static func aboutTheSite(_ published: [AgentPublication]) -> [String] {
        published.filter { publication in
            publication.topic.contains("/regions/") || publication.topic.contains(siteUUIDText)
                || publication.topic == "presence/beacons/keys/hall"
        }.map { "\($0.topic) \($0.text)" }
    }

    @Test("100,000 random addresses and ids: tracked beacons stay under the cap, the site's messages do not change, the drops are counted")
    func floodIsBoundedAndChangesNothingForTheSite() async throws {
        let cap = 2_000
        // Seconds of computation: on a thread of its own, so the suite's waiting tests keep running.
        let (quiet, flooded) = try await onOwnThread {
            (try Self.run(seconds: 200, flood: 0, cap: cap), try Self.run(seconds: 200, flood: 100_000, cap: cap))
        }

        #expect(flooded.core.advertisementCount == quiet.core.advertisementCount + 100_000)
        #expect(flooded.maxTracked <= cap)
        // Every flooding id is new and nothing it matches keeps it: each one beyond the room the cap
        // leaves (the cap less the four site beacons) pushed out an older one, and was counted.
        #expect(flooded.core.droppedBeaconCount == 100_000 - (cap - 4))
        #expect(quiet.core.droppedBeaconCount == 0)

        let expected = Self.aboutTheSite(quiet.published)
        let seen = Self.aboutTheSite(flooded.published)
        #expect(expected.contains { $0.contains("/regions/office/event") && $0.contains(#""event":"enter""#) })
        #expect(expected.contains { $0.contains("/regions/office/ranging") })
        #expect(expected.contains { $0.hasPrefix("presence/beacons/keys/hall ") })
        #expect(seen.count == expected.count)
        #expect(seen == expected)
    }

    @Test("At the cap, beacons that match nothing give way; region and known beacons stay tracked")
    func capEvictsUnmatchedBeaconsFirst() throws {
        let run = try Self.run(seconds: 20, flood: 20 * 50, cap: 10)
        #expect(run.maxTracked <= 10)
        // The site's four beacons were heard in every second and never evicted: their measurements
        // continue to the end (heartbeat or steps), and no silence was published for them.
        let silences = run.published.filter {
            ($0.topic.contains(Self.siteUUIDText) || $0.topic == "presence/beacons/keys/hall") && $0.text.contains(#""proximity":"unknown""#)
        }
        // After the capture (45 s of ticks) each site beacon says once that it is no longer heard.
        #expect(silences.count == 4)
        #expect(run.core.droppedBeaconCount == 20 * 50 - (10 - 4))
    }
}
