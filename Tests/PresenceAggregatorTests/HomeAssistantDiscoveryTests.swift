import BeaconCore
import MQTTClient
import PresenceAggregator
import TestSupport
import Testing

/// Home Assistant MQTT discovery as the live aggregator publishes it, field by field.
@Suite(.serialized) struct HomeAssistantDiscoveryTests {
    static let alice = KnownBeacon(beacon: beaconID, alias: TopicLevelID("alice-keys"), name: "Alice's keys")

    /// A new beacon's configs come from payloads cut once at the beacon's fields: byte for byte
    /// what the JSON writer gives, for every beacon format and for names and roots that need escapes.
    @Test func configurationsAreTheWritersPayloadsByteForByte() throws {
        let beacons = ["ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-5-6", "altbeacon-2f234454cf6d4a0fadf2f4911ba9ffa600010002",
                       "eddystone-b2b98de4c81c47c2b14e-750000000000", "mac-0a1b2c3d4e5f"].map { BeaconID(rawValue: $0) }
        let names = ["Alice's keys", #"say "hi" \ there"#, "tab\there\nnew\u{1}line", "Zoë 🔑", ""]
        for (root, supportURL) in [("presence", nil), ("hq/presence_x", "https://example.com/\"q\"")] {
            let discovery = HomeAssistantDiscovery(
                prefix: "ha", topics: try #require(TopicScheme(root: root)),
                origin: .init(softwareVersion: "1.2 \"beta\"", supportURL: supportURL))
            for beacon in beacons {
                for name in names {
                    let id = beacon.rawValue.hasPrefix("mac") ? "alice-keys" : beacon.rawValue
                    let configs = discovery.configurations(beacon: id, canonical: beacon, name: name)
                    #expect(configs.map(\.payload) == HomeAssistantDiscovery.Entity.allCases.map {
                        discovery.payload($0, beacon: id, canonical: beacon, name: name)
                    })
                    #expect(configs.map(\.topic) == HomeAssistantDiscovery.Entity.allCases.map { discovery.configTopic($0, beacon: id) })
                }
            }
        }
    }

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
        let configs = try await collectThree(discovery)

        let tracker = try #require(configs["ha/device_tracker/beaconpresence_hq_presence/alice-keys_tracker/config"])
        #expect(tracker["name"] == .null)
        #expect(tracker.string("unique_id") == "beaconpresence_hq_presence_alice-keys_tracker")
        #expect(tracker.string("state_topic") == "hq/presence/locations/alice-keys/room")
        #expect(tracker.string("json_attributes_topic") == "hq/presence/locations/alice-keys")
        #expect(tracker.string("source_type") == "bluetooth_le")
        #expect(tracker.string("payload_home") == "home")
        #expect(tracker.string("payload_not_home") == "not_home")

        let room = try #require(configs["ha/sensor/beaconpresence_hq_presence/alice-keys_room/config"])
        #expect(room.string("name") == "Room")
        #expect(room.string("unique_id") == "beaconpresence_hq_presence_alice-keys_room")
        #expect(room.string("state_topic") == "hq/presence/locations/alice-keys/room")

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
            let origin = try #require(config.object("origin"))
            #expect(origin.string("name") == "BeaconPresence")
            #expect(origin.string("sw_version") == "9.8.7")
            #expect(origin.string("support_url") == "https://example.org/beaconpresence")
        }

        // Home Assistant restarted: it says `online` and gets every config again.
        try client.publish(topic: "ha/status", string: "online", qos: .atLeastOnce)
        let again = try await collectThree(discovery)
        #expect(Set(again.keys) == Set(configs.keys))
        // Anything else on the status topic changes nothing; the next configs come only after `online`.
        try client.publish(topic: "ha/status", string: "offline", qos: .atLeastOnce)
        try client.publish(topic: "ha/status", string: "online", qos: .atLeastOnce)
        let third = try await collectThree(discovery)
        #expect(third.count == 3)
        try await aggregator.stop()
    }

    /// The next three config messages, by topic (status messages on the same filter skipped).
    private func collectThree(_ reader: MessageReader) async throws -> [String: JSONObject] {
        var configs: [String: JSONObject] = [:]
        while configs.count < 3 {
            let message = try await reader.next()
            guard message.topic.hasSuffix("/config") else { continue }
            configs[message.topic] = try object(message)
        }
        return configs
    }
}
