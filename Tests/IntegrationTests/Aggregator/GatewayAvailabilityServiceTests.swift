import BeaconCore
import Foundation
import MQTTClient
import PresenceAggregator
import TestSupport
import Testing

/// A gateway's availability (its last will) read by the aggregator, against a real mosquitto with
/// messages shaped as OpenMQTTGateway and Theengs Gateway publish them (`ForeignNodePayloads`):
/// `offline` ends the gateway's word at once, and `watch`, its summary and its Home Assistant
/// device show it — beside its adverts by default, or where `availability` says.
@Suite(.serialized) struct GatewayAvailabilityServiceTests {
    typealias P = ForeignNodePayloads
    static let alice = KnownBeacon(beacon: P.iBeacon(major: 5, minor: 6), alias: TopicLevelID("alice-keys"), name: "Alice's keys")

    @Test func aGatewaysOfflineEndsItsWordAtOnceAndWatchShowsIt() async throws {
        let (run, readers) = try await ForeignAggregator.start(reading: "presence/locations/alice-keys/room", "presence/aggregator/nodes/+") {
            $0.knownBeacons = [Self.alice]
            $0.sources.gateways = [
                // A Theengs Gateway in the hall whose `lwt_topic` was moved.
                GatewaySettings(topic: "home/TheengsGateway/BTtoMQTT/+", rooms: ["TheengsGateway": "hall"], availability: "gateways/hall/lwt"),
                // An OpenMQTTGateway in the office, its last will beside its adverts.
                GatewaySettings(topic: "home/+/BTtoMQTT/+", rooms: ["gw-office": "office"]),
            ]
        }
        let (room, summaries) = (readers[0], readers[1])
        try await run.publish([("home/gw-office/LWT", "online"), ("gateways/hall/lwt", "online")], retain: true)
        func adverts(office: Int?, hall: Int) -> [(String, String)] {
            var out = [("home/TheengsGateway/BTtoMQTT/C4A1B2C3D4E5", P.theengsIBeacon(rssi: hall, major: 5, minor: 6))]
            if let office {
                out.append(("home/gw-office/BTtoMQTT/C4A1B2C3D4E5", P.openMQTTGateway(
                    address: "C4:A1:B2:C3:D4:E5", macType: 0, rssi: office, manufacturerData: P.iBeaconData(major: 5, minor: 6))))
            }
            return out
        }
        for step in 0..<10 {
            try await run.publish(adverts(office: -58 - step % 2, hall: -79 + step % 2))
            try await run.aggregator.advance(by: 0.2)
        }
        #expect(text(try await room.next()) == "office")

        // The office gateway's last will: its word ends at once, not after its 5 s of silence.
        try await run.publish([("home/gw-office/LWT", "offline")], retain: true)
        for step in 0..<3 {
            try await run.publish(adverts(office: nil, hall: -79 + step % 2))
            try await run.aggregator.advance(by: 1)
        }
        #expect(text(try await room.next()) == "hall")

        // Its summary says so, with nothing heard; the Theengs Gateway's is online.
        try await run.aggregator.advance(by: 1)
        let office = try object(try await summaries.until {
            $0.topic.hasSuffix("/gw-office") && (try? object($0))?.string("status") == "offline"
        }.last!)
        #expect(office.string("source") == "gateway")
        guard case .array(let heard)? = office["beacons"] else { throw ForeignNodeDevicesServiceTests.NotAnArray() }
        #expect(heard.isEmpty)

        let lines = try await watchOnce(run.aggregator.broker)
        #expect(lines.contains { $0.hasPrefix("  gw-office ") && $0.contains(" office ") && $0.contains(" OFFLINE ") && $0.contains(" gateway ") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  theengsgateway ") && $0.contains(" hall ") && $0.contains(" online ") && $0.contains(" gateway ") }, "\(lines)")

        // Home Assistant reads each gateway's connectivity where the aggregator does.
        let prefix = "homeassistant/binary_sensor/beaconpresence_presence/node_"
        let moved = try object(try await MessageReader(try await run.aggregator.client.subscribe(prefix + "theengsgateway_connectivity/config")).next())
        #expect(moved.string("state_topic") == "gateways/hall/lwt")
        let beside = try object(try await MessageReader(try await run.aggregator.client.subscribe(prefix + "gw-office_connectivity/config")).next())
        #expect(beside.string("state_topic") == "home/gw-office/LWT")

        // Anything but online or offline is refused, counted and logged.
        #expect(run.aggregator.service.statistics.foreign.rejected == 0)
        try await run.publish([("gateways/hall/lwt", "maybe")])
        #expect(run.aggregator.service.statistics.foreign.rejected == 1)
        #expect(run.log.lines.contains { $0.contains("foreign node message rejected") && $0.contains("node=theengsgateway") })
        try await run.aggregator.stop()
    }
}
