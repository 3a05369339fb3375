import BeaconCore
import Foundation
import MQTTClient
import PresenceAggregator
import RoomDecisions
import TestSupport
import Testing

/// A beacon the operator marks `worn` on the retained `presence/config/beacons` (a wristband) is
/// decided with the worn profile by the live aggregator on a real mosquitto; a beacon not marked
/// (keys) with the site's rule, on the same measurements. Time is the service's clock.
@Suite(.serialized) struct WornBeaconServiceTests {
    /// Node `hall-1` at 4 m and `kitchen-1` at `kitchen` m, for both beacons, `count` times every
    /// 0.5 s (a node publishes as its filter moves).
    private func hear(_ aggregator: LiveAggregator, kitchen: Double, hall: Double, count: Int) async throws {
        for _ in 0..<count {
            for (beacon, alias) in [(beaconID, "alice-band"), (otherBeaconID, "bob-keys")] {
                try await aggregator.measure(beacon, [("kitchen-1", "kitchen", kitchen), ("hall-1", "hall", hall)], alias: alias)
            }
            try await aggregator.advance(by: 0.5)
        }
    }

    @Test func aWornBeaconHoldsItsRoomThroughAShadowAndFollowsAMove() async throws {
        let broker = try await TestBroker.start()
        try broker.mosquittoPub(
            topic: "presence/config/beacons",
            message: #"{"revision":1,"beacons":[{"beacon":"\#(beaconID)","id":"alice-band","worn":true},{"beacon":"\#(otherBeaconID)","id":"bob-keys"}]}"#,
            qos: 1, retain: true)
        let client = try await observer(broker)
        let alice = MessageReader(try await client.subscribe("presence/locations/alice-band"))
        let bob = MessageReader(try await client.subscribe("presence/locations/bob-keys"))
        let aggregator = try await LiveAggregator.start(on: broker, client: client)
        let service = aggregator.service
        try await eventually("the retained list handled") { service.statistics.pushedBeaconLists == 1 }
        // The site's rule is the test configuration's (margin 0.25 dB, dwell 1.5 s); the worn
        // profile's switching rule is SwitchingRule.worn.
        let worn = SwitchingRule.worn
        #expect(worn.margin == 2.5 && worn.dwell == 6 && worn.fastLead == 4)

        // Both in the kitchen: 1 m from its node, 4 m from the hall's.
        try await hear(aggregator, kitchen: 1, hall: 4, count: 4)
        func room(_ message: MQTTMessage) -> String? { try? object(message).string("room") }
        #expect(try await alice.until { room($0) == "kitchen" }.count == 1)
        #expect(try await bob.until { room($0) == "kitchen" }.count == 1)

        // A shadow: the wearer sits with their back to the kitchen's node for 8 s, which puts the
        // hall 2 dB ahead (n = 1.5: 4 m against 5.4 m). The keys follow it to the hall; the worn
        // profile's 2.5-dB margin is not passed, nor the fast clock's 4 dB: the wristband stays.
        let shadowStart = aggregator.clock.now()
        try await hear(aggregator, kitchen: 4 * pow(10, 2.0 / 15), hall: 4, count: 16)
        let keysMoved = try #require(room(try await bob.until { room($0) == "hall" }.last!))
        #expect(keysMoved == "hall")
        try await hear(aggregator, kitchen: 1, hall: 4, count: 8)
        #expect(try await bob.until { room($0) == "kitchen" }.count >= 1)

        // A real move: the hall's node hears it at 1 m, the kitchen's at 5 m. The wristband's
        // fast clock (the hall's raw adverts, each measurement's `rssi`, 4 dB above the held
        // kitchen for 1.1 s) moves it well before the worn profile's 6-s dwell.
        let moveStart = aggregator.clock.now()
        try await hear(aggregator, kitchen: 5, hall: 1, count: 10)
        let moved = try object(try await alice.until { room($0) == "hall" }.last!)
        let since = try #require(moved.string("since"))
        #expect(since > ISO8601Timestamp.string(from: moveStart), "the wristband left the kitchen during the shadow (from \(ISO8601Timestamp.string(from: shadowStart)))")
        #expect(since <= ISO8601Timestamp.string(from: Instant(seconds: moveStart.seconds + 4)), "moved at \(since)")
        try await aggregator.stop()
    }
}
