import BeaconCore
import MQTTClient
import PresenceAggregator
import TestSupport
import Testing

/// A site of many beacons decided in one tick: the aggregator publishes up to seven QoS 1 messages
/// per beacon at once (discovery, location, room, the room's occupants, the event). The fleet load
/// test found a site of 5,000 beacons losing most of them to the client's default bound of 1,000
/// unacknowledged messages.
@Suite(.serialized) struct AggregatorServiceBurstTests {
    @Test func aThousandBeaconsDecidedInOneTickLoseNoPublication() async throws {
        let broker = try await TestBroker.start()
        let client = try await observer(broker)
        let live = MessageReader(try await client.subscribe("presence/locations/+/room"))
        let aggregator = try await LiveAggregator.start(on: broker, client: client)
        let service = aggregator.service
        let beacons = (0..<1_000).map { BeaconID(rawValue: "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-1-\($0)") }
        for (index, beacon) in beacons.enumerated() {
            let room = "room-\(index % 10)"
            try client.publish(
                topic: "presence/beacons/\(beacon.rawValue)/\(room)-1",
                string: measurementJSON(beacon, node: "\(room)-1", room: room, distance: 1.0), qos: .atLeastOnce)
        }
        try await eventually("every measurement handled") { service.statistics.measurements == beacons.count }
        try await aggregator.advance(by: 1)  // the settle time: every beacon is decided in this tick

        var delivered = Set<String>()
        while delivered.count < beacons.count { delivered.insert(try await live.next().topic) }
        #expect(service.statistics.failedPublications == 0)
        // Every room topic is retained at the broker: a late subscriber gets all of them.
        let late = try await observer(broker, "late")
        let rooms = MessageReader(try await late.subscribe("presence/locations/+/room"))
        var seen = Set<String>()
        while seen.count < beacons.count {
            let message = try await rooms.next()
            #expect(message.retain)
            seen.insert(message.topic)
        }
        #expect(seen.count == beacons.count)
        try await aggregator.stop()
    }
}
