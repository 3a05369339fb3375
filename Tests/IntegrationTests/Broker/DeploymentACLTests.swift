import Foundation
import MQTTClient
import Testing
import TestSupport

/// The shipped etc/mosquitto/acl on a real mosquitto, checked against docs/MQTT.md's Security section
/// with real clients logged in as the site's accounts: what each account may write arrives, what
/// it may not write never reaches a subscriber, and each account reads what it needs.
@Suite("Deployment: broker ACL")
struct DeploymentACLTests {
    static let beacon = "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-5-6"

    @Test("a node publishes everything the agent publishes, and reads the site's config and only its own node config")
    func nodeWritesItsOwnTopics() async throws {
        let site = try await SiteBroker.start()
        let (observer, everything) = try await site.observeEverything()
        let kitchen = try await site.client(
            "kitchen-1", lastWill: MQTTLastWill(topic: "presence/nodes/kitchen-1/status", string: "offline"))
        let kitchenReads = try await kitchen.subscribe("#")

        // What the agent publishes (docs/MQTT.md, "Agent"), QoS and retain as there.
        let own: [(topic: String, qos: MQTTQoS, retain: Bool)] = [
            ("presence/nodes/kitchen-1/status", .atLeastOnce, true),
            ("presence/nodes/kitchen-1/info", .atLeastOnce, true),
            ("presence/nodes/kitchen-1/telemetry", .atMostOnce, false),
            ("presence/beacons/\(Self.beacon)/kitchen-1", .atMostOnce, false),
            ("presence/nodes/kitchen-1/regions/office/state", .atLeastOnce, true),
            ("presence/nodes/kitchen-1/regions/office/event", .atLeastOnce, false),
            ("presence/nodes/kitchen-1/regions/office/ranging", .atMostOnce, false),
            ("presence/nodes/kitchen-1/config/status", .atLeastOnce, true),
        ]
        for (index, publication) in own.enumerated() {
            try kitchen.publish(topic: publication.topic, string: "own-\(index)", qos: publication.qos, retain: publication.retain)
        }
        let delivered = try await collect(everything, count: own.count)
        #expect(delivered.map(\.topic) == own.map(\.topic))
        #expect(delivered.map(text) == own.indices.map { "own-\($0)" })

        // Configuration from the operator, and what the other node publishes.
        let operatorClient = try await site.client("operator")
        let hall = try await site.client("hall-1")
        try await publishAcknowledged(operatorClient, "presence/config/regions", #"{"revision":1,"regions":[]}"#, retain: true)
        try await publishAcknowledged(operatorClient, "presence/config/beacons", #"{"revision":1,"beacons":[]}"#, retain: true)
        try await publishAcknowledged(operatorClient, "presence/nodes/hall-1/config", #"{"revision":1,"room":"hall"}"#, retain: true)
        try await publishAcknowledged(hall, "presence/nodes/hall-1/status", "online", retain: true)
        try await publishAcknowledged(hall, "presence/beacons/\(Self.beacon)/hall-1", "{}")
        try await publishAcknowledged(
            operatorClient, "presence/nodes/kitchen-1/config", #"{"revision":1,"room":"kitchen"}"#, retain: true)

        // kitchen-1 subscribed to everything but is sent only its own node's topics (not its
        // measurements), the site's config and its own node config, in the order published.
        let read = try await collect(kitchenReads) { $0.topic == "presence/nodes/kitchen-1/config" }
        #expect(
            read.map(\.topic)
                == own.map(\.topic).filter { $0.hasPrefix("presence/nodes/kitchen-1/") }
                + ["presence/config/regions", "presence/config/beacons", "presence/nodes/kitchen-1/config"])

        await kitchen.disconnect()
        await hall.disconnect()
        await operatorClient.disconnect()
        await observer.disconnect()
    }

    @Test("a node cannot write another node's topics, any configuration (its own node config included) or the aggregator's topics")
    func nodeCannotWriteOthers() async throws {
        let site = try await SiteBroker.start()
        let (observer, everything) = try await site.observeEverything()
        try await site.expectRefused(
            [
                RefusedWrite("kitchen-1", "presence/nodes/hall-1/status", rightfulWriter: "hall-1"),
                RefusedWrite("kitchen-1", "presence/nodes/hall-1/regions/office/state", rightfulWriter: "hall-1"),
                RefusedWrite("kitchen-1", "presence/nodes/hall-1/config/status", rightfulWriter: "hall-1"),
                RefusedWrite("kitchen-1", "presence/beacons/x/hall-1", rightfulWriter: "hall-1"),
                RefusedWrite("kitchen-1", "presence/beacons/\(Self.beacon)/hall-1", rightfulWriter: "hall-1"),
                RefusedWrite("kitchen-1", "presence/config/regions", rightfulWriter: "operator"),
                RefusedWrite("kitchen-1", "presence/config/beacons", rightfulWriter: "operator"),
                RefusedWrite("kitchen-1", "presence/nodes/kitchen-1/config", rightfulWriter: "operator"),
                RefusedWrite("kitchen-1", "presence/nodes/hall-1/config", rightfulWriter: "operator"),
                RefusedWrite("kitchen-1", "presence/locations/alice-keys", rightfulWriter: "aggregator"),
                RefusedWrite("kitchen-1", "presence/rooms/kitchen", rightfulWriter: "aggregator"),
                RefusedWrite("kitchen-1", "presence/events", rightfulWriter: "aggregator"),
                RefusedWrite("kitchen-1", "presence/aggregator/status", rightfulWriter: "aggregator"),
                // A node does not calibrate itself, nor another.
                RefusedWrite("kitchen-1", "presence/nodes/kitchen-1/calibration", rightfulWriter: "aggregator"),
                RefusedWrite("kitchen-1", "presence/calibration", rightfulWriter: "aggregator"),
                RefusedWrite("kitchen-1", "homeassistant/device_tracker/alice-keys/config", rightfulWriter: "aggregator"),
                RefusedWrite("kitchen-1", "homeassistant/status", rightfulWriter: "homeassistant"),
                // Not an agent topic, though below its own node.
                RefusedWrite("kitchen-1", "presence/nodes/kitchen-1/other", thenMarker: "kitchen-1", on: "presence/nodes/kitchen-1/status"),
                RefusedWrite("kitchen-1", "elsewhere/topic", thenMarker: "kitchen-1", on: "presence/nodes/kitchen-1/status"),
            ],
            observer: everything)
        await observer.disconnect()
    }

    @Test("a node's last will reaches subscribers on its own status, not on another node's")
    func lastWill() async throws {
        let site = try await SiteBroker.start()
        let (observer, everything) = try await site.observeEverything()
        let operatorClient = try await site.client("operator")
        try await publishAcknowledged(operatorClient, "presence/config/regions", "regions", retain: true)

        // mosquitto accepts a CONNECT whose will names a topic the account may not write, and
        // checks the ACL when the will is due: it must then be dropped.
        let spoofing = try WillHoldingClient.start(
            site.broker, user: "kitchen-1", willTopic: "presence/nodes/hall-1/status", willPayload: "spoofed-will")
        try spoofing.waitUntilConnected()
        spoofing.kill()
        let genuine = try WillHoldingClient.start(
            site.broker, user: "kitchen-1", willTopic: "presence/nodes/kitchen-1/status", willPayload: "offline")
        try genuine.waitUntilConnected()
        genuine.kill()

        // The broker handled the first connection's end before it answered the second CONNECT
        // (its event loop reads ready sockets in turn), so the spoofed will would come first.
        let seen = try await collect(everything) { $0.topic == "presence/nodes/kitchen-1/status" }
        #expect(seen.map(text) == ["regions", "offline"])
        await operatorClient.disconnect()
        await observer.disconnect()
    }

    @Test("only the operator writes configuration; it cannot write node or aggregator topics")
    func operatorWritesConfiguration() async throws {
        let site = try await SiteBroker.start()
        let (observer, everything) = try await site.observeEverything()
        let operatorClient = try await site.client("operator")
        let configTopics = [
            "presence/config/regions", "presence/config/beacons", "presence/nodes/kitchen-1/config",
            "presence/nodes/hall-1/config",
        ]
        for topic in configTopics { try await publishAcknowledged(operatorClient, topic, "config", retain: true) }
        // An empty retained message clears a configuration (docs/MQTT.md): allowed too.
        try await publishAcknowledged(operatorClient, "presence/config/beacons", "", retain: true)
        let delivered = try await collect(everything, count: configTopics.count + 1)
        #expect(delivered.map(\.topic) == configTopics + ["presence/config/beacons"])

        // The node's answer reaches the operator.
        let answers = try await operatorClient.subscribe("presence/nodes/+/config/status")
        let kitchen = try await site.client("kitchen-1")
        try await publishAcknowledged(kitchen, "presence/nodes/kitchen-1/config/status", #"{"status":"ok"}"#, retain: true)
        #expect(try await collect(answers, count: 1).map(text) == [#"{"status":"ok"}"#])
        await kitchen.disconnect()

        let marker = "presence/config/regions"
        try await site.expectRefused(
            [
                RefusedWrite("operator", "presence/nodes/kitchen-1/status", rightfulWriter: "kitchen-1"),
                RefusedWrite("operator", "presence/nodes/kitchen-1/config/status", rightfulWriter: "kitchen-1"),
                RefusedWrite("operator", "presence/beacons/x/kitchen-1", rightfulWriter: "kitchen-1"),
                RefusedWrite("operator", "presence/locations/alice-keys", rightfulWriter: "aggregator"),
                // The node patterns apply to every account: the deny lines keep `operator` from
                // acting as a node called "operator".
                RefusedWrite("operator", "presence/nodes/operator/status", thenMarker: "operator", on: marker),
                RefusedWrite("operator", "presence/beacons/x/operator", thenMarker: "operator", on: marker),
                RefusedWrite("aggregator", "presence/config/regions", rightfulWriter: "operator"),
                RefusedWrite("aggregator", "presence/nodes/kitchen-1/config", rightfulWriter: "operator"),
                RefusedWrite("homeassistant", "presence/config/beacons", rightfulWriter: "operator"),
                RefusedWrite("viewer", "presence/config/regions", rightfulWriter: "operator"),
            ],
            observer: everything)
        await operatorClient.disconnect()
        await observer.disconnect()
    }

    @Test("the aggregator reads what nodes publish and writes locations, rooms, events, its status and discovery")
    func aggregatorWritesItsTopics() async throws {
        let site = try await SiteBroker.start()
        let (observer, everything) = try await site.observeEverything()
        let aggregator = try await site.client(
            "aggregator", lastWill: MQTTLastWill(topic: "presence/aggregator/status", string: "offline"))
        let measurements = try await aggregator.subscribe("presence/beacons/+/+")
        let homeAssistantStatus = try await aggregator.subscribe("homeassistant/status")

        let kitchen = try await site.client("kitchen-1")
        try await publishAcknowledged(kitchen, "presence/beacons/\(Self.beacon)/kitchen-1", #"{"rssi":-71}"#)
        #expect(try await collect(measurements, count: 1).map(\.topic) == ["presence/beacons/\(Self.beacon)/kitchen-1"])
        let homeAssistant = try await site.client("homeassistant")
        try await publishAcknowledged(homeAssistant, "homeassistant/status", "online")
        #expect(try await collect(homeAssistantStatus, count: 1).map(text) == ["online"])

        let topics = [
            "presence/aggregator/status", "presence/locations/alice-keys", "presence/locations/alice-keys/room",
            "presence/rooms/kitchen", "presence/events", "presence/calibration", "presence/nodes/kitchen-1/calibration",
            "homeassistant/device_tracker/alice-keys/config", "homeassistant/sensor/alice-keys_room/config",
        ]
        let unretained = ["presence/events"]
        for topic in topics { try await publishAcknowledged(aggregator, topic, "decision", retain: !unretained.contains(topic)) }
        let delivered = try await collect(everything) { $0.topic == topics.last }
        #expect(delivered.filter { text($0) == "decision" }.map(\.topic) == topics)

        // At start it restores its decisions from its own retained topics.
        let restarted = try await site.client("aggregator")
        let restored = try await collect(try await restarted.subscribe("presence/locations/+/room"), count: 1)
        #expect(restored.map(\.topic) == ["presence/locations/alice-keys/room"])
        #expect(restored.first?.retain == true)

        try await site.expectRefused(
            [
                RefusedWrite("aggregator", "presence/nodes/kitchen-1/status", rightfulWriter: "kitchen-1"),
                RefusedWrite("aggregator", "presence/beacons/x/kitchen-1", rightfulWriter: "kitchen-1"),
                RefusedWrite("aggregator", "presence/config/beacons", rightfulWriter: "operator"),
                RefusedWrite("aggregator", "presence/nodes/aggregator/status", thenMarker: "aggregator", on: "presence/events"),
                RefusedWrite("aggregator", "presence/beacons/x/aggregator", thenMarker: "aggregator", on: "presence/events"),
            ],
            observer: everything)
        for client in [aggregator, restarted, kitchen, homeAssistant, observer] { await client.disconnect() }
    }

    @Test("viewer reads everything and writes nothing; Home Assistant writes only its birth message")
    func readOnlyAccounts() async throws {
        let site = try await SiteBroker.start()
        let (observer, everything) = try await site.observeEverything()
        let viewer = try await site.client("viewer")
        let viewerReads = try await viewer.subscribe("#")
        let aggregator = try await site.client("aggregator")
        let kitchen = try await site.client("kitchen-1")
        try await publishAcknowledged(kitchen, "presence/nodes/kitchen-1/status", "online", retain: true)
        try await publishAcknowledged(kitchen, "presence/beacons/\(Self.beacon)/kitchen-1", "{}")
        try await publishAcknowledged(aggregator, "presence/locations/alice-keys", "{}", retain: true)
        try await publishAcknowledged(aggregator, "homeassistant/device_tracker/alice-keys/config", "{}", retain: true)
        #expect(
            try await collect(viewerReads, count: 4).map(\.topic) == [
                "presence/nodes/kitchen-1/status", "presence/beacons/\(Self.beacon)/kitchen-1",
                "presence/locations/alice-keys", "homeassistant/device_tracker/alice-keys/config",
            ])
        _ = try await collect(everything, count: 4)

        let marker = "presence/nodes/kitchen-1/status"
        try await site.expectRefused(
            [
                RefusedWrite("viewer", "presence/nodes/kitchen-1/status", rightfulWriter: "kitchen-1"),
                RefusedWrite("viewer", "presence/beacons/x/kitchen-1", rightfulWriter: "kitchen-1"),
                RefusedWrite("viewer", "presence/config/regions", rightfulWriter: "operator"),
                RefusedWrite("viewer", "presence/nodes/kitchen-1/config", rightfulWriter: "operator"),
                RefusedWrite("viewer", "presence/locations/alice-keys", rightfulWriter: "aggregator"),
                RefusedWrite("viewer", "presence/events", rightfulWriter: "aggregator"),
                RefusedWrite("viewer", "homeassistant/device_tracker/alice-keys/config", rightfulWriter: "aggregator"),
                RefusedWrite("viewer", "homeassistant/status", rightfulWriter: "homeassistant"),
                RefusedWrite("viewer", "presence/nodes/viewer/status", thenMarker: "kitchen-1", on: marker),
                RefusedWrite("viewer", "presence/beacons/x/viewer", thenMarker: "kitchen-1", on: marker),
                RefusedWrite("viewer", "viewer/anything", thenMarker: "kitchen-1", on: marker),
                RefusedWrite("homeassistant", "presence/locations/alice-keys", rightfulWriter: "aggregator"),
                RefusedWrite("homeassistant", "homeassistant/device_tracker/alice-keys/config", rightfulWriter: "aggregator"),
                RefusedWrite("homeassistant", "presence/nodes/kitchen-1/status", rightfulWriter: "kitchen-1"),
                RefusedWrite("homeassistant", "presence/nodes/homeassistant/status", thenMarker: "kitchen-1", on: marker),
            ],
            observer: everything)
        for client in [viewer, aggregator, kitchen, observer] { await client.disconnect() }
    }

    @Test("config/beacons, which holds the keys of phones and watches, reaches the nodes and no viewer account")
    func keysStayFromViewers() async throws {
        let site = try await SiteBroker.start()
        let operatorClient = try await site.client("operator")
        let keys = #"{"revision":1,"beacons":[{"irk":"ec0234a357c8ad05341010a60a397d9b","id":"alice-phone"}]}"#
        try await publishAcknowledged(operatorClient, "presence/config/beacons", keys, retain: true)
        try await publishAcknowledged(operatorClient, "presence/config/regions", #"{"revision":1,"regions":[]}"#, retain: true)
        let kitchen = try await site.client("kitchen-1")
        let kitchenReads = try await kitchen.subscribe("presence/config/#")
        #expect(Set(try await collect(kitchenReads, count: 2).map(\.topic)) == ["presence/config/beacons", "presence/config/regions"])
        let marker = "presence/nodes/kitchen-1/status"
        for account in ["viewer", "homeassistant"] {
            let client = try await site.client(account)
            let reads = try await client.subscribe("#")
            try await publishAcknowledged(kitchen, marker, "online-\(account)", retain: false)
            let read = try await collect(reads) { $0.topic == marker }
            #expect(read.map(\.topic).contains("presence/config/regions"), "\(account)")
            #expect(!read.map(\.topic).contains("presence/config/beacons"), "\(account)")
            try await publishAcknowledged(operatorClient, "presence/config/beacons", keys, retain: true)
            try await publishAcknowledged(kitchen, marker, "again-\(account)", retain: false)
            let later = try await collect(reads) { $0.topic == marker }
            #expect(!later.map(\.topic).contains("presence/config/beacons"), "\(account)")
            await client.disconnect()
        }
        for client in [kitchen, operatorClient] { await client.disconnect() }
    }

    @Test("the aggregator reads the foreign nodes' reports, status and last will, Home Assistant only their status and last will, a viewer nothing of ESPresense")
    func foreignNodes() async throws {
        let site = try await SiteBroker.start()
        var reads: [String: MQTTSubscription] = [:]
        var clients: [MQTTConnection] = []
        for account in ["aggregator", "homeassistant", "viewer"] {
            let client = try await site.client(account)
            reads[account] = try await client.subscribe("#")
            clients.append(client)
        }
        let node = try await site.client(SiteAccounts.espresense)
        let gateway = try await site.client(SiteAccounts.gateway)
        let kitchen = try await site.client("kitchen-1")
        clients += [node, gateway, kitchen]
        // As ESPresense and OpenMQTTGateway publish them; the report's topic names a phone's key.
        let report = "espresense/devices/irk:ec0234a357c8ad05341010a60a397d9b/kitchen"
        try await publishAcknowledged(node, "espresense/rooms/kitchen/status", "online", retain: true)
        try await publishAcknowledged(node, "espresense/rooms/kitchen/known_irks", "ec0234a357c8ad05341010a60a397d9b", retain: true)
        try await publishAcknowledged(node, "espresense/rooms/kitchen/telemetry", #"{"ver":"v4.1.6"}"#)
        try await publishAcknowledged(node, report, #"{"id":"irk:ec0234a357c8ad05341010a60a397d9b","rssi":-62}"#)
        try await publishAcknowledged(gateway, "home/gw-hall/LWT", "online", retain: true)
        try await publishAcknowledged(gateway, "home/gw-hall/BTtoMQTT/C4A1B2C3D4E5", #"{"id":"C4:A1:B2:C3:D4:E5","rssi":-70}"#)
        let marker = "presence/nodes/kitchen-1/status"
        try await publishAcknowledged(kitchen, marker, "online")
        func read(_ account: String) async throws -> [String] {
            try await collect(reads[account]!) { $0.topic == marker }.map(\.topic).filter { $0 != marker }
        }
        #expect(try await read("aggregator") == [
            "espresense/rooms/kitchen/status", "espresense/rooms/kitchen/telemetry", report, "home/gw-hall/LWT",
            "home/gw-hall/BTtoMQTT/C4A1B2C3D4E5",
        ])
        #expect(try await read("homeassistant") == ["espresense/rooms/kitchen/status", "home/gw-hall/LWT"])
        #expect(try await read("viewer").isEmpty)
        for client in clients { await client.disconnect() }
    }

    @Test("unknown users, wrong passwords and anonymous clients are refused")
    func authentication() async throws {
        let site = try await SiteBroker.start()
        for (user, password) in [("kitchen-1", "wrong"), ("stranger", "kitchen-secret")] {
            let error = await #expect(throws: MQTTError.self) {
                _ = try await siteClient(host: site.broker.host, port: site.broker.port, user: user, password: password)
            }
            #expect(error?.isAuthenticationFailure == true, "\(user): \(String(describing: error))")
        }
        let anonymous = try MQTTConnection(
            options: MQTTConnectionOptions(host: site.broker.host, port: site.broker.port, clientID: "anonymous"),
            logger: testLogger)
        let error = await #expect(throws: MQTTError.self) { try await anonymous.connect(timeout: .seconds(10)) }
        #expect(error?.isAuthenticationFailure == true)
    }
}

/// A `mosquitto_sub` logged in as a site account with a last will, to be killed (SIGKILL) so
/// that the broker publishes the will: MQTTConnection always disconnects cleanly.
struct WillHoldingClient {
    let pid: pid_t
    let output: Int32

    /// Subscribes to `presence/config/regions`, which must hold a retained message: its arrival
    /// tells that the client is connected and its will registered.
    static func start(_ broker: TestBroker, user: String, willTopic: String, willPayload: String) throws -> WillHoldingClient {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw TestBrokerError(.setupFailed, "pipe: errno \(errno)") }
        let password = SiteAccounts.passwords[user] ?? ""
        let pid = try ToolRunner.spawn(
            "/usr/bin/mosquitto_sub",
            [
                "-h", broker.host, "-p", "\(broker.port)", "-u", user, "-P", password, "-q", "1",
                "-t", "presence/config/regions", "--will-topic", willTopic, "--will-payload", willPayload,
                "--will-qos", "1", "--will-retain",
            ],
            output: ends[1])
        close(ends[1])
        return WillHoldingClient(pid: pid, output: ends[0])
    }

    /// Waits (at most 10 s, a failure guard) for the first line mosquitto_sub prints.
    func waitUntilConnected() throws {
        var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, 10_000)
        guard ready == 1 else {
            kill()
            throw TestBrokerError(.notReady, "mosquitto_sub printed nothing within 10 s (poll: \(ready))")
        }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(output, &buffer, buffer.count)
        guard count > 0 else {
            kill()
            throw TestBrokerError(.notReady, "mosquitto_sub ended without output")
        }
    }

    func kill() {
        Foundation.kill(pid, SIGKILL)
        _ = try? ToolRunner.waitForExit(pid)
        close(output)
    }
}
