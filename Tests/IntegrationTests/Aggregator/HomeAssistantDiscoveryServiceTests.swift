import BeaconCore
import RoomDecisions
import MQTTClient
import PresenceAggregator
import Synchronization
import TestSupport
import Testing

/// Home Assistant MQTT discovery as the live aggregator publishes it on a real mosquitto, field by field.
@Suite(.serialized) struct HomeAssistantDiscoveryServiceTests {
    static let alice = KnownBeacon(beacon: beaconID, alias: TopicLevelID("alice-keys"), name: "Alice's keys")

    @Test func discoveryPayloadsAndRepublishOnHomeAssistantOnline() async throws {
        let broker = try await TestBroker.start()
        let client = try await observer(broker)
        let discovery = MessageReader(try await client.subscribe("ha/#"))
        let aggregator = try await LiveAggregator.start(on: broker, client: client) {
            $0.knownBeacons = [Self.alice]
            $0.topics = TopicScheme(root: "hq/presence")!
            $0.homeAssistantPrefix = "ha"
        }
        try await aggregator.measure(beaconID, [("kitchen-1", "kitchen", 1.0)], alias: "alice-keys")
        let configs = try await collect(discovery, count: 9)

        // The tracker's state is home/not_home (what a person and zone.home use), from the plain
        // room topic; its one attribute, the room, changes only with it; Home Assistant's icons.
        let tracker = try #require(configs["ha/device_tracker/beaconpresence_hq_presence/alice-keys_tracker/config"])
        #expect(tracker["name"] == .null)
        #expect(tracker.string("unique_id") == "beaconpresence_hq_presence_alice-keys_tracker")
        #expect(tracker.string("state_topic") == "hq/presence/locations/alice-keys/room")
        #expect(tracker.string("value_template") == "{{ value if value in ('', 'not_home') else 'home' }}")
        #expect(tracker.string("json_attributes_topic") == "hq/presence/locations/alice-keys/room")
        #expect(tracker.string("json_attributes_template") == "{{ {'room': value} | tojson }}")
        #expect(tracker.string("source_type") == "bluetooth_le")
        #expect(tracker.string("payload_home") == "home")
        #expect(tracker.string("payload_not_home") == "not_home")
        #expect(tracker["icon"] == nil)

        // The room sensor is an enum of every room the site knows, and not_home.
        let room = try #require(configs["ha/sensor/beaconpresence_hq_presence/alice-keys_room/config"])
        #expect(room.string("name") == "Room")
        #expect(room.string("unique_id") == "beaconpresence_hq_presence_alice-keys_room")
        #expect(room.string("state_topic") == "hq/presence/locations/alice-keys/room")
        #expect(room.string("device_class") == "enum")
        #expect(room["options"] == .array([.string("kitchen"), .string("not_home")]))

        let distance = try #require(configs["ha/sensor/beaconpresence_hq_presence/alice-keys_distance/config"])
        #expect(distance.string("name") == "Distance")
        #expect(distance.string("unique_id") == "beaconpresence_hq_presence_alice-keys_distance")
        #expect(distance.string("state_topic") == "hq/presence/locations/alice-keys")
        #expect(distance.string("value_template") == "{{ value_json.distance }}")
        #expect(distance.string("unit_of_measurement") == "m")
        #expect(distance.string("device_class") == "distance")
        #expect(distance.string("state_class") == "measurement")
        #expect(distance.string("entity_category") == "diagnostic")

        for config in [tracker, room, distance] {
            #expect(config.string("availability_topic") == "hq/presence/aggregator/status")
            #expect(config.string("payload_available") == "online")
            #expect(config.string("payload_not_available") == "offline")
            #expect(config.number("qos") == 1)
            let device = try #require(config.object("device"))
            #expect(device["identifiers"] == .array([.string("beaconpresence_hq_presence_alice-keys")]))
            #expect(device.string("name") == "Alice's keys")
            #expect(device.string("model") == "iBeacon")
            #expect(device.string("serial_number") == beaconID.rawValue)
            try expectOrigin(config)
        }

        // The aggregator is a device, its connectivity its status.
        let site = try #require(configs["ha/binary_sensor/beaconpresence_hq_presence/aggregator_connectivity/config"])
        #expect(site.string("state_topic") == "hq/presence/aggregator/status")
        #expect(site.string("payload_on") == "online" && site.string("payload_off") == "offline")
        #expect(site.string("device_class") == "connectivity")
        #expect(site.string("unique_id") == "beaconpresence_hq_presence/aggregator/connectivity")
        let siteDevice = try #require(site.object("device"))
        #expect(siteDevice["identifiers"] == .array([.string("beaconpresence_hq_presence/aggregator")]))
        #expect(siteDevice.string("name") == "BeaconPresence aggregator hq/presence")
        #expect(siteDevice.string("model") == "presence-aggregator")
        try expectOrigin(site)

        // The node that measured is a device via the aggregator: connectivity from its status,
        // its telemetry as diagnostic sensors that go unavailable with it and expire without it.
        let node = "ha/binary_sensor/beaconpresence_hq_presence/node_kitchen-1_connectivity/config"
        let connectivity = try #require(configs[node])
        #expect(connectivity.string("state_topic") == "hq/presence/nodes/kitchen-1/status")
        #expect(connectivity.string("payload_on") == "online" && connectivity.string("payload_off") == "offline")
        #expect(connectivity.string("device_class") == "connectivity")
        #expect(connectivity.string("entity_category") == "diagnostic")
        #expect(connectivity["availability_topic"] == nil)
        let telemetry: [(String, String, String?)] = [
            ("adverts_per_second", "advertsPerSecond", "measurement"), ("beacons", "beacons", "measurement"),
            ("reconnects", "reconnects", "total_increasing"), ("radio", "radio", nil),
        ]
        for (entity, key, stateClass) in telemetry {
            let sensor = try #require(configs["ha/sensor/beaconpresence_hq_presence/node_kitchen-1_\(entity)/config"])
            #expect(sensor.string("state_topic") == "hq/presence/nodes/kitchen-1/telemetry")
            #expect(sensor.string("value_template") == "{{ value_json.get('\(key)') }}")
            #expect(sensor.string("state_class") == stateClass)
            #expect(sensor.number("expire_after") == 90)
            #expect(sensor.string("availability_topic") == "hq/presence/nodes/kitchen-1/status")
            #expect(sensor.string("entity_category") == "diagnostic")
        }
        for entity in ["connectivity", "adverts_per_second", "beacons", "reconnects", "radio"] {
            let config = try #require(configs[node.replacingOccurrences(of: "connectivity", with: entity)
                .replacingOccurrences(of: "binary_sensor", with: entity == "connectivity" ? "binary_sensor" : "sensor")])
            #expect(config.string("unique_id") == "beaconpresence_hq_presence/nodes/kitchen-1/\(entity)")
            let device = try #require(config.object("device"))
            #expect(device["identifiers"] == .array([.string("beaconpresence_hq_presence/nodes/kitchen-1")]))
            #expect(device.string("name") == "Node kitchen-1")
            #expect(device.string("via_device") == "beaconpresence_hq_presence/aggregator")
            #expect(device.string("suggested_area") == "kitchen")
            try expectOrigin(config)
        }

        // Home Assistant restarted: it says `online` and gets every config again.
        try client.publish(topic: "ha/status", string: "online", qos: .atLeastOnce)
        let again = try await collect(discovery, count: 9)
        #expect(Set(again.keys) == Set(configs.keys))
        // Anything else on the status topic changes nothing; the next configs come only after `online`.
        try client.publish(topic: "ha/status", string: "offline", qos: .atLeastOnce)
        try client.publish(topic: "ha/status", string: "online", qos: .atLeastOnce)
        let third = try await collect(discovery, count: 9)
        #expect(third.count == 9)
        try await aggregator.stop()
    }

    /// A room Home Assistant has not been told of is refused as a room sensor's state: every
    /// beacon's room config gains it before any location names it, on the broker, in order. Rooms
    /// come from the nodes' info (before anyone is there) as well as from measurements.
    @Test func roomOptionsGrowBeforeANewRoomIsAState() async throws {
        let broker = try await TestBroker.start()
        let client = try await observer(broker)
        // The hall node announced itself before the aggregator started (retained info).
        try client.publish(topic: "presence/nodes/hall-1/info", string: #"{"node":"hall-1","room":"hall","version":"1.2.3"}"#,
                           qos: .atLeastOnce, retain: true)
        let all = MessageReader(try await client.subscribe("#"))
        let aggregator = try await LiveAggregator.start(on: broker, client: client) { $0.knownBeacons = [Self.alice] }
        let hallNode = try object(try #require(try await all.until { $0.topic.hasSuffix("node_hall-1_connectivity/config") }.last))
        try await aggregator.measure(beaconID, [("kitchen-1", "kitchen", 1.0)], alias: "alice-keys")
        try await aggregator.advance(by: 2)
        let roomConfig = "homeassistant/sensor/beaconpresence_presence/alice-keys_room/config"
        var options: [String] = []
        for message in try await all.until({ $0.topic == "presence/locations/alice-keys/room" }) {
            if message.topic == roomConfig { options = try roomOptions(message) }
        }
        #expect(options == ["hall", "kitchen", "not_home"])
        #expect(hallNode.object("device")?.string("sw_version") == "1.2.3")
        #expect(hallNode.object("device")?.string("suggested_area") == "hall")

        // Alice walks into the office, a room nobody was in: the office node's first measurement
        // adds it, and Alice's room config with it comes before her location in the office.
        try await aggregator.measure(beaconID, [("office-1", "office", 0.5), ("kitchen-1", "kitchen", 6.0)], alias: "alice-keys")
        try await aggregator.advance(by: 4)
        var sequence: [String] = []
        for message in try await all.until({ $0.topic == "presence/locations/alice-keys/room" }) {
            if message.topic == roomConfig {
                #expect(try roomOptions(message) == ["hall", "kitchen", "office", "not_home"])
                sequence.append("options")
            }
            if message.topic == "presence/locations/alice-keys/room" { sequence.append(text(message)) }
        }
        #expect(sequence == ["options", "office"])
        try await aggregator.stop()
    }

    /// The same through a real broker: the device of a node retired while the aggregator was down
    /// leaves Home Assistant after the aggregator starts; a node with retained info keeps its own.
    @Test func aNodeRetiredWhileTheAggregatorWasDownLeavesHomeAssistant() async throws {
        let broker = try await TestBroker.start()
        let client = try await observer(broker)
        let prefix = "homeassistant/binary_sensor/beaconpresence_presence"
        for node in ["ghost-1", "hall-1"] {
            try client.publish(topic: "\(prefix)/node_\(node)_connectivity/config", string: #"{"name":"Connectivity"}"#,
                               qos: .atLeastOnce, retain: true)
        }
        try client.publish(topic: "presence/nodes/hall-1/info", string: #"{"node":"hall-1","room":"hall"}"#,
                           qos: .atLeastOnce, retain: true)
        let configs = MessageReader(try await client.subscribe("homeassistant/+/beaconpresence_presence/+/config"))
        _ = try await configs.until { $0.topic.contains("node_hall-1_connectivity") && $0.retain }
        let cleared = Mutex<Set<String>>([])
        let reading = Task {
            while let message = try? await configs.next(timeout: .seconds(60)) {
                if message.payload.isEmpty { cleared.withLock { _ = $0.insert(message.topic) } }
            }
        }
        defer { reading.cancel() }
        let aggregator = try await LiveAggregator.start(on: broker, client: client)
        let ghostTopics = Set(HomeAssistantDiscovery.NodeEntity.allCases.map { entity in
            "homeassistant/\(entity == .connectivity ? "binary_sensor" : "sensor")/beaconpresence_presence/node_ghost-1_\(entity.rawValue)/config"
        })
        // Seen at some tick after the start; removed 10 s of the aggregator's clock later.
        for _ in 0..<25 where !cleared.withLock({ $0.isSuperset(of: ghostTopics) }) {
            try await aggregator.advance(by: 1)
        }
        try await eventually("the ghost's configs cleared") { cleared.withLock { $0.isSuperset(of: ghostTopics) } }
        #expect(cleared.withLock { $0.allSatisfy { $0.contains("node_ghost-1_") } })
        try await aggregator.stop()
    }

    private func roomOptions(_ message: MQTTMessage) throws -> [String] {
        guard case .array(let values)? = try object(message)["options"] else { return [] }
        return values.compactMap { if case .string(let text) = $0 { text } else { nil } }
    }

    private func expectOrigin(_ config: JSONObject) throws {
        let origin = try #require(config.object("origin"))
        #expect(origin.string("name") == "BeaconPresence")
        #expect(origin.string("sw_version") == "9.8.7" || origin.string("sw_version") == "1.0")
        #expect(origin.string("support_url") == "https://example.org/beaconpresence")
    }

    /// The next `count` distinct config messages, by topic (other messages on the filter skipped).
    private func collect(_ reader: MessageReader, count: Int) async throws -> [String: JSONObject] {
        var configs: [String: JSONObject] = [:]
        while configs.count < count {
            let message = try await reader.next()
            guard message.topic.hasSuffix("/config") else { continue }
            configs[message.topic] = try object(message)
        }
        return configs
    }
}
