import BeaconCore
import MQTTClient
import PresenceAggregator
import ServiceLifecycle
import TestSupport
import Testing

/// The live aggregator against a real mosquitto: measurements in, docs/MQTT.md's aggregator topics out.
/// Time is the service's injected clock, moved by the test; nothing sleeps for time to pass.
@Suite(.serialized) struct AggregatorServiceTests {
    static let alice = KnownBeacon(beacon: beaconID, alias: TopicLevelID("alice-keys"), name: "Alice's keys")

    /// Issue 5's done-when: one beacon, two nodes: the room is published, a real move switches it,
    /// and silence turns it `not_home` after the away timeout; a clean stop says `offline`.
    @Test func publishesRoomSwitchesAfterMoveAndGoesAway() async throws {
        let broker = try await TestBroker.start()
        let client = try await observer(broker)
        let room = MessageReader(try await client.subscribe("presence/locations/alice-keys/room"))
        let location = MessageReader(try await client.subscribe("presence/locations/alice-keys"))
        let events = MessageReader(try await client.subscribe("presence/events"))
        let kitchen = MessageReader(try await client.subscribe("presence/rooms/kitchen"))
        let hall = MessageReader(try await client.subscribe("presence/rooms/hall"))
        let status = MessageReader(try await client.subscribe("presence/aggregator/status"))
        let aggregator = try await LiveAggregator.start(on: broker, client: client) { $0.knownBeacons = [Self.alice] }
        _ = try await status.until { text($0) == "online" }

        // Near the kitchen node, far from the hall node; topics use the alias.
        try await aggregator.measure(beaconID, [("kitchen-1", "kitchen", 1.0), ("hall-1", "hall", 4.0)], alias: "alice-keys")
        try await aggregator.advance(by: 1)  // the settle time
        #expect(text(try await room.next()) == "kitchen")
        let placed = try object(try await location.next())
        #expect(placed.string("id") == "alice-keys")
        #expect(placed.string("beacon") == beaconID.rawValue)
        #expect(placed.string("name") == "Alice's keys")
        #expect(placed.string("room") == "kitchen")
        #expect(placed.number("distance") == 1.0)
        #expect(placed.string("proximity") == "near")
        #expect(placed.string("node") == "kitchen-1")
        #expect(placed.string("since") == "2025-11-22T08:00:01.000Z")
        #expect(placed.object("candidates")?.number("kitchen") == 1.0)
        #expect(placed.object("candidates")?.number("hall") == 4.0)
        let confidence = try #require(placed.number("confidence"))
        #expect(confidence > 0.5 && confidence <= 1)
        let arrived = try object(try await events.next())
        #expect(arrived.string("type") == "arrived")
        #expect(arrived.string("id") == "alice-keys")
        #expect(arrived.isNull("from"))
        #expect(arrived.string("to") == "kitchen")
        #expect(arrived.string("at") == "2025-11-22T08:00:01.000Z")
        let occupied = try object(try await kitchen.next())
        #expect(occupied.string("room") == "kitchen")
        #expect(occupied.number("count") == 1)
        guard case .array(let occupants)? = occupied["occupants"], case .object(let occupant)? = occupants.first else {
            Issue.record("no occupants in \(occupied)")
            return
        }
        #expect(occupants.count == 1)
        #expect(occupant.string("id") == "alice-keys")
        #expect(occupant.string("name") == "Alice's keys")
        #expect(occupant.string("since") == "2025-11-22T08:00:01.000Z")
        #expect(occupant.number("distance") == 1.0)

        // A real move: the hall node now hears it close, the kitchen node far.
        try await aggregator.advance(by: 1)
        try await aggregator.measure(beaconID, [("kitchen-1", "kitchen", 5.0), ("hall-1", "hall", 1.0)], alias: "alice-keys")
        try await aggregator.advance(by: 3, step: 0.5)
        #expect(try await room.until { text($0) != "kitchen" }.last.map(text) == "hall")
        let moved = try object(try await events.next())
        #expect(moved.string("type") == "room_changed")
        #expect(moved.string("from") == "kitchen")
        #expect(moved.string("to") == "hall")
        let movedAt = try #require(moved.string("at"))
        // Switched within the dwell (1.5 s) plus a tick of the move at 08:00:02.
        #expect(movedAt > "2025-11-22T08:00:02.000Z" && movedAt <= "2025-11-22T08:00:04.000Z")
        #expect(try object(try await kitchen.until { (try? object($0).number("count")) == 0 }.last!).number("count") == 0)
        #expect(try object(try await hall.until { (try? object($0).number("count")) == 1 }.last!).number("count") == 1)

        // The beacon vanishes: each node says it no longer hears it (as agents do 5 s after the
        // last advertisement); not_home once the away timeout has passed after that, not before.
        try await aggregator.advance(by: 5)
        try await aggregator.measure(beaconID, [("kitchen-1", "kitchen", nil), ("hall-1", "hall", nil)], alias: "alice-keys")
        try await aggregator.advance(by: 31)
        #expect(try await room.until { text($0) == "not_home" }.count == 1)
        let away = try object(try await location.until { (try? object($0).string("room")) == "not_home" }.last!)
        #expect(away.isNull("distance"))
        #expect(away.isNull("node"))
        #expect(away.string("proximity") == "unknown")
        let departed = try object(try await events.next())
        #expect(departed.string("type") == "departed")
        #expect(departed.string("from") == "hall")
        #expect(departed.string("to") == "not_home")
        #expect(try #require(departed.string("at")) >= "2025-11-22T08:00:37.000Z")
        #expect(try object(try await hall.until { (try? object($0).number("count")) == 0 }.last!).number("count") == 0)

        try await aggregator.stop()
        #expect(text(try await status.next()) == "offline")
    }

    /// The operator's retained `presence/config/beacons`, there before the aggregator starts, names
    /// a beacon its file does not know; a later message renames it, and a bad one changes nothing.
    @Test func followsTheOperatorsRetainedKnownBeacons() async throws {
        let broker = try await TestBroker.start()
        let bob = #"{"beacon":"\#(otherBeaconID)","id":"bob-keys""#
        try broker.mosquittoPub(topic: "presence/config/beacons", message: #"{"revision":3,"beacons":[\#(bob),"name":"Bob's keys"}]}"#,
                                qos: 1, retain: true)
        let client = try await observer(broker)
        let location = MessageReader(try await client.subscribe("presence/locations/bob-keys"))
        let aggregator = try await LiveAggregator.start(on: broker, client: client) { $0.knownBeacons = [Self.alice] }
        let service = aggregator.service
        try await eventually("the retained list handled") { service.statistics.pushedBeaconLists == 1 }

        try await aggregator.measure(otherBeaconID, [("kitchen-1", "kitchen", 1.0), ("hall-1", "hall", 4.0)])
        try await aggregator.advance(by: 1)
        let placed = try object(try await location.next())
        #expect(placed.string("id") == "bob-keys")
        #expect(placed.string("name") == "Bob's keys")
        #expect(placed.string("room") == "kitchen")

        try broker.mosquittoPub(topic: "presence/config/beacons", message: #"{"revision":4,"beacons":[\#(bob),"name":""}]}"#,
                                qos: 1, retain: true)
        try broker.mosquittoPub(topic: "presence/config/beacons", message: #"{"revision":5,"beacons":[\#(bob),"name":"Bob's spare keys"}]}"#,
                                qos: 1, retain: true)
        // The rejected revision 4 published nothing: the next location is revision 5's.
        let renamed = try object(try await location.next())
        #expect(renamed.string("name") == "Bob's spare keys")
        #expect(renamed.string("room") == "kitchen")
        try await eventually("three lists handled") { service.statistics.pushedBeaconLists == 3 }
        try await aggregator.stop()
    }

    /// A restart restores decisions from the retained locations: nobody is sent to `not_home`, the
    /// room keeps its `since`, and the next real move is an ordinary `room_changed`.
    @Test func restartRestoresDecisions() async throws {
        let broker = try await TestBroker.start()
        let client = try await observer(broker)
        let first = try await LiveAggregator.start(on: broker, client: client) { $0.knownBeacons = [Self.alice] }
        let room = MessageReader(try await client.subscribe("presence/locations/alice-keys/room"))
        try await first.measure(beaconID, [("kitchen-1", "kitchen", 1.0), ("hall-1", "hall", 4.0)])
        try await first.advance(by: 1)
        #expect(text(try await room.next()) == "kitchen")
        try await first.stop()

        // A new instance, 100 s later (more than the away timeout).
        let events = MessageReader(try await client.subscribe("presence/events"))
        let location = MessageReader(try await client.subscribe("presence/locations/alice-keys"))
        let second = try await LiveAggregator.start(on: broker, at: startTime + 100, client: client) {
            $0.knownBeacons = [Self.alice]
        }
        let service = second.service
        try await eventually("the location restored") { service.statistics.restoredLocations == 1 }
        try await second.advance(by: 5)
        // Heard again where it was: the decider agrees with the restored room; `since` is kept.
        try await second.measure(beaconID, [("kitchen-1", "kitchen", 1.0), ("hall-1", "hall", 4.0)])
        try await second.advance(by: 1)
        let again = try object(try await location.until { (try? object($0).string("since")) != nil && $0.retain == false }.last!)
        #expect(again.string("room") == "kitchen")
        #expect(again.string("since") == "2025-11-22T08:00:01.000Z")
        // Then a move; the first event of the new instance is this room change.
        try await second.measure(beaconID, [("kitchen-1", "kitchen", 5.0), ("hall-1", "hall", 1.0)])
        try await second.advance(by: 3, step: 0.5)
        let change = try object(try await events.next())
        #expect(change.string("type") == "room_changed")
        #expect(change.string("from") == "kitchen")
        #expect(change.string("to") == "hall")
        let rooms = try await room.until { text($0) == "hall" }.map(text)
        #expect(!rooms.contains("not_home"))
        try await second.stop()
    }

    /// Evidence of a node reported `offline` is dropped at once and ignored until it is `online`.
    @Test func offlineNodeIsIgnored() async throws {
        let broker = try await TestBroker.start()
        let client = try await observer(broker)
        let room = MessageReader(try await client.subscribe("presence/locations/alice-keys/room"))
        let aggregator = try await LiveAggregator.start(on: broker, client: client) { $0.knownBeacons = [Self.alice] }
        try await aggregator.measure(beaconID, [("kitchen-1", "kitchen", 1.0), ("hall-1", "hall", 4.0)])
        try await aggregator.advance(by: 1)
        #expect(text(try await room.next()) == "kitchen")

        // The kitchen node goes offline: its room cannot be defended and yields after the dwell.
        let service = aggregator.service
        try broker.mosquittoPub(topic: "presence/nodes/kitchen-1/status", message: "offline", qos: 1, retain: true)
        try await eventually("the node's status handled") { service.statistics.nodeStatuses == 1 }
        try await aggregator.advance(by: 2, step: 0.5)
        #expect(text(try await room.next()) == "hall")
        #expect(service.statistics.nodeStatuses == 1)

        // Its (stale, buffered) measurements keep arriving while offline: ignored for 10 s.
        // On a connection of its own: retained messages sent for `#` would otherwise also reach
        // this client's room subscription.
        let watcher = try await observer(broker, "everything")
        let everything = MessageReader(try await watcher.subscribe("#"))
        for _ in 0..<5 {
            try await aggregator.measure(beaconID, [("kitchen-1", "kitchen", 0.3), ("hall-1", "hall", 4.0)])
            try await aggregator.advance(by: 2, step: 0.5)
        }
        // Home Assistant's `online` makes the aggregator re-send discovery: once that arrives,
        // everything it published before has too (one connection, in order).
        try client.publish(topic: "homeassistant/status", string: "online", qos: .atLeastOnce)
        let meanwhile = try await everything.until { $0.topic.hasPrefix("homeassistant/device_tracker/") }
            .filter { !$0.retain }  // what the broker held at subscription time is not news
        #expect(!meanwhile.contains { $0.topic == "presence/locations/alice-keys/room" })
        #expect(!meanwhile.contains { $0.topic == "presence/events" })
        // Back online: its measurements count again and win the room back.
        let statuses = service.statistics.nodeStatuses
        try broker.mosquittoPub(topic: "presence/nodes/kitchen-1/status", message: "online", qos: 1, retain: true)
        try await eventually("the node's status handled") { service.statistics.nodeStatuses == statuses + 1 }
        try await aggregator.measure(beaconID, [("kitchen-1", "kitchen", 0.3)])
        try await aggregator.advance(by: 3, step: 0.5)
        #expect(text(try await room.next()) == "kitchen")
        try await aggregator.stop()
        await watcher.disconnect()
    }

    /// Garbage on the measurement topics is counted and ignored; the service keeps deciding.
    @Test func malformedMeasurementsAreCountedNotFatal() async throws {
        let broker = try await TestBroker.start()
        let client = try await observer(broker)
        let room = MessageReader(try await client.subscribe("presence/locations/alice-keys/room"))
        let aggregator = try await LiveAggregator.start(on: broker, client: client) { $0.knownBeacons = [Self.alice] }
        let topic = "presence/beacons/alice-keys/kitchen-1"
        let valid = measurementJSON(beaconID, node: "kitchen-1", room: "kitchen", distance: 1.0)
        let bad: [[UInt8]] = [
            Array("garbage".utf8),
            Array("{}".utf8),
            [0xFF, 0x00, 0xC3, 0x28],
            Array("[1,2,3]".utf8),
            Array(valid.replacingOccurrences(of: "\"node\":\"kitchen-1\"", with: "\"node\":\"hall-1\"").utf8),
            Array(valid.replacingOccurrences(of: "\"distance\":1", with: "\"distance\":-1").utf8),
            Array(valid.replacingOccurrences(of: "\"proximity\":\"near\"", with: "\"proximity\":\"close\"").utf8),
            Array(valid.replacingOccurrences(of: "\"distance\":1,", with: "").utf8),
            Array(valid.dropLast(5).utf8),
            Array(("{\"pad\":\"" + String(repeating: "x", count: 5000) + "\"}").utf8),
            Array(valid.replacingOccurrences(of: "\"room\":\"kitchen\"", with: "\"room\":\"Kitchen\"").utf8),
        ]
        for payload in bad { try client.publish(topic: topic, payload: payload, qos: .atLeastOnce) }
        let service = aggregator.service
        try await eventually("every bad message counted") { service.statistics.malformedMeasurements == bad.count }
        #expect(service.statistics.measurements == 0)

        try await aggregator.measure(beaconID, [("kitchen-1", "kitchen", 1.0)])
        try await aggregator.advance(by: 1)
        #expect(text(try await room.next()) == "kitchen")
        #expect(service.statistics.malformedMeasurements == bad.count)
        try await aggregator.stop()
    }

    /// A beacon that is not known and not heard for `forgetAfter` is forgotten: its retained topics
    /// and discovery entities are cleared with empty payloads; a known beacon stays (`not_home`).
    @Test func forgettingClearsRetainedTopics() async throws {
        let broker = try await TestBroker.start()
        let client = try await observer(broker)
        let cleared = MessageReader(try await client.subscribe("presence/locations/#"))
        let discovery = MessageReader(try await client.subscribe("homeassistant/#"))
        let aggregator = try await LiveAggregator.start(on: broker, client: client) {
            $0.knownBeacons = [Self.alice]
            $0.forgetAfter = 60
        }
        try await aggregator.measure(beaconID, [("kitchen-1", "kitchen", 1.0)])
        try await aggregator.measure(otherBeaconID, [("hall-1", "hall", 1.0)])
        try await aggregator.advance(by: 1)
        let stranger = otherBeaconID.rawValue
        _ = try await discovery.until { $0.topic.contains(stranger) && $0.topic.contains("_distance") }

        try await aggregator.advance(by: 60)
        let clearing = try await cleared.until { $0.topic == "presence/locations/\(stranger)/room" && $0.payload.isEmpty }
        #expect(clearing.contains { $0.topic == "presence/locations/\(stranger)" && $0.payload.isEmpty })
        let removals = try await discovery.until { $0.topic.contains(stranger) && $0.topic.hasSuffix("_distance/config") && $0.payload.isEmpty }
        #expect(removals.filter { $0.topic.contains(stranger) && $0.payload.isEmpty }.count == 3)

        // A fresh subscriber finds the known beacon (not_home) and nothing of the stranger.
        let fresh = try await observer(broker, "fresh")
        let retained = MessageReader(try await fresh.subscribe("presence/locations/+/room"))
        let first = try await retained.next()
        #expect(first.topic == "presence/locations/alice-keys/room")
        #expect(text(first) == "not_home")
        try await aggregator.stop()
    }

    /// After the broker lost everything (restarted without persistence) the aggregator reconnects and
    /// publishes its retained state again.
    @Test func republishesRetainedStateAfterReconnect() async throws {
        let broker = try await TestBroker.start()
        let client = try await observer(broker)
        let room = MessageReader(try await client.subscribe("presence/locations/alice-keys/room"))
        let aggregator = try await LiveAggregator.start(on: broker, client: client) { $0.knownBeacons = [Self.alice] }
        try await aggregator.measure(beaconID, [("kitchen-1", "kitchen", 1.0)])
        try await aggregator.advance(by: 1)
        #expect(text(try await room.next()) == "kitchen")

        broker.kill()
        try await broker.restart()
        let fresh = try await observer(broker, "after-restart")
        let location = MessageReader(try await fresh.subscribe("presence/locations/alice-keys/room"))
        let status = MessageReader(try await fresh.subscribe("presence/aggregator/status"))
        #expect(text(try await location.next()) == "kitchen")
        #expect(text(try await status.until { text($0) == "online" }.last!) == "online")
        try await aggregator.stop()
    }

    /// The security settings of the YAML file reach the broker: TLS with a client certificate,
    /// user name and a password read from a file.
    @Test func connectsWithTLSClientCertificateAndPasswordFile() async throws {
        let directory = try TestBroker.makeTemporaryDirectory()
        let certificates = try TestCertificates.generate(in: directory)
        let broker = try await TestBroker.start(.init(
            users: ["aggregator": "s3cret", "observer": "watch"],
            tls: .init(certificates, requireClientCertificate: true)))
        let secret = directory + "/password"
        try "s3cret\n".write(toFile: secret, atomically: true, encoding: .utf8)
        let yaml = directory + "/aggregator.yaml"
        try """
            broker: mqtts://127.0.0.1:\(broker.port)
            username: aggregator
            passwordFile: \(secret)
            tls:
              caFile: \(certificates.caFile)
              certificateFile: \(certificates.clientCertificateFile)
              keyFile: \(certificates.clientKeyFile)
            """.write(toFile: yaml, atomically: true, encoding: .utf8)
        let configuration = try AggregatorConfiguration.load(file: yaml, environment: [:], flags: [:])
        #expect(configuration.password == "s3cret")

        var options = MQTTConnectionOptions(host: broker.host, port: broker.port, clientID: "observer")
        options.credentials = MQTTCredentials(username: "observer", password: "watch")
        options.tls = MQTTTLSConfiguration(
            caFile: certificates.caFile, certificateFile: certificates.clientCertificateFile,
            keyFile: certificates.clientKeyFile)
        let client = try MQTTConnection(options: options, logger: quietLogger)
        try await client.connect(timeout: .seconds(10))
        let status = MessageReader(try await client.subscribe("presence/aggregator/status"))
        let service = AggregatorService(
            configuration: configuration, clock: ManualClock(now: startTime), logger: quietLogger,
            softwareVersion: "1")
        let group = ServiceGroup(configuration: .init(services: [.init(service: service)], logger: quietLogger))
        let task = Task { try await group.run() }
        #expect(text(try await status.until { text($0) == "online" }.last!) == "online")
        await group.triggerGracefulShutdown()
        try await task.value
        #expect(text(try await status.next()) == "offline")
        await client.disconnect()
    }

    /// A flood of unknown beacons past `maxUnknownBeacons`: the service counts the evictions
    /// (`statistics.evictedBeacons`, logged once a minute) and the known beacon keeps its room.
    @Test func evictionsOfAFloodAreCounted() async throws {
        let broker = try await TestBroker.start()
        defer { broker.kill() }
        let client = try await observer(broker)
        let aggregator = try await LiveAggregator.start(on: broker, client: client) {
            $0.knownBeacons = [Self.alice]
            $0.maxUnknownBeacons = 5
        }
        try await aggregator.measure(beaconID, [("kitchen-1", "kitchen", 1.0)], alias: "alice-keys")
        for minor in 0..<20 {
            let stranger = BeaconID(rawValue: "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-77-\(minor)")
            try await aggregator.measure(stranger, [("hall-1", "hall", 1.0)])
        }
        try await aggregator.advance(by: 2)
        #expect(aggregator.service.statistics.evictedBeacons == 15)
        let room = MessageReader(try await client.subscribe("presence/locations/alice-keys/room"))
        _ = try await room.until { text($0) == "kitchen" }
        try await aggregator.stop()
    }
}

