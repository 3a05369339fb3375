import BeaconCore
import TestSupport
import PresenceAggregator
import Testing

/// Issue 7: a flood of random beacon ids (spoofed or passing devices) must not grow the
/// aggregator without bound, nor change anything for the beacons that matter.
@Suite struct AggregatorFloodTests {
    static let alice = KnownBeacon(beacon: beaconID, alias: TopicLevelID("alice-keys"), name: "Alice's keys")
    static let bob = KnownBeacon(beacon: otherBeaconID, alias: TopicLevelID("bobs-phone"), name: "Bob's phone")
    static let nodes = [("kitchen-1", "kitchen"), ("hall-1", "hall"), ("office-1", "office")]

    struct Run {
        var known: [AggregatorPublication] = []
        var maxTracked = 0
        var maxUnknown = 0
        var maxDeciderBeacons = 0
        var distinctFloodIDs = 0
        var core: AggregatorCore
    }

    /// 200 s: Alice walks kitchen → hall → office, Bob stays in the office, each heard by every node
    /// once a second; with `flood`, 500 new random beacon ids a second (100,000 in all), each heard
    /// once by one node, interleaved with them.
    func run(flood: Bool, cap: Int) -> Run {
        var configuration = AggregatorConfiguration.default
        configuration.knownBeacons = [Self.alice, Self.bob]
        configuration.maxUnknownBeacons = cap
        // Discovery messages are per beacon and cost time here, not insight (the eviction test
        // below checks they are cleared).
        configuration.homeAssistantDiscovery = false
        var run = Run(core: AggregatorCore(configuration: configuration, softwareVersion: "1.0"))
        var random = SeededRandom(seed: 0xF100D)
        var seen = Set<BeaconID>()
        let knownTopics: Set<String> = [
            "presence/locations/alice-keys", "presence/locations/alice-keys/room",
            "presence/locations/bobs-phone", "presence/locations/bobs-phone/room",
        ]
        func keep(_ publications: [AggregatorPublication]) {
            run.known += publications.filter {
                knownTopics.contains($0.topic)
                    || ($0.topic == "presence/events" && ($0.payload.contains(#""id":"alice-keys""#) || $0.payload.contains(#""id":"bobs-phone""#)))
            }
            run.maxTracked = max(run.maxTracked, run.core.trackedBeaconCount)
            run.maxUnknown = max(run.maxUnknown, run.core.trackedUnknownBeaconCount)
            run.maxDeciderBeacons = max(run.maxDeciderBeacons, run.core.decider.physics.beaconCount)
        }
        for second in 0..<200 {
            let aliceRoom = second < 60 ? "kitchen" : second < 130 ? "hall" : "office"
            for step in 0..<500 {
                let time = startTime + Double(second) + Double(step) / 500
                if step % 100 == 0 {
                    // The known beacons: each node in turn, the one in the beacon's room near.
                    let (node, room) = Self.nodes[(step / 100) % 3]
                    for (beacon, home) in [(beaconID, aliceRoom), (otherBeaconID, "office")] {
                        let distance = room == home ? 1.2 : 6.5
                        keep(run.core.receive(ReceivedMeasurement(
                            beacon: beacon, node: node, room: room, distance: distance, proximity: .near), at: time))
                    }
                }
                guard flood else { continue }
                var id: BeaconID
                repeat {
                    let address = random.bytes(6).map { byte in String(byte, radix: 16).count == 1 ? "0" + String(byte, radix: 16) : String(byte, radix: 16) }
                    id = BeaconID(rawValue: "mac-" + address.joined())
                } while !seen.insert(id).inserted
                let (node, room) = Self.nodes[Int.random(in: 0..<3, using: &random)]
                keep(run.core.receive(ReceivedMeasurement(
                    beacon: id, node: node, room: room, distance: Double.random(in: 0.5...12, using: &random),
                    proximity: .far), at: time))
            }
            keep(run.core.tick(at: startTime + Double(second + 1)))
        }
        run.distinctFloodIDs = seen.count
        return run
    }

    @Test func floodOfRandomBeaconIDsStaysUnderTheCapAndKnownDecisionsDoNotChange() async throws {
        let cap = 2_000
        // Seconds of computation: on a thread of its own, so the suite's waiting tests keep running.
        let (quiet, flooded) = try await onOwnThread { (run(flood: false, cap: cap), run(flood: true, cap: cap)) }
        #expect(flooded.distinctFloodIDs == 100_000)
        // Bounded: never more unknown beacons than the cap, in the core or in its decider.
        #expect(flooded.maxUnknown == cap)
        #expect(flooded.maxTracked <= cap + 2)
        #expect(flooded.maxDeciderBeacons <= cap + 2)
        // Every id beyond the cap evicted one (none was old enough to be forgotten).
        #expect(flooded.core.evictedBeacons == 100_000 - cap)
        #expect(quiet.core.evictedBeacons == 0)
        // The known beacons, never evicted, decided exactly as without the flood.
        #expect(flooded.core.trackedBeacons.contains(beaconID))
        #expect(flooded.core.trackedBeacons.contains(otherBeaconID))
        #expect(flooded.known.count > 6)
        #expect(flooded.known == quiet.known)
        #expect(flooded.core.location(of: beaconID)?.room == "office")
        #expect(flooded.core.location(of: beaconID) == quiet.core.location(of: beaconID))
        #expect(flooded.core.location(of: otherBeaconID) == quiet.core.location(of: otherBeaconID))
    }

    /// An evicted beacon is forgotten as `forgetAfter` forgets: its retained topics and discovery
    /// are cleared, and it leaves its room's list.
    @Test func evictedBeaconIsForgottenAndLeavesItsRoom() {
        var configuration = AggregatorConfiguration.default
        configuration.maxUnknownBeacons = 1
        var core = AggregatorCore(configuration: configuration, softwareVersion: "1.0")
        let first = BeaconID(rawValue: "mac-aabbccddee01")
        let second = BeaconID(rawValue: "mac-aabbccddee02")
        _ = core.receive(ReceivedMeasurement(beacon: first, node: "hall-1", room: "hall", distance: 1, proximity: .near),
                         at: startTime)
        let placed = core.tick(at: startTime + 1)
        #expect(placed.contains { $0.topic == "presence/locations/\(first.rawValue)/room" && $0.payload == "hall" })
        let evicting = core.receive(
            ReceivedMeasurement(beacon: second, node: "hall-1", room: "hall", distance: 1, proximity: .near), at: startTime + 2)
        #expect(core.evictedBeacons == 1)
        #expect(core.trackedBeacons == [second])
        #expect(core.decider.physics.beaconCount == 1)
        // The entities go before their state topics are cleared (an empty room is no option).
        #expect(evicting.filter { $0.payload.isEmpty }.map(\.topic) == [
            "homeassistant/device_tracker/beaconpresence_presence/\(first.rawValue)_tracker/config",
            "homeassistant/sensor/beaconpresence_presence/\(first.rawValue)_room/config",
            "homeassistant/sensor/beaconpresence_presence/\(first.rawValue)_distance/config",
            "presence/locations/\(first.rawValue)", "presence/locations/\(first.rawValue)/room",
        ])
        // Its room's list follows at the tick (under a flood every measurement evicts one).
        #expect(!evicting.contains { $0.topic == "presence/rooms/hall" })
        let ticked = core.tick(at: startTime + 2.5)
        #expect(ticked.map(\.topic) == ["presence/rooms/hall"])
        #expect(ticked.first?.payload == #"{"room":"hall","occupants":[],"count":0}"#)
    }
}
