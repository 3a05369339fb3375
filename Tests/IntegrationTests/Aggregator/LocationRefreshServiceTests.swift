import BeaconCore
import MQTTClient
import PresenceAggregator
import TestSupport
import Testing

/// docs/MQTT.md, `<root>/locations/<beacon>`, through a real mosquitto: in the same room a
/// distance that moved by less than 25 % is not published at once, one that moved more is, and a
/// small change is published at the first measurement once the location is a minute old (issue 38's sixth round).
@Suite(.serialized) struct LocationRefreshServiceTests {
    @Test func aSmallDistanceChangeWaitsAMinuteAndALargeOneGoesAtOnce() async throws {
        let broker = try await TestBroker.start()
        let client = try await observer(broker)
        let location = MessageReader(try await client.subscribe("presence/locations/alice-keys"))
        let aggregator = try await LiveAggregator.start(on: broker, client: client) {
            $0.knownBeacons = [AggregatorServiceTests.alice]
        }
        try await aggregator.measure(beaconID, [("kitchen-1", "kitchen", 1.0), ("hall-1", "hall", 4.0)])
        try await aggregator.advance(by: 1)
        #expect(try object(try await location.next()).number("distance") == 1.0)

        // 1.0 → 1.2 (20 %): not published; 1.0 → 1.4 (40 %): published. The next location the
        // subscriber gets is the 1.4 one, so the 1.2 one never went out.
        try await aggregator.measure(beaconID, [("kitchen-1", "kitchen", 1.2)])
        try await aggregator.advance(by: 1)
        try await aggregator.measure(beaconID, [("kitchen-1", "kitchen", 1.4)])
        #expect(try object(try await location.next()).number("distance") == 1.4)

        // 1.4 → 1.3 (8 %): held; then 1.9 (36 % from the published 1.4): the next location is the 1.9 one.
        try await aggregator.measure(beaconID, [("kitchen-1", "kitchen", 1.3)])
        try await aggregator.advance(by: 1)
        try await aggregator.measure(beaconID, [("kitchen-1", "kitchen", 1.9)])
        #expect(try object(try await location.next()).number("distance") == 1.9)

        // 1.9 → 1.8 (6 %): published at the first measurement a minute after the last location
        // (both nodes keep speaking every 10 s, as heartbeats would, so no evidence goes stale).
        try await aggregator.measure(beaconID, [("kitchen-1", "kitchen", 1.8)])
        for _ in 0..<6 {
            try await aggregator.advance(by: 10, step: 1)
            try await aggregator.measure(beaconID, [("hall-1", "hall", 4.0), ("kitchen-1", "kitchen", 1.8)])
        }
        let refreshed = try object(try await location.next())
        #expect(refreshed.number("distance") == 1.8)
        #expect(refreshed.string("room") == "kitchen")
        try await aggregator.stop()
    }
}
