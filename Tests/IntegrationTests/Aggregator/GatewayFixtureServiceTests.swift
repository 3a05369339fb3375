import BeaconCore
import Foundation
import MQTTClient
import PresenceAggregator
import TestSupport
import Testing

/// Gateways as they really publish (`GatewayFixture`: made by TheengsDecoder 2.5.0 and Theengs
/// Gateway 1.8.0 themselves) through a real mosquitto: the capture's Govee iBeacon, minor 62207,
/// which the decoder writes as −3329, is placed in the gateway's room; and what the aggregator
/// refuses is logged naming the gateway, the device and the field once a minute, and counted in
/// the gateway's summary that `watch` shows.
@Suite(.serialized) struct GatewayFixtureServiceTests {
    static let govee = KnownBeacon(
        beacon: BeaconID(rawValue: "ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20594-62207"),
        alias: TopicLevelID("govee"), name: "Govee sensor")

    @Test func theCapturesIBeaconAsTheengsGatewayPublishesItIsPlacedInTheGatewaysRoom() async throws {
        let adverts = try GatewayFixture.adverts().filter { $0.expect == Self.govee.beacon.rawValue }
        let message = try #require(adverts.first?.theengs.first)
        // Exactly as published: its default topic and the decoder's signed minor.
        #expect(message.topic == "home/TheengsGateway/BTtoMQTT/A4C138BF6FAB")
        #expect(message.payload.contains(#""minor": -3329"#))

        let (run, readers) = try await ForeignAggregator.start(reading: "presence/locations/govee/room") {
            $0.knownBeacons = [Self.govee]
            $0.sources.gateways = [GatewaySettings(topic: "home/+/BTtoMQTT/+", rooms: ["TheengsGateway": "hall"])]
        }
        let room = readers[0]
        for _ in 0..<5 {
            try await run.publish([(message.topic, message.payload)])
            try await run.aggregator.advance(by: 0.5)
        }
        #expect(text(try await room.next()) == "hall")
        #expect(run.aggregator.service.statistics.foreign.rejected == 0)
        try await run.aggregator.stop()
    }

    @Test func aRefusedAdvertNamesGatewayDeviceAndFieldOnceAMinuteAndWatchCountsIt() async throws {
        let (run, readers) = try await ForeignAggregator.start(reading: "presence/aggregator/nodes/+") {
            $0.knownBeacons = [Self.govee]
            $0.sources.gateways = [GatewaySettings(topic: "home/+/BTtoMQTT/+", rooms: ["gw-attic": "attic"])]
        }
        let summaries = readers[0]
        // A minor no decoder writes, and a major as a string: what the gateway cannot help.
        let topic = "home/gw-attic/BTtoMQTT/A4C138BF6FAB"
        func advert(_ fields: String) -> (String, String) {
            (topic, #"{"id": "A4:C1:38:BF:6F:AB", "rssi": -49, "model_id": "IBEACON", "uuid": "494e54454c4c495f524f434b535f4857", \#(fields)}"#)
        }
        let refused = [advert(#""major": 20594, "minor": 70000"#), advert(#""major": "20594", "minor": 1"#), advert(#""major": 20594, "minor": 70000"#)]
        try await run.publish(refused)
        try await run.aggregator.advance(by: 1)
        var lines = run.log.lines.filter { $0.contains("foreign node message rejected") }
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first.map { $0.contains("node=gw-attic") && $0.contains("device=A4C138BF6FAB") && $0.contains("field=minor") } == true, "\(lines)")

        // Its summary counts all three, though the gateway never sent an advert that was used.
        let summary = try await summaries.until { (try? object($0))?.number("rejected") == 3 }.last!
        #expect(summary.topic == "presence/aggregator/nodes/gw-attic")
        let watch = try await watchOnce(run.aggregator.broker)
        #expect(watch.contains { $0.hasPrefix("NODES") && $0.hasSuffix("KIND     REJECTED") }, "\(watch)")
        #expect(watch.contains { $0.hasPrefix("  gw-attic ") && $0.contains(" attic ") && $0.hasSuffix(" gateway  3") }, "\(watch)")

        // A minute on, the next refusal is logged again, with the count since the last line.
        try await run.aggregator.advance(by: 60)
        try await run.publish([advert(#""major": "20594", "minor": 1"#)])
        lines = run.log.lines.filter { $0.contains("foreign node message rejected") }
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.last.map { $0.contains("field=major") && $0.contains("count=3") } == true, "\(lines)")
        try await run.aggregator.stop()
    }
}
