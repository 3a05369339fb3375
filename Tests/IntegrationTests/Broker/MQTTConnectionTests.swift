import TestSupport
import Foundation
import MQTTClient
import Testing

/// Every test starts its own mosquitto on its own port, so they run in parallel safely.
@Suite("MQTT connection against a real mosquitto")
struct MQTTConnectionTests {
    @Test(
        "a message round-trips at each QoS and protocol version",
        arguments: MQTTQoS.allCases, [MQTTProtocolVersion.v311, .v5])
    func roundTrip(qos: MQTTQoS, version: MQTTProtocolVersion) async throws {
        let broker = try await TestBroker.start()
        let connection = try await connectedClient(to: broker, "round-trip", version: version)
        let subscription = try await connection.subscribe("test/round-trip/#", qos: qos)

        let publication = try connection.publish(topic: "test/round-trip/a", string: "hello at \(qos)", qos: qos)
        try await within("acknowledgement") { try await publication.acknowledged() }
        #expect(publication.isAcknowledged)

        let messages = try await collect(subscription, count: 1)
        #expect(messages == [MQTTMessage(topic: "test/round-trip/a", payload: Array("hello at \(qos)".utf8), qos: qos)])
        await connection.disconnect()
        #expect(connection.state == .stopped)
    }

    @Test("a retained message reaches a subscriber that comes later; a plain one does not")
    func retainedForLateSubscriber() async throws {
        let broker = try await TestBroker.start()
        let publisher = try await connectedClient(to: broker, "publisher")
        try await publisher.publish(topic: "test/state/plain", string: "gone", qos: .atLeastOnce).acknowledged()
        try await publisher.publish(topic: "test/state/kept", string: "kept", qos: .atLeastOnce, retain: true)
            .acknowledged()

        let late = try await connectedClient(to: broker, "late")
        let subscription = try await late.subscribe("test/state/+")
        let messages = try await collect(subscription, count: 1)
        #expect(messages.map(\.topic) == ["test/state/kept"])
        #expect(messages.first?.retain == true)
        #expect(messages.first.map(text) == "kept")

        // The plain message is not delivered later either: a marker published now comes next.
        try await publisher.publish(topic: "test/state/marker", string: "marker", qos: .atLeastOnce).acknowledged()
        let next = try await collect(subscription, count: 1)
        #expect(next.map(text) == ["marker"])
        #expect(next.first?.retain == false)
        await publisher.disconnect()
        await late.disconnect()
    }

    @Test("the last will is published when the client process is killed")
    func lastWillOnKill() async throws {
        let broker = try await TestBroker.start()
        let observer = try await connectedClient(to: broker, "observer")
        let status = try await observer.subscribe("test/will/status", qos: .atLeastOnce)
        let ready = try await observer.subscribe("test/will/ready", qos: .atLeastOnce)

        let client = Process()
        client.executableURL = URL(fileURLWithPath: try BuildProducts.executable(named: "mqtt-test-client"))
        client.arguments = ["\(broker.port)", "will-client", "test/will/status", "test/will/ready"]
        client.standardOutput = FileHandle.nullDevice
        try client.run()
        defer {
            if client.isRunning { kill(client.processIdentifier, SIGKILL) }
        }

        let readyMessages = try await collect(ready, count: 1)
        #expect(readyMessages.map(text) == ["ready"])
        kill(client.processIdentifier, SIGKILL)
        client.waitUntilExit()
        #expect(client.terminationReason == .uncaughtSignal)

        let will = try await collect(status, count: 1)
        #expect(will.map(text) == ["offline"])
        #expect(will.first?.qos == .atLeastOnce)

        // It was registered retained: a newcomer learns the client is offline.
        let newcomer = try await connectedClient(to: broker, "newcomer")
        let retained = try await collect(try await newcomer.subscribe("test/will/status"), count: 1)
        #expect(retained.map(text) == ["offline"])
        #expect(retained.first?.retain == true)
        await observer.disconnect()
        await newcomer.disconnect()
    }

    @Test("a clean disconnect flushes what is queued and sends no will")
    func cleanDisconnectSendsNoWill() async throws {
        let broker = try await TestBroker.start()
        let observer = try await connectedClient(to: broker, "observer")
        let status = try await observer.subscribe("test/clean/status", qos: .atLeastOnce)

        let client = try await connectedClient(to: broker, "clean-client") { options in
            options.lastWill = MQTTLastWill(topic: "test/clean/status", string: "offline")
        }
        // Not awaited: disconnect() must flush these before it says goodbye.
        for index in 0..<50 {
            try client.publish(topic: "test/clean/status", string: "online \(index)", qos: .atLeastOnce)
        }
        await client.disconnect()
        #expect(client.statistics.pendingMessages == 0)

        // The same client id connects again; had the broker sent the will, it would have done so
        // before accepting this connection, so it would arrive before the sentinel.
        let again = try await connectedClient(to: broker, "clean-client")
        try await again.publish(topic: "test/clean/status", string: "sentinel", qos: .atLeastOnce).acknowledged()

        let messages = try await collect(status, until: { text($0) == "sentinel" })
        #expect(messages.map(text) == (0..<50).map { "online \($0)" } + ["sentinel"])
        await again.disconnect()
        await observer.disconnect()
    }

    @Test("after the broker restarts, subscriptions are restored and QoS 1 messages from the outage arrive")
    func reconnectAfterBrokerRestart() async throws {
        let broker = try await TestBroker.start()
        let connection = try await connectedClient(to: broker, "survivor")
        let subscription = try await connection.subscribe("test/outage/#", qos: .atLeastOnce)
        let events = connection.events()

        broker.kill()
        _ = try await waitForEvent(events, "connection lost") {
            if case .connectionLost = $0 { true } else { false }
        }
        #expect(connection.state != .connected)

        // Published while no broker is there: queued, acknowledged after the reconnect.
        let count = 20
        var publications: [MQTTPublishReceipt] = []
        for index in 0..<count {
            publications.append(try connection.publish(topic: "test/outage/queued", string: "\(index)", qos: .atLeastOnce))
        }
        #expect(connection.statistics.pendingMessages == count)
        #expect(throws: MQTTError.self) { try connection.publish(topic: "test/outage/qos0", string: "lost") }

        try await broker.restart()
        let reconnected = try await waitForEvent(events, "reconnect") {
            if case .connected = $0 { true } else { false }
        }
        #expect(reconnected == .connected(sessionPresent: false, isReconnect: true))
        #expect(connection.statistics.reconnects == 1)
        for publication in publications {
            try await within("acknowledgement after reconnect") { try await publication.acknowledged() }
        }

        // A message from another client proves the broker has our subscription again.
        try broker.mosquittoPub(topic: "test/outage/after", message: "after", qos: 1)
        let messages = try await collect(subscription, until: { $0.topic == "test/outage/after" })
        let queued = messages.filter { $0.topic == "test/outage/queued" }.compactMap(\.payloadString)
        // None lost; QoS 1 allows duplicates, so compare the distinct payloads in first-seen order.
        var seen = Set<String>()
        let distinct = queued.filter { seen.insert($0).inserted }
        #expect(distinct == (0..<count).map(String.init))
        await connection.disconnect()
    }

    /// MQTT 5 needs the session expiry interval: without it the broker ends the session with the
    /// connection (the next test).
    @Test("a persistent session keeps QoS 1 messages for a client that was away", arguments: [MQTTProtocolVersion.v311, .v5])
    func persistentSession(version: MQTTProtocolVersion) async throws {
        let broker = try await TestBroker.start()
        func sleeper(_ options: inout MQTTConnectionOptions) {
            options.cleanSession = false
            options.sessionExpirySeconds = 600
        }
        let first = try await connectedClient(to: broker, "sleeper", version: version, configure: sleeper)
        _ = try await first.subscribe("test/session/#", qos: .atLeastOnce)
        await first.disconnect()

        let publisher = try await connectedClient(to: broker, "publisher")
        for index in 0..<3 {
            try await publisher.publish(topic: "test/session/news", string: "\(index)", qos: .atLeastOnce).acknowledged()
        }
        // An empty message (how an operator clears a retained configuration) is kept as well.
        try await publisher.publish(topic: "test/session/config", payload: [], qos: .atLeastOnce, retain: true).acknowledged()

        // Subscribing before connecting gives the messages the broker kept somewhere to go.
        var options = MQTTConnectionOptions(port: broker.port, clientID: "sleeper", protocolVersion: version)
        sleeper(&options)
        let second = try MQTTConnection(options: options, logger: testLogger)
        let events = second.events()
        let subscription = try await second.subscribe("test/session/#", qos: .atLeastOnce)
        try await second.connect(timeout: .seconds(10))
        let connected = try await waitForEvent(events, "connected") {
            if case .connected = $0 { true } else { false }
        }
        #expect(connected == .connected(sessionPresent: true, isReconnect: false))
        let kept = try await collect(subscription, count: 4)
        #expect(kept.map(\.topic) == ["test/session/news", "test/session/news", "test/session/news", "test/session/config"])
        #expect(kept.prefix(3).map(text) == ["0", "1", "2"])
        #expect(kept.last?.payload == [])
        await second.disconnect()
        await publisher.disconnect()
    }

    @Test("MQTT 5 without a session expiry interval: the session ends with the connection")
    func persistentSessionWithoutExpiry() async throws {
        let broker = try await TestBroker.start()
        let first = try await connectedClient(to: broker, "brief", version: .v5) { $0.cleanSession = false }
        _ = try await first.subscribe("test/session/#", qos: .atLeastOnce)
        await first.disconnect()

        let second = try MQTTConnection(
            options: MQTTConnectionOptions(port: broker.port, clientID: "brief", cleanSession: false, protocolVersion: .v5),
            logger: testLogger)
        let events = second.events()
        try await second.connect(timeout: .seconds(10))
        let connected = try await waitForEvent(events, "connected") {
            if case .connected = $0 { true } else { false }
        }
        #expect(connected == .connected(sessionPresent: false, isReconnect: false))
        await second.disconnect()
    }

    @Test("QoS 1 messages beyond the pending limit are dropped and counted; the rest arrive later")
    func boundedQueueWhileDisconnected() async throws {
        let port = try TestBroker.freeLoopbackPort()
        var options = MQTTConnectionOptions(port: port, clientID: "bounded", maxPendingMessages: 5)
        options.reconnect = MQTTReconnectPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(100))
        let connection = try MQTTConnection(options: options, logger: testLogger)
        try connection.start()  // no broker yet: it keeps trying

        var accepted: [MQTTPublishReceipt] = []
        var refused: [MQTTError] = []
        for index in 0..<8 {
            do {
                accepted.append(
                    try connection.publish(topic: "test/queue/\(index)", string: "\(index)", qos: .atLeastOnce, retain: true))
            } catch {
                refused.append(error)
            }
        }
        #expect(accepted.count == 5)
        #expect(refused.map(\.code) == Array(repeating: .queueFull(limit: 5), count: 3))
        #expect(connection.statistics.droppedMessages == 3)
        #expect(connection.statistics.pendingMessages == 5)

        let broker = try await TestBroker.start(port: port)
        for publication in accepted {
            try await within("queued message acknowledged") { try await publication.acknowledged() }
        }
        #expect(connection.statistics.pendingMessages == 0)
        let observer = try await connectedClient(to: broker, "observer")
        let retained = try await collect(try await observer.subscribe("test/queue/#"), count: 5)
        #expect(Set(retained.map(\.topic)) == Set((0..<5).map { "test/queue/\($0)" }))
        #expect(retained.allSatisfy { $0.retain })
        // The command-line client sees the same retained state.
        let seenByCommandLine = try broker.mosquittoSub(topic: "test/queue/#", count: 5)
        #expect(Set(seenByCommandLine) == Set((0..<5).map(String.init)))
        await connection.disconnect()
        await observer.disconnect()
    }

    @Test("wrong credentials give a clear authentication error", arguments: [MQTTProtocolVersion.v311, .v5])
    func authenticationFailure(version: MQTTProtocolVersion) async throws {
        let broker = try await TestBroker.start(TestBroker.Configuration(users: ["alice": "s3cret"]))

        let wrong = try MQTTConnection(
            options: MQTTConnectionOptions(
                port: broker.port, clientID: "intruder", protocolVersion: version,
                credentials: MQTTCredentials(username: "alice", password: "guess")),
            logger: testLogger)
        let error = try await #require(throws: MQTTError.self) { try await wrong.connect(timeout: .seconds(10)) }
        #expect(error.isAuthenticationFailure)
        #expect(error.message.lowercased().contains("not authori") || error.message.lowercased().contains("password"))
        #expect(wrong.state == .stopped)

        let anonymous = try MQTTConnection(
            options: MQTTConnectionOptions(port: broker.port, clientID: "anonymous", protocolVersion: version),
            logger: testLogger)
        let anonymousError = try await #require(throws: MQTTError.self) {
            try await anonymous.connect(timeout: .seconds(10))
        }
        #expect(anonymousError.isAuthenticationFailure)

        let alice = try await connectedClient(to: broker, "alice", version: version) { options in
            options.credentials = MQTTCredentials(username: "alice", password: "s3cret")
        }
        #expect(alice.state == .connected)
        await alice.disconnect()
    }

    @Test("without a broker, connect(timeout:) gives up naming the last failure and keeps nothing running")
    func connectTimeout() async throws {
        let port = try TestBroker.freeLoopbackPort()
        var options = MQTTConnectionOptions(port: port, clientID: "lonely")
        options.reconnect = MQTTReconnectPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(50))
        let connection = try MQTTConnection(options: options, logger: testLogger)
        let error = try await #require(throws: MQTTError.self) { try await connection.connect(timeout: .milliseconds(300)) }
        #expect(error.code == .timedOut)
        #expect(error.message.contains("Connection refused"), "\(error)")
        #expect(connection.state != .connected)
        await connection.disconnect()
        #expect(connection.state == .stopped)
    }

    @Test("TLS with a generated CA, server certificate and client certificate")
    func tls() async throws {
        let directory = try TestBroker.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certificates = try TestCertificates.generate(in: directory)
        let broker = try await TestBroker.start(
            TestBroker.Configuration(tls: TestBroker.TLSFiles(certificates, requireClientCertificate: true)))

        let connection = try await connectedClient(to: broker, "tls-client") { options in
            options.tls = MQTTTLSConfiguration(
                caFile: certificates.caFile, certificateFile: certificates.clientCertificateFile,
                keyFile: certificates.clientKeyFile)
        }
        let subscription = try await connection.subscribe("test/tls", qos: .exactlyOnce)
        try await connection.publish(topic: "test/tls", string: "secret", qos: .exactlyOnce).acknowledged()
        #expect(try await collect(subscription, count: 1).map(text) == ["secret"])
        await connection.disconnect()

        // Without a client certificate the broker does not let us in.
        let refused = try MQTTConnection(
            options: MQTTConnectionOptions(
                port: broker.port, clientID: "no-cert", tls: MQTTTLSConfiguration(caFile: certificates.caFile),
                reconnect: MQTTReconnectPolicy(initialDelay: .milliseconds(100), maximumDelay: .milliseconds(200))),
            logger: testLogger)
        let events = refused.events()
        try refused.start()
        let failed = try await waitForEvent(events, "a failed TLS attempt") {
            if case .connectFailed = $0 { true } else { false }
        }
        guard case .connectFailed(let error, _) = failed else { return }
        // OpenSSL's reason travels with the error: "… tlsv13 alert certificate required".
        #expect(error.message.contains("certificate required"), "\(error)")
        #expect(refused.state != .connected)
        await refused.disconnect()
        #expect(refused.state == .stopped)
    }

    @Test("10,000 messages through one subscription arrive complete and in order")
    func tenThousandInOrder() async throws {
        let broker = try await TestBroker.start()
        let subscriber = try await connectedClient(to: broker, "subscriber")
        let subscription = try await subscriber.subscribe("test/bulk", qos: .atMostOnce)
        let publisher = try await connectedClient(to: broker, "publisher") { $0.maxPendingMessages = 10_000 }

        let count = 10_000
        var last: MQTTPublishReceipt?
        for index in 0..<count {
            last = try publisher.publish(topic: "test/bulk", string: "\(index)", qos: .atLeastOnce)
        }
        let messages = try await collect(subscription, count: count, timeout: .seconds(30))
        #expect(messages.count == count)
        #expect(messages.compactMap(\.payloadString) == (0..<count).map(String.init))
        let lastPublication = last
        try await within("last acknowledgement") { try await lastPublication?.acknowledged() }
        #expect(publisher.statistics.pendingMessages == 0)
        await publisher.disconnect()
        await subscriber.disconnect()
    }

    @Test("a payload that is not UTF-8 arrives byte for byte", arguments: [MQTTProtocolVersion.v311, .v5])
    func binaryPayload(version: MQTTProtocolVersion) async throws {
        let broker = try await TestBroker.start()
        let connection = try await connectedClient(to: broker, "binary", version: version)
        let subscription = try await connection.subscribe("test/binary")
        let payload: [UInt8] = [0xFF, 0xFE, 0x00, 0xC3, 0x28, 0x80, 0xED, 0xA0, 0x80] + Array(0...255)
        try await connection.publish(topic: "test/binary", payload: payload, qos: .atLeastOnce).acknowledged()
        try await connection.publish(topic: "test/binary", payload: [], qos: .atLeastOnce).acknowledged()
        let messages = try await collect(subscription, count: 2)
        #expect(messages.map(\.payload) == [payload, []])
        #expect(messages.first?.payloadString == nil)
        #expect(messages.last?.payloadString == "")
        await connection.disconnect()
    }

    @Test("overlapping subscriptions each get what their filter matches; unsubscribe ends one")
    func routing() async throws {
        let broker = try await TestBroker.start()
        let connection = try await connectedClient(to: broker, "router")
        let single = try await connection.subscribe("test/route/+/state")
        let all = try await connection.subscribe("test/route/#")

        for topic in ["test/route/a/state", "test/route/a/event", "test/route/b/state"] {
            try await connection.publish(topic: topic, string: topic, qos: .atLeastOnce).acknowledged()
        }
        #expect(try await collect(single, count: 2).map(\.topic) == ["test/route/a/state", "test/route/b/state"])
        #expect(
            try await collect(all, count: 3).map(\.topic) == [
                "test/route/a/state", "test/route/a/event", "test/route/b/state",
            ])

        try await connection.unsubscribe(single)
        var ended = true
        for await _ in single { ended = false }
        #expect(ended)
        try await connection.publish(topic: "test/route/c/state", string: "c", qos: .atLeastOnce).acknowledged()
        #expect(try await collect(all, count: 1).map(\.topic) == ["test/route/c/state"])
        await connection.disconnect()
    }
}
