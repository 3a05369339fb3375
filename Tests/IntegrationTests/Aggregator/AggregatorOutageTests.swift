import BeaconCore
import MQTTClient
import PresenceAggregator
import ServiceLifecycle
import TestSupport
import Testing

/// Repeated broker outages under the aggregator: a fake node moves a beacon between the kitchen and
/// the hall eight times; four times the broker (no persistence) is killed right after the move's
/// measurements have arrived, so the aggregator decides the move while it has no broker. Every
/// `presence/events` change and every location arrives at a QoS 1 subscriber, and after each
/// reconnect the retained topics are back. The aggregator's clock is the test's; nothing sleeps.
@Suite(.serialized) struct AggregatorOutageTests {
    static let alice = KnownBeacon(beacon: beaconID, alias: TopicLevelID("alice-keys"), name: "Alice's keys")

    @Test func everyChangeArrivesAndTheRetainedStateIsWholeAfterEachOutage() async throws {
        let broker = try await TestBroker.start()  // persistence false: retained messages are lost at each restart
        defer { broker.kill() }
        let recorder = try await TopicRecorder.start(broker, filter: "presence/#", clientID: "aggregator-recorder", persistentSession: true)
        let node = try await observer(broker, "fake-node")
        let configuration = LiveAggregator.configuration(for: broker) { $0.knownBeacons = [Self.alice] }
        let clock = ManualClock(now: startTime)
        // Reconnects after 1 s, so the recorder (100 ms) is subscribed again before it publishes.
        let service = AggregatorService(
            configuration: configuration, clock: clock, logger: quietLogger, softwareVersion: "1",
            reconnect: MQTTReconnectPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(1)))
        let group = ServiceGroup(configuration: .init(services: [.init(service: service)], logger: quietLogger))
        let task = Task { try await group.run() }
        let aggregator = LiveAggregator(broker: broker, clock: clock, service: service, group: group, task: task, client: node)
        try await recorder.wait(forTopic: "presence/aggregator/status") { $0.text == "online" }

        func near(_ room: String) -> [(node: String, room: String, distance: Double?)] {
            [("kitchen-1", "kitchen", room == "kitchen" ? 1.0 : 5.0), ("hall-1", "hall", room == "hall" ? 1.0 : 5.0)]
        }
        try await aggregator.measure(beaconID, near("kitchen"), alias: "alice-keys")
        try await aggregator.advance(by: 1)
        try await recorder.wait(forTopic: "presence/locations/alice-keys/room") { $0.text == "kitchen" }

        var measured: [(brokerUpToOnline: Duration, onlineToWhole: Duration)] = []
        let moves = 8
        for move in 1...moves {
            let room = move % 2 == 1 ? "hall" : "kitchen"
            try await aggregator.advance(by: 1)
            try await aggregator.measure(beaconID, near(room), alias: "alice-keys")
            guard move % 2 == 0 else {
                try await aggregator.advance(by: 3, step: 0.5)
                try await recorder.wait(forTopic: "presence/locations/alice-keys/room") { $0.text == room }
                continue
            }
            // The move is decided while the broker is away.
            broker.kill()
            // Counted from the kill, not after the probe: on a loaded machine the aggregator may be
            // back (and its `online` retained) before the recorder's probe returns.
            let before = recorder.messages.count
            try await aggregator.advance(by: 3, step: 0.5)
            try await broker.restart()
            let brokerUp = ContinuousClock.now
            try await recorder.probe(through: broker, "move \(move)")
            let messages = try await recorder.wait(for: "the aggregator online after the outage at move \(move)", timeout: .seconds(15)) {
                $0.dropFirst(before).contains { $0.topic == "presence/aggregator/status" && $0.text == "online" }
            }
            let online = try #require(messages.dropFirst(before).first { $0.topic == "presence/aggregator/status" && $0.text == "online" })
            let retained: Set<String> = [
                "presence/aggregator/status", "presence/locations/alice-keys", "presence/locations/alice-keys/room",
                "presence/rooms/\(room)",
            ]
            let whole = try await recorder.wait(for: "the retained state after move \(move)", timeout: .seconds(10)) { all in
                retained.isSubset(of: Set(all.dropFirst(before).map(\.topic)))
                    && all.dropFirst(before).contains { $0.topic == "presence/locations/alice-keys/room" && $0.text == room }
            }
            let arrivals = retained.compactMap { topic in whole.dropFirst(before).last { $0.topic == topic }?.receivedAt }
            let last = try #require(arrivals.max())
            measured.append((online.receivedAt - brokerUp, max(.zero, last - online.receivedAt)))
            #expect(last - online.receivedAt < .seconds(1))

            let newcomer = try await TopicRecorder.start(broker, filter: "presence/#", clientID: "newcomer-\(move)")
            try await newcomer.wait(for: "every retained topic after move \(move)", timeout: .seconds(5)) { messages in
                retained.isSubset(of: Set(messages.filter(\.retain).map(\.topic)))
                    && messages.contains { $0.topic == "presence/locations/alice-keys/room" && $0.retain && $0.text == room }
            }
            await newcomer.stop()
        }

        try await aggregator.stop()
        try await recorder.wait(forTopic: "presence/aggregator/status") { $0.text == "offline" }
        let events = recorder.messages.filter { $0.topic == "presence/events" }
        let distinct = Set(events.map(\.text))
        #expect(distinct.count == 1 + moves, "\(events.map(\.text))")
        #expect(distinct.filter { $0.contains(#""type":"room_changed""#) }.count == moves)
        #expect(distinct.filter { $0.contains(#""type":"arrived""#) }.count == 1)
        // The room topic, with the republications after each reconnect folded: every move, in order.
        var rooms: [String] = []
        for message in recorder.messages where message.topic == "presence/locations/alice-keys/room" && rooms.last != message.text {
            rooms.append(message.text)
        }
        #expect(rooms == ["kitchen"] + (1...moves).map { $0 % 2 == 1 ? "hall" : "kitchen" })
        print("""
            aggregator outages: \(distinct.count) distinct events (\(events.count - distinct.count) duplicates), \
            room sequence \(rooms.count) long; per outage broker up → aggregator online, online → retained whole: \
            \(measured.map { "\($0.brokerUpToOnline), \($0.onlineToWhole)" }.joined(separator: " | "))
            """)
        await node.disconnect()
        await recorder.stop()
    }
}
