import BeaconCore
import PresenceAggregator
import TestSupport
import Testing

/// A foreign node's Home Assistant device, without a broker: what the ESPresense and gateway
/// sources hand the core makes a device whose connectivity reads the node's own availability, and
/// offers no sensor the node cannot fill.
@Suite struct ForeignNodeDeviceTests {
    typealias P = ForeignNodePayloads
    static let site = "beaconpresence_presence"

    /// The core fed, as `ForeignNodeFeed` feeds it, with one foreign message.
    private func publications(_ sources: inout ForeignSources, _ core: inout AggregatorCore, topic: String, payload: String) -> [AggregatorPublication] {
        guard case .used(let inputs) = sources.receive(topic: topic, payload: Array(payload.utf8), at: startTime) else { return [] }
        var out: [AggregatorPublication] = []
        for input in inputs {
            switch input {
            case .measurement(let measurement): out += core.receive(measurement, at: startTime)
            case .nodeStatus(let node, let online): out += core.nodeStatus(node: node, online: online, at: startTime)
            case .nodeInfo(let node, let room, let version, let kind): out += core.nodeInfo(node: node, room: room, version: version, kind: kind)
            }
        }
        return out
    }

    private func site() -> (ForeignSources, AggregatorCore) {
        var configuration = AggregatorConfiguration.default
        configuration.knownBeacons = [KnownBeacon(beacon: P.iBeacon(major: 5, minor: 6), alias: TopicLevelID("alice-keys"), name: "Alice's keys")]
        configuration.sources.espresense = ESPresenseSettings(topic: "espresense", rooms: ["desk-node": "office"])
        configuration.sources.gateways = [GatewaySettings(topic: "home/+/BTtoMQTT/+", rooms: ["gw-hall": "hall"])]
        var core = AggregatorCore(configuration: configuration, softwareVersion: "1.0")
        _ = core.announceAggregator()
        var sources = ForeignSources(configuration: configuration)
        sources.setKnown(configuration.knownBeacons)
        return (sources, core)
    }

    struct NotAnObject: Error {}

    private func config(_ out: [AggregatorPublication], _ topic: String) throws -> JSONObject {
        let message = try #require(out.first { $0.topic == topic })
        guard case .object(let object) = try JSONParser.parse(Array(message.payload.utf8)) else { throw NotAnObject() }
        return object
    }

    @Test func anESPresenseNodesConnectivityIsItsStatusTopicAndItHasNoOtherSensor() throws {
        var (sources, core) = site()
        let out = publications(&sources, &core, topic: "espresense/rooms/desk-node/status", payload: "online")
        let discovery = out.filter { $0.topic.hasPrefix("homeassistant/") && !$0.payload.isEmpty }
        #expect(discovery.map(\.topic) == ["homeassistant/binary_sensor/\(Self.site)/node_desk-node_connectivity/config"])
        let connectivity = try config(out, discovery[0].topic)
        #expect(connectivity.string("state_topic") == "espresense/rooms/desk-node/status")
        #expect(connectivity.string("payload_on") == "online")
        #expect(connectivity.string("payload_off") == "offline")
        #expect(connectivity.string("device_class") == "connectivity")
        let device = try #require(connectivity.object("device"))
        #expect(device.string("name") == "ESPresense desk-node")
        #expect(device.string("suggested_area") == "office")
        #expect(device.string("via_device") == "\(Self.site)/aggregator")
        // Sensors an earlier version offered every node, which it cannot fill, are removed.
        let cleared = out.filter { $0.topic.contains("/node_desk-node_") && $0.payload.isEmpty && $0.retain }.map(\.topic)
        #expect(cleared.count == HomeAssistantDiscovery.entities(of: NodeKind.agent).count - 1)
        #expect(!cleared.contains(discovery[0].topic))

        // Its telemetry gives the device its firmware version; still no telemetry sensor of ours.
        let telemetry = publications(&sources, &core, topic: "espresense/rooms/desk-node/telemetry", payload: #"{"ip":"10.0.0.9","uptime":51,"ver":"v4.1.6"}"#)
        #expect(telemetry.filter { !$0.payload.isEmpty }.map(\.topic) == [discovery[0].topic])
        #expect(try config(telemetry, discovery[0].topic).object("device")?.string("sw_version") == "v4.1.6")
    }

    @Test func aNodeHeardFirstThroughAReportIsAnnouncedAsAnESPresenseNode() throws {
        var (sources, core) = site()
        let id = "iBeacon:\(P.uuid)-5-6"
        let out = publications(&sources, &core, topic: "espresense/devices/\(id)/kitchen", payload: P.espresense(id: id, rssi: -62))
        let nodeConfigs = out.filter { $0.topic.contains("/node_kitchen_") && !$0.payload.isEmpty }
        #expect(nodeConfigs.map(\.topic) == ["homeassistant/binary_sensor/\(Self.site)/node_kitchen_connectivity/config"])
        #expect(try config(out, nodeConfigs[0].topic).string("state_topic") == "espresense/rooms/kitchen/status")
    }

    @Test func aGatewaysConnectivityIsItsLastWill() throws {
        var (sources, core) = site()
        let out = publications(&sources, &core, topic: "home/gw-hall/BTtoMQTT/C4A1B2C3D4E5",
                               payload: P.theengsRaw(rssi: -70, manufacturerData: P.iBeaconData(major: 5, minor: 6)))
        let nodeConfigs = out.filter { $0.topic.contains("/node_gw-hall_") && !$0.payload.isEmpty }
        #expect(nodeConfigs.map(\.topic) == ["homeassistant/binary_sensor/\(Self.site)/node_gw-hall_connectivity/config"])
        let connectivity = try config(out, nodeConfigs[0].topic)
        #expect(connectivity.string("state_topic") == "home/gw-hall/LWT")
        #expect(connectivity.object("device")?.string("model") == "BLE-to-MQTT gateway")
    }

    /// A gateway on a topic without `BTtoMQTT` has no availability anyone knows: no device.
    @Test func aGatewayWithoutAKnownLastWillHasNoDevice() throws {
        var configuration = AggregatorConfiguration.default
        configuration.knownBeacons = [KnownBeacon(beacon: P.iBeacon(major: 5, minor: 6), alias: TopicLevelID("alice-keys"), name: "Alice's keys")]
        configuration.sources.gateways = [GatewaySettings(topic: "ble/+/+", rooms: ["gw-hall": "hall"])]
        var core = AggregatorCore(configuration: configuration, softwareVersion: "1.0")
        _ = core.announceAggregator()
        var sources = ForeignSources(configuration: configuration)
        sources.setKnown(configuration.knownBeacons)
        let out = publications(&sources, &core, topic: "ble/gw-hall/C4A1B2C3D4E5",
                               payload: P.theengsRaw(rssi: -70, manufacturerData: P.iBeaconData(major: 5, minor: 6)))
        #expect(out.contains { $0.topic.hasSuffix("/alice-keys_tracker/config") })  // the advert was used
        #expect(!out.contains { $0.topic.contains("/node_gw-hall_") && !$0.payload.isEmpty })
    }

    /// A name our agent used, taken by an ESPresense node: the agent's telemetry sensors go.
    @Test func anAgentsDeviceTakenByAForeignNodeLosesItsTelemetrySensors() throws {
        var (sources, core) = site()
        let agent = core.nodeStatus(node: "kitchen", online: true, at: startTime).filter { $0.topic.contains("/node_kitchen_") }
        #expect(agent.count == HomeAssistantDiscovery.entities(of: NodeKind.agent).count)
        let out = publications(&sources, &core, topic: "espresense/rooms/kitchen/status", payload: "online")
        let cleared = out.filter { $0.payload.isEmpty }.map(\.topic)
        #expect(Set(cleared) == Set(agent.map(\.topic).filter { !$0.contains("_connectivity/") }))
        #expect(try config(out, "homeassistant/binary_sensor/\(Self.site)/node_kitchen_connectivity/config")
            .string("state_topic") == "espresense/rooms/kitchen/status")
    }
}
