import BeaconCore
import Foundation
import Logging
import MQTTClient
import PresenceAggregator
import RoomDecisions
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

/// Issue 29 against a real mosquitto: ESPresense nodes and BLE-to-MQTT gateways feed the
/// aggregator with messages shaped as those projects publish them (`ForeignNodePayloads`). Time
/// is the service's injected clock; nothing sleeps for time to pass.
@Suite(.serialized) struct ForeignSourcesServiceTests {
    typealias P = ForeignNodePayloads
    static let keys = P.iBeacon(major: 5, minor: 6)
    static let alice = KnownBeacon(beacon: keys, alias: TopicLevelID("alice-keys"), name: "Alice's keys")
    static let phone = KnownBeacon(beacon: P.sampleKeyID, alias: TopicLevelID("alice-phone"), name: "Alice's iPhone")
    static let keysDevice = "iBeacon:\(P.uuid)-5-6"

    @Test func espresenseNodesPlaceAMoveSilenceAndOffline() async throws {
        let (run, readers) = try await ForeignAggregator.start(reading: "presence/locations/alice-keys/room") {
            $0.knownBeacons = [Self.alice]
            $0.sources.espresense = ESPresenseSettings(topic: "espresense", rooms: ["desk-node": "office"])
        }
        let room = readers[0]
        func report(_ node: String, _ rssi: Double) -> (String, String) {
            ("espresense/devices/\(Self.keysDevice)/\(node)", P.espresense(id: Self.keysDevice, rssi: rssi))
        }
        try await run.publish([report("kitchen", -62), report("desk-node", -80)])
        try await run.aggregator.advance(by: 1)
        #expect(text(try await room.next()) == "kitchen")

        // Carried to the desk: its node hears it loud, the kitchen faint.
        for _ in 0..<4 {
            try await run.publish([report("kitchen", -84), report("desk-node", -61)])
            try await run.aggregator.advance(by: 1)
        }
        #expect(text(try await room.next()) == "office")

        // The desk node goes offline (its last will): its word ends at once.
        try await run.publish([("espresense/rooms/desk-node/status", "offline")], retain: true)
        for _ in 0..<3 {
            try await run.publish([report("kitchen", -84)])
            try await run.aggregator.advance(by: 1)
        }
        #expect(text(try await room.next()) == "kitchen")

        // The kitchen node stops reporting: silent for the silence timeout, no node hears it;
        // after the away timeout it is away.
        try await run.aggregator.advance(by: 15 + 31)
        #expect(text(try await room.next()) == "not_home")
        #expect(run.aggregator.service.statistics.foreign.rejected == 0)
        try await run.aggregator.stop()
    }

    @Test func aPhoneESPresenseResolvedIsFollowedUnderItsAliasAndItsKeyGoesNowhere() async throws {
        let broker = try await TestBroker.start()
        let client = try await observer(broker)
        let recorder = try await TopicRecorder.start(broker, filter: "#", clientID: "everything")
        let room = MessageReader(try await client.subscribe("presence/locations/alice-phone/room"))
        let run = try await ForeignAggregator.start(on: broker, client: client) {
            $0.knownBeacons = [Self.phone]
            $0.sources.espresense = ESPresenseSettings(topic: "espresense")
        }
        let device = "irk:\(P.sampleKeyHex)"
        try await run.publish([
            ("espresense/devices/\(device)/kitchen", P.espresense(id: device, rssi: -60, name: "Alice's iPhone", mac: "5a1b2c3d4e5f")),
            ("espresense/devices/\(device)/hall", P.espresense(id: device, rssi: -81, mac: "5a1b2c3d4e5f")),
            // A malformed one on the key's topic: rejected and logged, without the key.
            ("espresense/devices/\(device)/hall", #"{"id":"\#(device)","rssi":"near"}"#),
        ])
        try await run.aggregator.advance(by: 1)
        #expect(text(try await room.next()) == "kitchen")
        try await run.aggregator.stop()
        #expect(run.aggregator.service.statistics.foreign.rejected == 1)

        let key = P.sampleKeyHex
        let ours = recorder.messages.filter { !$0.topic.hasPrefix("espresense/") }
        #expect(ours.contains { $0.topic == "presence/locations/alice-phone" })
        #expect(!ours.contains { $0.topic.contains(key) || $0.text.lowercased().contains(key) })
        #expect(run.log.lines.contains { $0.contains("foreign node message rejected") })
        #expect(!run.log.lines.contains { $0.lowercased().contains(key) })
    }

    @Test func gatewaysRawAndDecodedAdvertsAreTrackedAsOurAgentsWould() async throws {
        let (run, readers) = try await ForeignAggregator.start(reading: "presence/locations/alice-keys/room", "presence/locations/alice-keys") {
            $0.knownBeacons = [Self.alice]
            $0.sources.gateways = [GatewaySettings(topic: "home/+/BTtoMQTT/+", rooms: ["gw-office": "office", "TheengsGateway": "hall"])]
        }
        let (room, location) = (readers[0], readers[1])
        // An OpenMQTTGateway in the office publishes raw data; a Theengs Gateway in the hall decoded fields.
        for step in 0..<10 {
            try await run.publish([
                ("home/gw-office/BTtoMQTT/C4A1B2C3D4E5", P.openMQTTGateway(
                    address: "C4:A1:B2:C3:D4:E5", macType: 0, rssi: -58 - step % 2, manufacturerData: P.iBeaconData(major: 5, minor: 6))),
                ("home/TheengsGateway/BTtoMQTT/C4A1B2C3D4E5", P.theengsIBeacon(rssi: -79 + step % 2, major: 5, minor: 6)),
            ])
            try await run.aggregator.advance(by: 0.2)
        }
        #expect(text(try await room.next()) == "office")
        let placed = try object(try await location.next())
        #expect(placed.string("node") == "gw-office")
        #expect(placed.object("candidates")?.number("hall") != nil)
        try await run.aggregator.stop()
    }

    @Test func aPhoneAGatewayHearsIsResolvedWithThePushedKeyAndRecordedUnderItsId() async throws {
        let broker = try await TestBroker.start()
        let client = try await observer(broker)
        let recorder = try await TopicRecorder.start(broker, filter: "#", clientID: "everything")
        // The operator's list, retained, as the agents read it: the phone by its key.
        try client.publish(topic: "presence/config/beacons", string:
            #"{"revision":1,"beacons":[{"irk":"\#(P.sampleKeyHex)","id":"alice-phone","name":"Alice's iPhone"}]}"#,
            qos: .atLeastOnce, retain: true)
        let room = MessageReader(try await client.subscribe("presence/locations/alice-phone/room"))
        let tracePath = try TestBroker.makeTemporaryDirectory() + "/walk.trace.csv"
        let trace = try MeasurementRecorder(path: tracePath)
        let run = try await ForeignAggregator.start(on: broker, client: client, recorder: trace) {
            $0.sources.gateways = [GatewaySettings(topic: "home/+/BTtoMQTT/+", rooms: ["gw-office": "office", "gw-hall": "hall"])]
        }
        try await eventually("the pushed list applied") { run.aggregator.service.statistics.pushedBeaconLists >= 1 }
        // The phone rotates its address half way; OpenMQTTGateway says it is a random one.
        for (step, prand) in [0x2A_5A5A, 0x2A_5A5A, 0x13_3713, 0x13_3713].enumerated() {
            let address = P.phoneAddress(prand: UInt32(prand))
            let level = address.compactHex.uppercased()
            try await run.publish([
                ("home/gw-office/BTtoMQTT/\(level)", P.openMQTTGateway(
                    address: address.description.uppercased(), macType: 1, rssi: -58 - step % 2, manufacturerData: "4c0010050b1c6a4f2e")),
                ("home/gw-hall/BTtoMQTT/\(level)", P.openMQTTGateway(
                    address: address.description.uppercased(), macType: 1, rssi: -83, manufacturerData: "4c0010050b1c6a4f2e")),
            ])
            try await run.aggregator.advance(by: 0.5)
        }
        #expect(text(try await room.next()) == "office")
        try await run.aggregator.stop()

        let key = P.sampleKeyHex
        let ours = recorder.messages.filter { $0.topic != "presence/config/beacons" && !$0.topic.hasPrefix("home/") }
        #expect(ours.contains { $0.topic == "presence/locations/alice-phone" })
        #expect(!ours.contains { $0.topic.contains(key) || $0.text.lowercased().contains(key) })
        #expect(!run.log.lines.contains { $0.lowercased().contains(key) })
        let recorded = try String(contentsOfFile: tracePath, encoding: .utf8)
        #expect(recorded.contains("gw-office,office,\(P.sampleKeyID)"))
        #expect(!recorded.lowercased().contains(key))
    }

    @Test func aMixedSiteDecidesOnOurAgentsESPresenseAndGatewaysTogether() async throws {
        let (run, readers) = try await ForeignAggregator.start(reading: "presence/locations/alice-keys/room", "presence/locations/alice-keys") {
            $0.knownBeacons = [Self.alice]
            $0.sources.espresense = ESPresenseSettings(topic: "espresense")
            $0.sources.gateways = [GatewaySettings(topic: "home/+/BTtoMQTT/+", rooms: ["gw-hall": "hall"])]
        }
        let (room, location) = (readers[0], readers[1])
        // Our agent in the kitchen hears it at 4 m (score −9 dB), an ESPresense node in the office
        // 3 dB under its 1 m power, a gateway in the hall far.
        try await run.aggregator.measure(Self.keys, [("kitchen-1", "kitchen", 4.0)], alias: "alice-keys")
        try await run.publish([
            ("espresense/devices/\(Self.keysDevice)/office", P.espresense(id: Self.keysDevice, rssi: -62)),
            ("home/gw-hall/BTtoMQTT/C4A1B2C3D4E5", P.theengsRaw(rssi: -88, manufacturerData: P.iBeaconData(major: 5, minor: 6))),
        ])
        try await run.aggregator.advance(by: 1)
        #expect(text(try await room.next()) == "office")
        let placed = try object(try await location.next())
        let candidates = try #require(placed.object("candidates"))
        #expect(Set(candidates.keys) == ["kitchen", "office", "hall"])
        try await run.aggregator.stop()
    }

    @Test func malformedForeignMessagesNeverStopTheAggregator() async throws {
        let (run, readers) = try await ForeignAggregator.start(reading: "presence/locations/alice-keys/room") {
            $0.knownBeacons = [Self.alice]
            $0.sources.espresense = ESPresenseSettings(topic: "espresense")
            $0.sources.gateways = [GatewaySettings(topic: "home/+/BTtoMQTT/+", rooms: ["gw-office": "office"])]
        }
        let room = readers[0]
        let garbage: [String] = [
            "", "null", "[]", "{", "\u{1}\u{2}\u{3}", String(repeating: "[", count: 10_000), "{\"id\":" + String(repeating: "9", count: 5000) + "}",
            #"{"id":"\#(Self.keysDevice)","rssi":1e999}"#, #"{"id":"\#(Self.keysDevice)","rssi":{"a":{"b":{"c":{"d":1}}}}}"#,
            #"{"id":"C4:A1:B2:C3:D4:E5","rssi":-70,"manufacturerdata":"4c000215"}"#, #"{"id":"C4:A1:B2:C3:D4:E5","rssi":"x"}"#,
            String(repeating: "x", count: 300_000),
        ]
        var messages: [(String, String)] = []
        for payload in garbage {
            messages.append(("espresense/devices/\(Self.keysDevice)/kitchen", payload))
            messages.append(("espresense/devices/%2F..%2F/Bad Node", payload))
            messages.append(("espresense/rooms/kitchen/status", payload))
            messages.append(("home/gw-office/BTtoMQTT/C4A1B2C3D4E5", payload))
            messages.append(("home/gw-unknown/BTtoMQTT/C4A1B2C3D4E5", payload))
        }
        try await run.publish(messages)
        #expect(run.aggregator.service.statistics.foreign.rejected > 30)
        // Still deciding: a good report places the beacon.
        try await run.publish([("espresense/devices/\(Self.keysDevice)/kitchen", P.espresense(id: Self.keysDevice, rssi: -62))])
        try await run.aggregator.advance(by: 1)
        #expect(text(try await room.next()) == "kitchen")
        // One log line per node and minute, not one per message.
        let rejections = run.log.lines.filter { $0.contains("foreign node message rejected") }
        #expect(rejections.count <= 4)
        try await run.aggregator.stop()
    }
}

/// A live aggregator with a log the test can read.
struct ForeignAggregator {
    let aggregator: LiveAggregator
    let log: CapturedLog

    static func start(on broker: TestBroker, client: MQTTConnection, recorder: MeasurementRecorder? = nil,
                      _ configure: (inout AggregatorConfiguration) -> Void) async throws -> ForeignAggregator {
        var configuration = LiveAggregator.configuration(for: broker, configure)
        // The nodes' own silence, not the safety net, ends their word here.
        configuration.decision.staleAfter = 150
        let status = MessageReader(try await client.subscribe(configuration.topics.aggregatorStatus))
        let clock = ManualClock(now: startTime)
        let log = CapturedLog()
        var logger = Logger(label: "foreign-test") { _ in log.handler() }
        logger.logLevel = .info
        let service = AggregatorService(
            configuration: configuration, clock: clock, logger: logger, softwareVersion: "9.8.7",
            reconnect: MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(200)), recorder: recorder)
        let group = ServiceGroup(configuration: .init(services: [.init(service: service)], logger: quietLogger))
        let task = Task { try await group.run() }
        _ = try await status.until { text($0) == "online" }
        return ForeignAggregator(
            aggregator: LiveAggregator(broker: broker, clock: clock, service: service, group: group, task: task, client: client), log: log)
    }

    /// How most tests open: a fresh mosquitto, an observer client reading `topics` (subscribed
    /// before the aggregator starts, so nothing it publishes is missed), and an aggregator
    /// configured by `configure`. The readers come back in the order of `topics`.
    static func start(reading topics: String..., configure: (inout AggregatorConfiguration) -> Void)
        async throws -> (run: ForeignAggregator, readers: [MessageReader]) {
        let broker = try await TestBroker.start()
        let client = try await observer(broker)
        var readers: [MessageReader] = []
        for topic in topics { readers.append(MessageReader(try await client.subscribe(topic))) }
        return (try await start(on: broker, client: client, configure), readers)
    }

    /// Publishes foreign messages and waits until the service has handled them all.
    func publish(_ messages: [(topic: String, payload: String)], retain: Bool = false) async throws {
        let service = aggregator.service
        let before = service.statistics.foreign.messages
        for message in messages {
            try aggregator.client.publish(topic: message.topic, string: message.payload, qos: .atLeastOnce, retain: retain)
        }
        try await eventually("\(messages.count) foreign messages handled") {
            service.statistics.foreign.messages >= before + messages.count
        }
    }
}

/// Every line logged, rendered with its metadata, for tests that check what reaches a log.
final class CapturedLog: Sendable {
    private let captured = Mutex<[String]>([])
    var lines: [String] { captured.withLock { $0 } }

    func handler() -> some LogHandler { Handler(log: self) }

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String, function: String, line: UInt) {
            let all = self.metadata.merging(metadata ?? [:]) { $1 }
            let line = "\(level) \(message) " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            log.captured.withLock { $0.append(line) }
        }
    }
}
