import BeaconCore
import MQTTClient
import PresenceAggregator
import TestSupport
import Testing

/// Issue 38: a switch is published when its dwell ends, not at the next tick after it (which
/// waited up to a tick interval: 1 s by default, 0.25 s in the fleet bench). The test's clock
/// moves without ticking, so only the service's own wake-up at the due time can publish it.
@Suite(.serialized) struct AggregatorDueTimeTests {
    @Test func aSwitchDueBetweenTicksIsPublishedWhenDue() async throws {
        let broker = try await TestBroker.start()
        let client = try await observer(broker)
        let location = MessageReader(try await client.subscribe("presence/locations/alice-keys"))
        let aggregator = try await LiveAggregator.start(on: broker, client: client) {
            $0.knownBeacons = [AggregatorServiceTests.alice]
        }
        let service = aggregator.service
        try await aggregator.measure(beaconID, [("kitchen-1", "kitchen", 1.0), ("hall-1", "hall", 4.0)])
        try await aggregator.advance(by: 1)
        #expect(try object(try await location.next()).string("room") == "kitchen")
        try await aggregator.advance(by: 1)

        // A move at 08:00:02: the hall leads by more than the lead cap at once, so the switch is
        // due when its dwell (1.5 s) ends, at 08:00:03.5.
        try await aggregator.measure(beaconID, [("hall-1", "hall", 0.5), ("kitchen-1", "kitchen", 5.0)])
        let ticks = service.statistics.ticks
        let wakeUps = service.statistics.dueWakeUps
        let clock = aggregator.clock
        try await eventually("the wake-up set") { clock.timedWaitCount >= 1 }
        clock.advance(by: 1.4, tick: false)
        clock.advance(by: 0.1, tick: false)
        let moved = try object(try await location.until { (try? object($0).string("room")) == "hall" }.last!)
        #expect(moved.string("since") == "2025-11-22T08:00:03.500Z")
        #expect(service.statistics.ticks == ticks)
        try await eventually("the wake-up counted") { service.statistics.dueWakeUps > wakeUps }
        try await aggregator.stop()
    }
}
