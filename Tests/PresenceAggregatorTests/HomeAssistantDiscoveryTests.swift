import BeaconCore
import RoomDecisions
import MQTTClient
import PresenceAggregator
import Synchronization
import TestSupport
import Testing

/// Home Assistant MQTT discovery as the aggregator's core writes it; the live service's is in
/// IntegrationTests/Aggregator/HomeAssistantDiscoveryServiceTests.swift.
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
                    #expect(configs.map(\.payload) == discovery.entities.map {
                        discovery.payload($0, beacon: id, canonical: beacon, name: name)
                    })
                    #expect(configs.map(\.topic) == discovery.entities.map { discovery.configTopic($0, beacon: id) })
                }
            }
        }
    }

    /// An operator retires a node by clearing its retained info: its device leaves Home Assistant
    /// (every discovery config of the node cleared, nothing else), once; heard again, it returns.
    @Test func aClearedNodeInfoRemovesTheNodeDevice() throws {
        var core = AggregatorCore(configuration: .default, softwareVersion: "1.0")
        _ = core.announceAggregator()
        #expect(core.nodeInfo(node: "hall-1", payload: []).isEmpty)  // never announced: nothing to remove
        let announced = core.nodeInfo(node: "hall-1", payload: Array(#"{"node":"hall-1","room":"hall","version":"2.0"}"#.utf8))
        let removed = core.nodeInfo(node: "hall-1", payload: [])
        // Every config a node's device may have had, its RSSI offset's too.
        #expect(Set(removed.map(\.topic)) == Set(announced.map(\.topic) + ["homeassistant/sensor/beaconpresence_presence/node_hall-1_rssi_offset/config"]))
        #expect(removed.allSatisfy { $0.payload.isEmpty && $0.retain })
        #expect(core.nodeInfo(node: "hall-1", payload: []).isEmpty)
        let back = core.nodeStatus(node: "hall-1", online: true, at: Instant(seconds: 1))
        #expect(Set(back.map(\.topic)).isSuperset(of: Set(announced.map(\.topic))))
    }

    /// A node retired while the aggregator was down (its info and status cleared then) left its
    /// device in the broker's retained discovery: found at start, it is removed after the grace,
    /// unless its node claims it by info, status or a measurement.
    @Test func aNodeDeviceLeftFromBeforeIsRemovedUnlessItsNodeClaimsIt() throws {
        var core = AggregatorCore(configuration: .default, softwareVersion: "1.0")
        _ = core.announceAggregator()
        let discovery = try #require(core.discovery)
        let ghost = try #require(TopicLevelID("ghost-1")), kept = try #require(TopicLevelID("hall-1"))
        let config = Array(#"{"name":"Connectivity"}"#.utf8)
        core.retainedNodeDevice(node: ghost, payload: config, at: Instant(seconds: 0))
        core.retainedNodeDevice(node: kept, payload: config, at: Instant(seconds: 0))
        core.retainedNodeDevice(node: try #require(TopicLevelID("cleared-1")), payload: [], at: Instant(seconds: 0))
        _ = core.nodeInfo(node: "hall-1", payload: Array(#"{"node":"hall-1","room":"hall"}"#.utf8))
        #expect(core.tick(at: Instant(seconds: 9)).filter { $0.topic.hasPrefix("homeassistant/") }.isEmpty)
        let removed = core.tick(at: Instant(seconds: 10)).filter { $0.topic.hasPrefix("homeassistant/") }
        #expect(Set(removed.map(\.topic)) == Set(discovery.nodeRemovals(node: ghost).map(\.topic)))
        #expect(removed.allSatisfy { $0.payload.isEmpty && $0.retain })
        #expect(core.tick(at: Instant(seconds: 20)).filter { $0.topic.hasPrefix("homeassistant/") }.isEmpty)
    }

    @Test func nodeOfAConnectivityConfigTopic() throws {
        let discovery = HomeAssistantDiscovery(prefix: "ha", topics: try #require(TopicScheme(root: "hq/presence")),
                                               origin: .init(softwareVersion: "1"))
        let node = try #require(TopicLevelID("hall_1"))
        #expect(discovery.node(ofConnectivityConfigTopic: discovery.configTopic(.connectivity, node: node)) == node)
        #expect(discovery.nodeConnectivityConfigFilter == "ha/binary_sensor/beaconpresence_hq_presence/+/config")
        for other in ["ha/binary_sensor/beaconpresence_hq_presence/aggregator_connectivity/config",
                      "ha/binary_sensor/beaconpresence_presence/node_hall_1_connectivity/config",
                      "ha/sensor/beaconpresence_hq_presence/node_hall_1_beacons/config",
                      "ha/binary_sensor/beaconpresence_hq_presence/node__connectivity/config"] {
            #expect(discovery.node(ofConnectivityConfigTopic: other) == nil, "\(other)")
        }
    }

    /// The core alone: rooms from node info, measurements and restored locations, each config
    /// of a new room before the first location in it; nodes announced once, after the aggregator.
    @Test func coreAnnouncesRoomsAndNodesBeforeUse() throws {
        var configuration = AggregatorConfiguration.default
        configuration.knownBeacons = [Self.alice]
        configuration.decision = RoomDecisionParameters(
            settleTime: 1, staleAfter: 12, awayTimeout: 30,
            rule: SwitchingRule(margin: 0.25, dwell: 1.5, evidenceToSwitch: 1.5, leadCap: 3))
        var core = AggregatorCore(configuration: configuration, softwareVersion: "1.0")
        let aggregator = "homeassistant/binary_sensor/beaconpresence_presence/aggregator_connectivity/config"
        #expect(core.announceAggregator().map(\.topic) == [aggregator])
        #expect(core.announceAggregator().isEmpty)

        // Info of a node: its device, and its room among the options.
        let info = core.nodeInfo(node: "hall-1", payload: Array(#"{"node":"hall-1","room":"hall","version":"2.0"}"#.utf8))
        #expect(info.count == HomeAssistantDiscovery.entities(of: NodeKind.agent).count)
        #expect(core.discovery?.rooms == ["hall"])
        #expect(core.nodeInfo(node: "hall-1", payload: Array(#"{"node":"hall-1","room":"hall","version":"2.0"}"#.utf8)).isEmpty)
        #expect(core.nodeInfo(node: "hall-1", payload: Array("not json".utf8)).isEmpty)

        // A restored beacon in a room nobody has reported yet keeps it as an option.
        let restored = BeaconLocation(id: "alice-keys", beacon: beaconID, name: "Alice's keys", room: "attic", distance: 2,
                                      proximity: .near, node: "attic-1", since: startTime, confidence: 1, candidates: [:])
        let restoring = core.restore(restored, at: startTime)
        let roomConfig = try #require(restoring.first { $0.topic.hasSuffix("alice-keys_room/config") })
        #expect(roomConfig.payload.contains(#""options":["attic","hall","not_home"]"#))

        // A status of an unknown node announces it; a measurement from a new node in a new room
        // re-sends the room config before anything else of the call.
        #expect(core.nodeStatus(node: "cellar-1", online: true, at: startTime).count == HomeAssistantDiscovery.entities(of: NodeKind.agent).count)
        let heard = core.receive(ReceivedMeasurement(beacon: beaconID, node: "office-1", room: "office", distance: 0.5,
                                                     proximity: .near), at: startTime + 1)
        let topics = heard.map(\.topic)
        let options = try #require(topics.firstIndex { $0.hasSuffix("alice-keys_room/config") })
        #expect(heard[options].payload.contains(#""options":["attic","hall","office","not_home"]"#))
        #expect(topics.contains("homeassistant/binary_sensor/beaconpresence_presence/node_office-1_connectivity/config"))
        let placed = core.tick(at: startTime + 3)
        #expect(placed.contains { $0.topic == "presence/locations/alice-keys/room" && $0.payload == "office" })
        #expect(!placed.contains { $0.topic.hasPrefix("homeassistant/") })
        // Everything again for Home Assistant's restart: aggregator first, nodes, then beacons.
        let all = core.discoveryMessages().map(\.topic)
        #expect(all.first == aggregator)
        #expect(all.filter { $0.contains("_connectivity/") }.count == 4)
        #expect(all.last?.hasSuffix("alice-keys_distance/config") == true)
    }
    /// Once the nodes' calibration names a node, its device gains its RSSI offset: a diagnostic
    /// sensor in dB on the aggregator's calibration topic, its entry (confident, standard error,
    /// paths) as attributes, unavailable with the aggregator, not with the node; announced once.
    /// Before, no sensor that would stay unknown.
    @Test func aCalibratedNodesOffsetIsADiagnosticSensorOnTheCalibrationTopic() throws {
        var core = AggregatorCore(configuration: .default, softwareVersion: "1.0")
        let nodes = ["hall-1", "kitchen-1", "study-1"]
        var out: [AggregatorPublication] = []
        for node in nodes {
            let beacon = NodeBeacon(node: node).id.rawValue
            let info = #"{"node":"\#(node)","room":"\#(node)","version":"2.0","nodeBeacon":{"id":"\#(beacon)","interval":1,"state":"advertising","measuredPower":-41}}"#
            out += core.nodeInfo(node: node, payload: Array(info.utf8))
        }
        let topic = "homeassistant/sensor/beaconpresence_presence/node_hall-1_rssi_offset/config"
        #expect(!out.isEmpty && !out.contains { $0.topic == topic })
        for second in stride(from: 0.0, through: 180, by: 2) {
            for transmitter in nodes {
                for receiver in nodes where receiver != transmitter {
                    var heard = ReceivedMeasurement(beacon: NodeBeacon(node: transmitter).id, node: receiver, room: receiver,
                                                    rssiFiltered: -70, sigma: 1, distance: 5, proximity: .far, rssi: -70)
                    heard.measuredPower = -41
                    out += core.receive(heard, at: startTime + second)
                }
            }
            out += core.tick(at: startTime + second)
        }
        let announced = out.filter { $0.topic == topic }
        #expect(announced.count == 1)
        let message = try #require(announced.first)
        #expect(message.retain)
        guard case .object(let config) = try JSONParser.parse(Array(message.payload.utf8)) else { throw NotAnObject() }
        #expect(config.string("name") == "RSSI offset")
        #expect(config.string("unique_id") == "beaconpresence_presence/nodes/hall-1/rssi_offset")
        #expect(config.string("state_topic") == "presence/calibration")
        #expect(config.string("value_template") == "{{ value_json.nodes.get('hall-1', {}).get('offset') }}")
        #expect(config.string("json_attributes_topic") == "presence/calibration")
        #expect(config.string("json_attributes_template") == "{{ value_json.nodes.get('hall-1', {}) | tojson }}")
        #expect(config.string("unit_of_measurement") == "dB")
        #expect(config.string("state_class") == "measurement")
        #expect(config.string("entity_category") == "diagnostic")
        #expect(config.string("availability_topic") == "presence/aggregator/status")
        #expect(config.object("device")?.string("name") == "Node hall-1")
        // Home Assistant restarting gets it again with the rest; retiring the node removes it.
        #expect(core.discoveryMessages().contains { $0.topic == topic })
        let retired = core.nodeInfo(node: "hall-1", payload: [])
        #expect(retired.contains { $0.topic == topic && $0.payload.isEmpty })
    }

    struct NotAnObject: Error {}
}
