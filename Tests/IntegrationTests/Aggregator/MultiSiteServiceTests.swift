import BeaconCore
import MQTTClient
import PresenceAggregator
import TestSupport
import Testing

/// Two sites on one broker (`hq/presence`, `lab/presence`), one aggregator each, one Home
/// Assistant: each decides only its own site's beacons, and no discovery id is shared, even for
/// a beacon that both sites hear (a person who works in both buildings).
@Suite(.serialized) struct MultiSiteServiceTests {
    static let alice = KnownBeacon(beacon: beaconID, alias: TopicLevelID("alice-keys"), name: "Alice's keys")

    @Test func twoSitesOnOneBrokerStayApart() async throws {
        let broker = try await TestBroker.start()
        let client = try await observer(broker)
        // The beacons' entities (the aggregators and nodes have theirs too, apart by root as well).
        let discovery = MessageReader(try await client.subscribe("homeassistant/+/+/+/config"))
        let hqRoom = MessageReader(try await client.subscribe("hq/presence/locations/+/room"))
        let labRoom = MessageReader(try await client.subscribe("lab/presence/locations/+/room"))
        let hq = try await LiveAggregator.start(on: broker, client: client) {
            $0.topics = TopicScheme(root: "hq/presence")!
            $0.clientID = "aggregator-hq"
            $0.knownBeacons = [Self.alice]
        }
        let lab = try await LiveAggregator.start(on: broker, client: client) {
            $0.topics = TopicScheme(root: "lab/presence")!
            $0.clientID = "aggregator-lab"
            $0.knownBeacons = [Self.alice]
        }
        // Alice is in the hq kitchen; in the lab, somebody else's beacon is in the hall, and a
        // lab node also hears Alice's keys (they were left on a lab desk: another beacon reading).
        try await hq.measure(beaconID, [("kitchen-1", "kitchen", 1.0), ("hall-1", "hall", 5.0)], alias: "alice-keys")
        try await lab.measure(otherBeaconID, [("hall-1", "hall", 1.0)])
        try await lab.measure(beaconID, [("desk-1", "desk", 1.0)], alias: "alice-keys")
        try await hq.advance(by: 1)
        try await lab.advance(by: 1)

        let hqDecisions = try await hqRoom.until { $0.topic.contains("alice-keys") }
        #expect(hqDecisions.map { "\($0.topic) \(text($0))" } == ["hq/presence/locations/alice-keys/room kitchen"])
        var labDecisions: [String: String] = [:]
        while labDecisions.count < 2 {
            let message = try await labRoom.next()
            labDecisions[message.topic] = text(message)
        }
        #expect(labDecisions == [
            "lab/presence/locations/alice-keys/room": "desk",
            "lab/presence/locations/\(otherBeaconID.rawValue)/room": "hall",
        ])
        // The hq aggregator never heard the lab's other beacon: nothing of it under hq.
        #expect(hq.service.statistics.measurements == 2 && lab.service.statistics.measurements == 2)

        // Discovery: 3 entities per (site, beacon) — alice in hq, alice and the other in the lab.
        var configs: [String: JSONObject] = [:]
        while configs.count < 9 {
            let message = try await discovery.next()
            guard message.topic.contains("_tracker/") || message.topic.contains("_room/") || message.topic.contains("_distance/") else {
                #expect(message.topic.contains("/aggregator_connectivity/") || message.topic.contains("/node_"))
                continue
            }
            configs[message.topic] = try object(message)
        }
        let uniqueIDs = configs.values.compactMap { $0.string("unique_id") }
        #expect(uniqueIDs.count == 9 && Set(uniqueIDs).count == 9, "\(uniqueIDs.sorted())")
        let devices = Set(configs.values.compactMap { $0.object("device")?["identifiers"] })
        #expect(devices.count == 3)
        for (topic, config) in configs {
            let site = topic.contains("/beaconpresence_hq_presence/") ? "hq/presence/" : "lab/presence/"
            #expect(topic.contains("/beaconpresence_hq_presence/") || topic.contains("/beaconpresence_lab_presence/"))
            #expect(config.string("state_topic")?.hasPrefix(site) == true, "\(topic)")
            #expect(config.string("availability_topic") == site + "aggregator/status")
        }
        #expect(configs.keys.contains("homeassistant/device_tracker/beaconpresence_hq_presence/alice-keys_tracker/config"))
        #expect(configs.keys.contains("homeassistant/device_tracker/beaconpresence_lab_presence/alice-keys_tracker/config"))

        // One site's aggregator stopping leaves the other's entities available.
        let labStatus = MessageReader(try await client.subscribe("lab/presence/aggregator/status"))
        _ = try await labStatus.next()  // its retained `online`
        try await hq.stop()
        let hqStatus = MessageReader(try await client.subscribe("hq/presence/aggregator/status"))
        #expect(text(try await hqStatus.next()) == "offline")
        try await lab.stop()
        #expect(text(try await labStatus.next()) == "offline")
    }
}
