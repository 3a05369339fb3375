import Foundation
import MQTTClient
import Testing
import TestSupport

/// The shipped etc/mosquitto/bridge.conf between two real mosquitto processes on loopback: a
/// building's broker bridged over TLS, with a password, to a central broker; the central broker
/// stopped and started again on the same port while the building keeps publishing.
@Suite("Deployment: bridged sites", .serialized)
struct DeploymentBridgeTests {
    static let bridgePassword = "bridge-secret"
    static let observerPassword = "observer-secret"

    /// The shipped bridge lines with only the address, password and CA file replaced; every
    /// replacement must find its line, and nothing else may point outside the test's directory.
    static func bridgeLines(centralPort: Int, caFile: String) throws -> [String] {
        var file = try ShippedFileLines("etc/mosquitto/bridge.conf")
        try file.replace("address central.example.org:8883", with: "address 127.0.0.1:\(centralPort)")
        try file.replace("remote_password CHANGE-ME", with: "remote_password \(bridgePassword)")
        try file.replace("bridge_cafile /etc/mosquitto/certs/central-ca.crt", with: "bridge_cafile \(caFile)")
        return try file.rewritten()
    }

    /// A client of the central broker (TLS, a password); `persistent`: a session the central broker
    /// keeps (and saves) while the client is away.
    static func centralClient(_ central: TestBroker, caFile: String, clientID: String, persistent: Bool = false) async throws -> MQTTConnection {
        var options = MQTTConnectionOptions(
            host: central.host, port: central.port, clientID: clientID, cleanSession: !persistent,
            credentials: MQTTCredentials(username: "central-observer", password: observerPassword),
            tls: MQTTTLSConfiguration(caFile: caFile))
        options.reconnect = MQTTReconnectPolicy(initialDelay: .milliseconds(100), maximumDelay: .milliseconds(500))
        let connection = try MQTTConnection(options: options, logger: testLogger)
        try await connection.connect(timeout: .seconds(10))
        return connection
    }

    /// Issue 8's done-when for bridged sites: measurements' and events' direction is up, the
    /// configuration's down; while the central broker is down the building's clients go on
    /// publishing; 50 QoS 1 messages published meanwhile reach the central broker once each, in
    /// order, after it is back; nothing is echoed back over the bridge.
    @Test("a QoS 1 message published while the central link is down arrives once, in order")
    func linkOutageLosesNothing() async throws {
        let directory = try TestBroker.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certificates = try TestCertificates.generate(in: directory)
        // Persistence: the central observer's session (and what is queued for it) survives the
        // central broker's restart, so what it receives afterwards is what the bridge delivered.
        let central = try await TestBroker.start(.init(
            users: ["bridge-hq": Self.bridgePassword, "central-observer": Self.observerPassword],
            tls: .init(certificates, requireClientCertificate: false), persistence: true))
        let building = try await TestBroker.start(.init(
            extraLines: try Self.bridgeLines(centralPort: central.port, caFile: certificates.caFile)))

        let centralObserver = try await Self.centralClient(central, caFile: certificates.caFile, clientID: "central-observer", persistent: true)
        let up = try await centralObserver.subscribe("presence/#")
        let linkState = try await centralObserver.subscribe("$SYS/broker/connection/bridge-hq/state")
        // The bridge says `1` (retained) once it is connected.
        _ = try await collect(linkState, until: { text($0) == "1" }, timeout: .seconds(30))

        let localObserver = try await connectedClient(to: building, "building-observer")
        let local = try await localObserver.subscribe("presence/#")
        let node = try await connectedClient(to: building, "kitchen-1")

        // Down: configuration written centrally, retained, reaches the building once.
        let operatorClient = try await Self.centralClient(central, caFile: certificates.caFile, clientID: "operator")
        try await publishAcknowledged(operatorClient, "presence/config/regions", #"{"revision":1,"regions":[]}"#, retain: true)
        let configured = try await collect(local, until: { $0.topic == "presence/config/regions" }, timeout: .seconds(10))
        #expect(configured.last.map(text) == #"{"revision":1,"regions":[]}"#)
        // Up: a node's status reaches the central broker.
        try await publishAcknowledged(node, "presence/nodes/kitchen-1/status", "online", retain: true)
        let arrived = try await collect(up, until: { $0.topic == "presence/nodes/kitchen-1/status" }, timeout: .seconds(10))
        #expect(arrived.map(\.topic) == ["presence/config/regions", "presence/nodes/kitchen-1/status"])
        #expect(try await collect(local, until: { $0.topic == "presence/nodes/kitchen-1/status" }).map(\.topic) == ["presence/nodes/kitchen-1/status"])

        // The link goes down: the central broker stops (cleanly, saving its sessions).
        central.terminate()
        let count = 50
        let topic = "presence/nodes/kitchen-1/regions/office/event"
        for index in 0..<count {
            // Acknowledged by the building's broker: the node notices nothing.
            try await publishAcknowledged(node, topic, "event-\(index)")
        }
        let meanwhile = try await collect(local, count: count)
        #expect(meanwhile.map(text) == (0..<count).map { "event-\($0)" })

        // Back up on the same port: the bridge reconnects (backoff from 2 s) and delivers.
        try await central.restart()
        let delivered = try await collect(up, until: { $0.topic == topic && text($0) == "event-\(count - 1)" }, timeout: .seconds(60))
        let events = delivered.filter { $0.topic == topic }.map(text)
        #expect(events == (0..<count).map { "event-\($0)" }, "lost, repeated or reordered across the outage")

        // After the outage: configuration still flows down, once, and nothing came back up twice.
        let operatorAgain = try await Self.centralClient(central, caFile: certificates.caFile, clientID: "operator-2")
        try await publishAcknowledged(operatorAgain, "presence/config/regions", #"{"revision":2,"regions":[]}"#, retain: true)
        let configuredAgain = try await collect(local, until: { text($0) == #"{"revision":2,"regions":[]}"# }, timeout: .seconds(10))
        // Before it, at most the retained revision 1 again: the reconnected bridge subscribed anew.
        #expect(configuredAgain.filter { $0.topic == "presence/config/regions" }.map(text).dropLast().allSatisfy { $0 == #"{"revision":1,"regions":[]}"# })
        #expect(configuredAgain.filter { text($0) == #"{"revision":2,"regions":[]}"# }.count == 1)
        // A marker up proves the central observer would have seen any echo of the config by now.
        try await publishAcknowledged(node, "presence/nodes/kitchen-1/status", "marker", retain: true)
        let tail = try await collect(up, until: { text($0) == "marker" }, timeout: .seconds(10))
        #expect(tail.filter { $0.topic == "presence/config/regions" }.count == 1, "\(tail.map { "\($0.topic) \(text($0))" })")
        #expect(!tail.contains { $0.topic == topic })

        for client in [centralObserver, localObserver, node, operatorClient, operatorAgain] { await client.disconnect() }
        central.kill()
        building.kill()
    }
}
