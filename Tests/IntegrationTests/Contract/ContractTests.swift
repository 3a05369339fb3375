import BeaconCore
import BluetoothHCI
import Foundation
import Logging
import MQTTClient
import PresenceAgent
import PresenceAggregator
import ServiceLifecycle
import Synchronization
import Testing
import TestSupport

/// Issue 34's check of the contract: a whole site on a real mosquitto — the demo building's nodes
/// (`simulate`), a node on a serial radio (the fake controller, unplugged halfway), the aggregator
/// with Home Assistant discovery, floors, a standby-ready lease (`failover`), an ESPresense node
/// and a BLE gateway fed as their firmware publishes — runs for 75 simulated seconds, with every
/// config message an operator sends (applied, refused, cleared). A recorder on `#` collects every
/// topic and every JSON field; docs/MQTT.md must list each one, and everything it lists as ours
/// must have been published. Retained and QoS are checked too: QoS as delivered, retained by what
/// a fresh subscriber finds once the site has stopped.
///
/// The services run in this process on one `ManualClock`, so the simulated minute passes at CPU
/// speed; waits are for conditions, bounded as failure guards.
@Suite(.serialized) struct ContractTests {
    static let uuid = "fda50693-a4e2-4fb1-afcf-c6eb07647825"
    static let simulatedNodes = [("kitchen-1", "kitchen"), ("living-1", "living")]
    /// Two telemetry periods and a ranging heartbeat.
    static let duration = 75.0
    static let step = 0.25
    /// The radio node's iBeacon (AgentRadioServiceTests' report).
    static let radioReport = HexDigits.bytes("043e2702010400ab6fbf38c1a41b1aff4c000215494e54454c4c495f524f434b535f48575072f2ffc2cf")!

    static var contractPath: String { RecordedData.packageRoot().appendingPathComponent("docs/MQTT.md").path }

    @Test func everyTopicAndFieldPublishedIsInTheContractAndEveryOneListedIsPublished() async throws {
        let contract = try MQTTContract(path: Self.contractPath)
        #expect(contract.topics.count > 20, "docs/MQTT.md's Topics table was not found")
        let broker = try await TestBroker.start()
        defer { broker.kill() }
        let work = try TestBroker.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let recorder = try await TopicRecorder.start(broker, filter: "#", clientID: "contract-recorder")

        // The operator's configuration, retained at QoS 1 as PushedConfiguration says. Alice and Bob
        // wear their tags (`worn`).
        let carolKey = SimulationScenario.demoPhoneKey
        try broker.mosquittoPub(topic: "presence/config/beacons", message: #"""
            {"revision":1,"beacons":[
             {"beacon":"ibeacon-\#(Self.uuid)-1-1","id":"alice","name":"Alice","measuredPower":-59,"worn":true},
             {"beacon":"ibeacon-\#(Self.uuid)-1-2","id":"bob","name":"Bob","worn":true},
             {"irk":"\#(carolKey)","id":"carol","name":"Carol","awayTimeout":600}]}
            """#, qos: 1, retain: true)
        try broker.mosquittoPub(topic: "presence/config/regions", message: #"""
            {"revision":1,"regions":[{"id":"house","uuid":"\#(Self.uuid)"},
             {"id":"alice-tag","uuid":"\#(Self.uuid)","major":1,"minor":1,"notifyOnEntry":true,"notifyOnExit":true}]}
            """#, qos: 1, retain: true)
        try broker.mosquittoPub(
            topic: "presence/nodes/kitchen-1/config",
            message: #"{"revision":1,"room":"kitchen","rssiOffset":0,"pathLossExponent":2.7,"exitDelay":10,"reportUnknown":false,"heartbeat":20,"rssiStep":3}"#,
            qos: 1, retain: true)

        var logger = Logger(label: "contract-test")
        logger.logLevel = .critical
        let clock = ManualClock(now: Instant(seconds: 1_800_000_000))

        // The aggregator: discovery on, floors, foreign sources, and the lease of a standby pair.
        var site = AggregatorConfiguration.default
        site.broker = MQTTBrokerURL(host: broker.host, port: broker.port)
        site.decision.pathLossExponent = 2.7
        site.decision.settleTime = 1
        site.floors = ["kitchen": "ground", "living": "ground", "hall": "ground", "office": "upstairs", "bedroom": "upstairs"]
        site.sources = ForeignSourcesSettings(
            espresense: ESPresenseSettings(topic: "espresense", rooms: ["desk": "office"]),
            gateways: [GatewaySettings(topic: "home/+/BTtoMQTT/+", rooms: ["gw-hall": "hall"])])
        site.failover = FailoverSettings(enabled: true, instance: TopicLevelID("agg-a"), leaseTimeout: 60)
        // Nodes that calibrate each other (`<root>/calibration`), their node beacons heard below.
        site.nodeBeacons = Dictionary(uniqueKeysWithValues: Self.calibratingNodes.indices.map {
            (Self.calibratingNodes[$0], BeaconID(rawValue: "ibeacon-\(Self.uuid)-9-\($0 + 1)"))
        })
        site.stateDir = work
        let aggregator = AggregatorService(
            configuration: site, clock: clock, logger: logger, softwareVersion: "9.8.7",
            supportURL: "https://example.org/beaconpresence",
            reconnect: MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(200)))

        // Two simulated nodes of the demo building and one on a serial radio.
        func agent(_ node: String, _ room: String, source: String, reportUnknown: Bool = false) throws -> AgentService {
            try testAgent(node, room, broker: broker, stateDir: work + "/state-\(node)", source: source, clock: clock, logger: logger) {
                $0.reportUnknown = reportUnknown
                $0.pathLossExponent = 2.7
            }
        }
        var behaviour = FakeController.Behaviour()
        behaviour.reportsAfterScanEnable = [Self.radioReport]
        behaviour.reportInterval = 0.2
        let radio = try FakeController(behaviour: behaviour)
        // A second radio whose controller will not advertise while it scans: its info says why.
        var refusing = behaviour
        refusing.statuses = [HCICommand.leSetExtendedAdvertisingEnable(true).opcode: 0x0C]
        let silentRadio = try FakeController(behaviour: refusing)
        defer { silentRadio.unplug() }
        let agents = try Self.simulatedNodes.map { try agent($0.0, $0.1, source: "simulate") }
            + [try agent("hall-1", "hall", source: "uart:" + radio.pty.devicePath, reportUnknown: true),
               try agent("hall-2", "hall", source: "uart:" + silentRadio.pty.devicePath)]
        // The aggregator first, leading before any node speaks: a standby-ready instance sends
        // nothing (no event, no summary) until it leads.
        let aggregatorGroup = ServiceGroup(configuration: .init(services: [.init(service: aggregator)], logger: logger))
        let agentGroup = ServiceGroup(configuration: .init(services: agents.map { .init(service: $0) }, logger: logger))
        let aggregatorStopped = Flag(), agentsStopped = Flag()
        let aggregatorRun = Task {
            defer { aggregatorStopped.set() }
            try await aggregatorGroup.run()
        }
        /// One step of the clock, handled by the aggregator (its tick) before the next.
        func step() async throws {
            let before = aggregator.statistics.ticks
            clock.advance(by: Self.step)
            try await eventually("the aggregator's tick") { aggregator.statistics.ticks > before || aggregatorStopped.isSet }
        }
        // Until it leads, a step's tick may come before the service reads its clock: not awaited.
        for _ in 0..<100 where !recorder.texts("presence/aggregator/status").contains("online") {
            clock.advance(by: Self.step)
            _ = try? await recorder.wait(forTopic: "presence/aggregator/status", timeout: .milliseconds(100)) { $0.text == "online" }
        }
        try await recorder.wait(forTopic: "presence/aggregator/status", timeout: .seconds(1)) { $0.text == "online" }
        let agentsRun = Task {
            defer { agentsStopped.set() }
            try await agentGroup.run()
        }

        // Home Assistant (re)starting, ESPresense and a gateway coming online: retained where
        // their firmware retains.
        let foreign = try await observer(broker, "foreign-nodes")
        try await foreign.publish(topic: "homeassistant/status", string: "online", qos: .atMostOnce).acknowledged()
        try await foreign.publish(topic: "espresense/rooms/desk/status", string: "online", qos: .atLeastOnce, retain: true).acknowledged()
        try await foreign.publish(
            topic: "espresense/rooms/desk/telemetry",
            string: #"{"ip":"10.0.0.9","uptime":120,"firm":"esp32","rssi":-61,"ver":"v4.1.2","count":3,"adverts":412,"seen":3,"reported":40,"freeHeap":101232,"maxHeap":53236}"#,
            qos: .atMostOnce).acknowledged()
        try await foreign.publish(topic: "home/gw-hall/LWT", string: "online", qos: .atLeastOnce, retain: true).acknowledged()
        // The calibrating nodes' info, as our agents write it: cal-1's operator set its own
        // rssiOffset (it wins), the others take the aggregator's (`<root>/nodes/<node>/calibration`).
        for (index, node) in Self.calibratingNodes.enumerated() {
            let offset = index == 0 ? #""rssiOffset":1.5,"rssiOffsetSource":"operator""# : #""rssiOffset":0,"rssiOffsetSource":"none""#
            try await foreign.publish(topic: "presence/nodes/\(node)/info", string: #"{"node":"\#(node)","room":"\#(node)",\#(offset)}"#,
                                      qos: .atLeastOnce, retain: true).acknowledged()
        }

        // The simulated sources start once the retained configuration is in, then sleep on the clock.
        try await within("the simulated sources waiting on the clock", timeout: .seconds(30)) { try await clock.asleep(Self.simulatedNodes.count) }
        let steps = Int(Self.duration / Self.step)
        for index in 0..<steps {
            if index % 2 == 0 { try Self.publishNodeBeacons(foreign) }
            if index % 8 == 0 {
                // What the foreign nodes hear, every 2 s of the run's first half.
                if index < steps / 2 { try Self.publishForeignReports(foreign, walk: index / 8) }
            }
            if index == steps / 2 {
                // A refused message, then a cleared one; the radio is unplugged (telemetry says so).
                try broker.mosquittoPub(topic: "presence/nodes/kitchen-1/config", message: #"{"revision":2,"rssiOffset":45}"#, qos: 1, retain: true)
                try await recorder.wait(forTopic: "presence/nodes/kitchen-1/config/status") { $0.text.contains(#""keptRevision":1"#) }
                try broker.mosquittoPub(topic: "presence/nodes/kitchen-1/config", message: "", qos: 1, retain: true)
                try await recorder.wait(forTopic: "presence/nodes/kitchen-1/config/status") { $0.text.contains(#""cleared":true"#) }
                radio.unplug()
            }
            try await step()
            try await within("step \(index)", timeout: .seconds(10)) { try await clock.asleep(Self.simulatedNodes.count) }
        }
        // What is still on its way: bounded, and a missing topic is reported below, not here.
        let ours = contract.topics.filter(\.isOurs)
        _ = try? await recorder.wait(for: "every topic of ours", timeout: .seconds(5)) { messages in
            let seen = Set(messages.filter { !$0.payload.isEmpty }.compactMap { contract.topic(matching: $0.topic)?.pattern })
            return ours.allSatisfy { seen.contains($0.pattern) }
        }

        await agentGroup.triggerGracefulShutdown()
        await aggregatorGroup.triggerGracefulShutdown()
        // The sources asleep on the clock (the simulated ones, the radio waiting to reopen) see the
        // stop when they wake: the clock steps on until both groups have stopped.
        let stopped: @Sendable () -> Bool = { agentsStopped.isSet && aggregatorStopped.isSet }
        for _ in 0..<120 where !stopped() {
            clock.advance(by: Self.step)
            try? await eventually("the site to stop", timeout: .milliseconds(250)) { stopped() }
        }
        #expect(stopped(), "the site did not stop")
        try await agentsRun.value
        try await aggregatorRun.value
        await foreign.disconnect(flushTimeout: .seconds(1))
        try await recorder.probe(through: broker, "end")
        await recorder.stop()

        // What a new subscriber is given: the retained topics.
        let snapshot = try await TopicRecorder.start(broker, filter: "#", clientID: "contract-snapshot")
        try await snapshot.probe(through: broker, "snapshot")
        let retained = Set(snapshot.messages.filter(\.retain).map(\.topic))
        await snapshot.stop()

        let messages = recorder.messages.filter { $0.topic != "presence/probe" }
        for problem in Self.problems(messages, retained: retained, contract: contract) {
            Issue.record(Comment(rawValue: problem))
        }
    }

    /// Nodes that hear each other's node beacons: five all round, the sixth with the first only
    /// (not confident), the second's beacon heard 15 dB weak by the third (a path blocked one way).
    static let calibratingNodes = ["cal-1", "cal-2", "cal-3", "cal-4", "cal-5", "cal-6"]

    /// What the calibrating nodes measure of each other's node beacons, as agents publish it.
    static func publishNodeBeacons(_ foreign: MQTTConnection) throws {
        let offsets = [4.0, -1, -3, 0, 2, 1]
        for (a, transmitter) in calibratingNodes.enumerated() {
            for (b, receiver) in calibratingNodes.enumerated() where a != b && (max(a, b) < 5 || min(a, b) == 0) {
                let blocked = transmitter == "cal-2" && receiver == "cal-3" ? 15.0 : 0
                let level = offsets[b] - 60 - 2 * Double(a + b) - blocked
                let beacon = "ibeacon-\(uuid)-9-\(a + 1)"
                _ = try foreign.publish(
                    topic: "presence/beacons/\(beacon)/\(receiver)",
                    string: #"{"id":"\#(beacon)","beacon":"\#(beacon)","node":"\#(receiver)","room":"\#(receiver)","rssi":\#(Int(level)),"rssiFiltered":\#(level),"sigma":1.0,"measuredPower":-59,"distance":5.0,"proximity":"far"}"#,
                    qos: .atMostOnce)
            }
        }
    }

    /// An ESPresense node's reports and a gateway's adverts, as their firmware writes them, of people
    /// walking about (the RSSI changes with `walk`: a summary is published when what a node hears
    /// changes, and only by the instance that leads by then).
    static func publishForeignReports(_ foreign: MQTTConnection, walk: Int) throws {
        let change = Double(walk % 4) * 4
        _ = try foreign.publish(
            topic: "espresense/devices/iBeacon:\(uuid)-1-1/desk",
            string: ForeignNodePayloads.espresense(id: "iBeacon:\(uuid)-1-1", rssi: -66 - change, name: "Alice"), qos: .atMostOnce)
        _ = try foreign.publish(
            topic: "home/gw-hall/BTtoMQTT/C4A1B2C3D402",
            string: ForeignNodePayloads.theengsIBeacon(address: "C4:A1:B2:C3:D4:02", rssi: -72 - Int(change), major: 1, minor: 2), qos: .atMostOnce)
        _ = try foreign.publish(
            topic: "home/gw-hall/BTtoMQTT/C4A1B2C3D401",
            string: ForeignNodePayloads.theengsRaw(address: "C4:A1:B2:C3:D4:01", rssi: -80 + Int(change),
                                                   manufacturerData: ForeignNodePayloads.iBeaconData(major: 1, minor: 1)),
            qos: .atMostOnce)
        _ = try foreign.publish(
            topic: "home/gw-hall/BTtoMQTT/C4A1B2C3D402",
            string: ForeignNodePayloads.openMQTTGateway(address: "C4:A1:B2:C3:D4:02", macType: 0, rssi: -73 - Int(change),
                                                        manufacturerData: ForeignNodePayloads.iBeaconData(major: 1, minor: 2)),
            qos: .atMostOnce)
    }

    /// Every way the messages and the contract disagree, one line each.
    static func problems(_ messages: [TopicRecorder.Message], retained: Set<String>, contract: MQTTContract) -> [String] {
        var problems: [String] = []
        var undocumentedTopics: [String: String] = [:]  // a normalised form → an example
        var seenPatterns: Set<String> = []
        var fieldsSeen: [String: Set<String>] = [:]  // section heading → documented fields seen
        var undocumentedFields: [String: String] = [:]  // "pattern: path" → an example topic
        var wrong: Set<String> = []
        var last: [String: TopicRecorder.Message] = [:]
        for message in messages {
            last[message.topic] = message
            guard let topic = contract.topic(matching: message.topic) else {
                let levels = message.topic.split(separator: "/").enumerated().map { $0.offset < 2 ? String($0.element) : "…" }
                undocumentedTopics[levels.joined(separator: "/") + " (\(message.topic.split(separator: "/").count) levels)"] = message.topic
                continue
            }
            guard !message.payload.isEmpty else { continue }  // a cleared retained topic
            seenPatterns.insert(topic.pattern)
            if topic.isOurs, message.qos != topic.qos {
                wrong.insert("\(topic.pattern): delivered at QoS \(message.qos), documented \(topic.qos) (\(message.topic))")
            }
            let parsed = try? JSONParser.parse(message.payload)
            var isContainer = false
            if case .object? = parsed { isContainer = true }
            if case .array? = parsed { isContainer = true }
            guard topic.isJSON else {
                if isContainer { wrong.insert("\(topic.pattern): documented as text, got JSON: \(message.text.prefix(120))") }
                continue
            }
            guard let parsed, isContainer else {
                wrong.insert("\(topic.pattern): documented as JSON, got: \(message.text.prefix(120))")
                continue
            }
            guard let section = contract.section(of: topic.pattern) else {
                wrong.insert("\(topic.pattern): a JSON topic with no field table (a ### heading naming it, then | field | …)")
                continue
            }
            for path in MQTTContract.fieldPaths(parsed) {
                if let field = section.field(matching: path) {
                    fieldsSeen[section.heading, default: []].insert(field)
                } else {
                    undocumentedFields["\(topic.pattern): `\(path)`"] = message.text
                }
            }
        }
        for (form, example) in undocumentedTopics.sorted(by: { $0.key < $1.key }) {
            problems.append("published but not in docs/MQTT.md: \(form), e.g. \(example)")
        }
        for (field, example) in undocumentedFields.sorted(by: { $0.key < $1.key }) {
            problems.append("field published but not in docs/MQTT.md: \(field), e.g. \(example.prefix(300))")
        }
        for topic in contract.topics where topic.isOurs && !seenPatterns.contains(topic.pattern) {
            problems.append("in docs/MQTT.md but never published: \(topic.pattern)")
        }
        for section in contract.sections where section.patterns.contains(where: { pattern in
            contract.topics.contains { $0.pattern == pattern && $0.isOurs }
        }) {
            for field in section.fields where !(fieldsSeen[section.heading] ?? []).contains(field) {
                problems.append("field in docs/MQTT.md but never published: \(section.heading.dropFirst(4)): `\(field)`")
            }
        }
        // Retained: what a new subscriber finds, for every topic whose last message was not a clear.
        for (name, message) in last.sorted(by: { $0.key < $1.key }) where !message.payload.isEmpty {
            guard let topic = contract.topic(matching: name) else { continue }
            if retained.contains(name) != topic.retained {
                wrong.insert("\(topic.pattern): documented \(topic.retained ? "retained" : "not retained"), but \(name) is \(retained.contains(name) ? "" : "not ")retained")
            }
        }
        return problems + wrong.sorted()
    }
}

/// Set once, read from any thread.
final class Flag: Sendable {
    private let state = Mutex(false)
    var isSet: Bool { state.withLock { $0 } }
    func set() { state.withLock { $0 = true } }
}
