import BeaconCore
import Foundation
import MQTTClient
import PresenceAggregator
import TestSupport
import Testing

/// What a user checks of foreign nodes beside the decisions, against a real mosquitto with
/// messages shaped as ESPresense and the BLE gateways publish them (`ForeignNodePayloads`): the
/// Home Assistant device of each names the availability the node itself publishes, and
/// `presence-aggregator watch` lists them with what they hear.
@Suite(.serialized) struct ForeignNodeDevicesServiceTests {
    typealias P = ForeignNodePayloads
    static let alice = KnownBeacon(beacon: P.iBeacon(major: 5, minor: 6), alias: TopicLevelID("alice-keys"), name: "Alice's keys")
    static let device = "iBeacon:\(P.uuid)-5-6"
    static let connectivity = "homeassistant/binary_sensor/beaconpresence_presence/node_kitchen_connectivity/config"

    /// The state Home Assistant shows for a connectivity config: it subscribes to the config's
    /// `state_topic` and maps the retained payload through `payload_on` and `payload_off`.
    private func homeAssistantState(_ config: JSONObject, broker: TestBroker, client id: String) async throws -> String {
        let stateTopic = try #require(config.string("state_topic"))
        let reader = try await observer(broker, id)
        let state = try await MessageReader(try await reader.subscribe(stateTopic)).next()
        await reader.disconnect()
        switch text(state) {
        case config.string("payload_on"): return "on"
        case config.string("payload_off"): return "off"
        default: return "unknown"
        }
    }

    @Test func anESPresenseNodesDeviceNamesItsStatusTopicAndItsLastWillTurnsItOff() async throws {
        let broker = try await TestBroker.start()
        let client = try await observer(broker)
        let configs = MessageReader(try await client.subscribe(Self.connectivity))
        let discovery = try await TopicRecorder.start(broker, filter: "homeassistant/#", clientID: "discovery")
        let summaries = MessageReader(try await client.subscribe("presence/aggregator/nodes/kitchen"))
        let run = try await ForeignAggregator.start(on: broker, client: client) {
            $0.knownBeacons = [Self.alice]
            $0.sources.espresense = ESPresenseSettings(topic: "espresense")
        }
        // The node connects (`online`, retained) and reports the keys.
        try await run.publish([("espresense/rooms/kitchen/status", "online")], retain: true)
        try await run.publish([("espresense/devices/\(Self.device)/kitchen", P.espresense(id: Self.device, rssi: -62))])
        let config = try object(try await configs.next())
        #expect(config.string("state_topic") == "espresense/rooms/kitchen/status")
        #expect(config.string("payload_on") == "online")
        #expect(config.string("payload_off") == "offline")
        #expect(config.object("device")?.string("name") == "ESPresense kitchen")
        #expect(try await homeAssistantState(config, broker: broker, client: "ha-1") == "on")

        try await run.aggregator.advance(by: 1)
        let heard = try object(try await summaries.until { (try? object($0))?.string("status") == "online" }.last!)
        #expect(heard.string("source") == "espresense")

        // Its last will: Home Assistant shows it disconnected, and its word is gone.
        try await run.publish([("espresense/rooms/kitchen/status", "offline")], retain: true)
        #expect(try await homeAssistantState(config, broker: broker, client: "ha-2") == "off")
        try await run.aggregator.advance(by: 1)
        let offline = try object(try await summaries.until { (try? object($0))?.string("status") == "offline" }.last!)
        guard case .array(let beacons)? = offline["beacons"] else { throw NotAnArray() }
        #expect(beacons.isEmpty)
        try await run.aggregator.stop()
        // No telemetry sensor of ours was offered for it: nothing there to fill one.
        #expect(discovery.messages.contains { $0.topic == Self.connectivity })
        #expect(!discovery.messages.contains { $0.topic.contains("/node_kitchen_") && $0.topic != Self.connectivity && !$0.text.isEmpty })
    }

    @Test func watchListsTheForeignNodesBesideOurAgents() async throws {
        let broker = try await TestBroker.start()
        let client = try await observer(broker)
        let run = try await ForeignAggregator.start(on: broker, client: client) {
            $0.knownBeacons = [Self.alice]
            $0.sources.espresense = ESPresenseSettings(topic: "espresense", rooms: ["desk-node": "office"])
            $0.sources.gateways = [GatewaySettings(topic: "home/+/BTtoMQTT/+", rooms: ["gw-hall": "hall"])]
        }
        try client.publish(topic: "presence/nodes/kitchen-1/status", string: "online", qos: .atLeastOnce, retain: true)
        try client.publish(topic: "presence/nodes/kitchen-1/info", string: #"{"node":"kitchen-1","room":"kitchen"}"#,
                           qos: .atLeastOnce, retain: true)
        try await run.aggregator.measure(P.iBeacon(major: 5, minor: 6), [("kitchen-1", "kitchen", 4.0)], alias: "alice-keys")
        try await run.publish([("espresense/rooms/desk-node/status", "online")], retain: true)
        try await run.publish([
            ("espresense/devices/\(Self.device)/desk-node", P.espresense(id: Self.device, rssi: -62)),
            ("home/gw-hall/BTtoMQTT/C4A1B2C3D4E5", P.theengsRaw(rssi: -88, manufacturerData: P.iBeaconData(major: 5, minor: 6))),
        ])
        let summaries = MessageReader(try await client.subscribe("presence/aggregator/nodes/+"))
        try await run.aggregator.advance(by: 2)
        _ = try await summaries.until { $0.topic.hasSuffix("/gw-hall") }

        let lines = try await watchOnce(broker)
        #expect(lines.contains { $0.hasPrefix("NODES") && $0.hasSuffix("KIND        REJECTED") })
        #expect(lines.contains { $0.hasPrefix("  desk-node ") && $0.contains(" office ") && $0.contains(" online ") && $0.hasSuffix(" ESPresense  0") })
        #expect(lines.contains { $0.hasPrefix("  gw-hall ") && $0.contains(" hall ") && $0.hasSuffix(" gateway     0") })
        #expect(lines.contains { $0.hasPrefix("  kitchen-1 ") && $0.contains(" kitchen ") && $0.hasSuffix(" agent       -") })
        let distances = try #require(lines.first { $0.hasPrefix("DISTANCE BY NODE") })
        #expect(distances.contains("desk-node") && distances.contains("gw-hall"))
        try await run.aggregator.stop()
    }

    struct NotAnArray: Error {}
}
