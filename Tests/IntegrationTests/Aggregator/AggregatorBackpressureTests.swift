import BeaconCore
import MQTTClient
import PresenceAggregator
import TestSupport
import Testing

/// A broker that falls behind: the aggregator's state waits coalesced per topic (the newest value
/// replaces the one waiting), events beyond the backlog's limit are counted, and when the broker
/// catches up every retained topic holds the true value. Issue 38: at 30,000 beacons the client's
/// out-queue filled and 148,000 publications — locations and room lists among them — were
/// dropped, leaving retained topics that were no longer true.
@Suite(.serialized) struct AggregatorBackpressureTests {
    static let movers = (0..<20).map { BeaconID(rawValue: "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-3-\($0)") }
    /// Known, with an away timeout of an hour: still in the kitchen after the pause.
    static let stayers = (0..<20).map { BeaconID(rawValue: "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-4-\($0)") }

    @Test func everyRetainedTopicEndsTrueAfterAPausedBrokerWithATinyWindow() async throws {
        let broker = try await TestBroker.start()
        defer { broker.kill() }
        let client = try await observer(broker)
        let recorder = try await TopicRecorder.start(broker, filter: "presence/#")
        // Two messages unacknowledged at most: everything else waits in the backlog.
        let aggregator = try await LiveAggregator.start(on: broker, client: client, publishingWindow: 2, backlogEventLimit: 10) {
            $0.knownBeacons = Self.stayers.map { KnownBeacon(beacon: $0, awayTimeout: 3_600) }
        }
        let service = aggregator.service
        let everyone = Self.movers + Self.stayers

        // All in the kitchen.
        for beacon in everyone {
            try client.publish(
                topic: "presence/beacons/\(beacon.rawValue)/kitchen-1",
                string: measurementJSON(beacon, node: "kitchen-1", room: "kitchen", distance: 1.0), qos: .atLeastOnce)
        }
        try await eventually("every measurement handled") { service.statistics.measurements == everyone.count }
        try await aggregator.advance(by: 1)
        try await recorder.wait(for: "everyone in the kitchen") { messages in
            Self.lastRooms(messages).filter { $0.value == "kitchen" }.count == everyone.count
        }

        // The movers are heard in the hall; then the broker stops answering, and the aggregator
        // decides their move, and 40 s later their departure, while it cannot publish.
        for beacon in Self.movers {
            for (node, room, distance) in [("kitchen-1", "kitchen", 5.0), ("hall-1", "hall", 1.0)] {
                try client.publish(
                    topic: "presence/beacons/\(beacon.rawValue)/\(node)",
                    string: measurementJSON(beacon, node: node, room: room, distance: distance), qos: .atLeastOnce)
            }
        }
        try await eventually("the movers' measurements handled") {
            service.statistics.measurements == everyone.count + 2 * Self.movers.count
        }
        broker.pause()
        try await aggregator.advance(by: 3, step: 0.5)  // the movers go to the hall
        try await aggregator.advance(by: 40)  // and away (30 s unheard); the stayers are known for an hour
        let behind = service.statistics
        // Each mover's location went to the hall and then away while the first waited.
        #expect(behind.coalescedPublications >= Self.movers.count)
        // 20 room changes and 20 departures against room for 10 events.
        #expect(behind.droppedEvents > 0)
        // Bounded by the topics, not by what happened: per beacon its location, its room and three
        // discovery configs, plus the two rooms' lists, the nodes' devices and 10 events.
        #expect(behind.waitingPublications > 0)
        #expect(behind.waitingPublications <= everyone.count * 5 + 20)

        broker.resume()
        try await eventually("the backlog sent", timeout: .seconds(20)) { service.statistics.waitingPublications == 0 }
        let moverIDs = Set(Self.movers.map(\.rawValue))
        try await recorder.wait(for: "every location true", timeout: .seconds(20)) { messages in
            let rooms = Self.lastRooms(messages)
            return rooms.count == everyone.count
                && rooms.allSatisfy { $0.value == (moverIDs.contains($0.key) ? "not_home" : "kitchen") }
        }
        try await recorder.wait(for: "the rooms' lists true", timeout: .seconds(20)) { messages in
            Self.occupants(messages, "kitchen") == Set(Self.stayers.map(\.rawValue)) && Self.occupants(messages, "hall") == []
        }
        #expect(service.statistics.failedPublications == 0)

        // What the broker retained is what a newcomer (Home Assistant restarting) reads.
        let late = try await TopicRecorder.start(broker, filter: "presence/locations/+/room", clientID: "late")
        let retained = try await late.wait(for: "every retained room") { Self.lastRooms($0).count == everyone.count }
        #expect(retained.allSatisfy { $0.retain })
        #expect(Self.lastRooms(retained).allSatisfy { $0.value == (moverIDs.contains($0.key) ? "not_home" : "kitchen") })
        try await aggregator.stop()
    }

    /// The last `presence/locations/<id>/room` payload of each beacon.
    static func lastRooms(_ messages: [TopicRecorder.Message]) -> [String: String] {
        var rooms: [String: String] = [:]
        for message in messages {
            let parts = message.topic.split(separator: "/")
            guard parts.count == 4, parts[1] == "locations", parts[3] == "room" else { continue }
            rooms[String(parts[2])] = message.text
        }
        return rooms
    }

    /// The ids in the last `presence/rooms/<room>` message.
    static func occupants(_ messages: [TopicRecorder.Message], _ room: String) -> Set<String>? {
        guard let last = messages.last(where: { $0.topic == "presence/rooms/\(room)" }),
              case .object(let object) = try? JSONParser.parse(last.payload),
              case .array(let occupants)? = object["occupants"]
        else { return nil }
        return Set(occupants.compactMap { if case .object(let occupant) = $0 { occupant.string("id") } else { nil } })
    }
}
