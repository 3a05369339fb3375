import Foundation
import MQTTClient
import Testing
import TestSupport

/// Both programs as a site runs them: the shipped mosquitto.conf with its TLS listener, the shipped
/// password file accounts and ACL (only paths and ports changed), `presence-agent run` logged in as
/// its node over TLS and `presence-aggregator run` as `aggregator` over TLS.
@Suite("Deployment: security end to end", .serialized)
struct DeploymentSecurityTests {
    static let uuid = "494e5445-4c4c-495f-524f-434b535f4857"
    static let beacon = "ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20594-62207"
    static func regions(revision: Int) -> String {
        #"{"revision":\#(revision),"regions":[{"id":"office","uuid":"\#(uuid)"}]}"#
    }

    struct Site {
        let broker: ShippedConfigBroker
        let tlsPort: Int
        let caFile: String
        let directory: String
        /// The site's programs, logging into `directory`.
        let programs: SpawnedPrograms
        var brokerURL: String { "mqtts://127.0.0.1:\(tlsPort)" }

        static func start() async throws -> Site {
            let broker = try await ShippedConfigBroker.start(enableTLS: true)
            let directory = try TestBroker.makeTemporaryDirectory()
            return Site(
                broker: broker, tlsPort: try #require(broker.tlsPort), caFile: try #require(broker.certificates).caFile,
                directory: directory, programs: SpawnedPrograms(directory: directory))
        }

        /// A file holding `password` (mode 0600), as `--password-file` reads it.
        func passwordFile(_ name: String, _ password: String) throws -> String {
            let path = directory + "/" + name
            try (password + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o600)
            return path
        }

        func client(_ user: String, version: MQTTProtocolVersion = .v311) async throws -> MQTTConnection {
            var options = MQTTConnectionOptions(
                host: "127.0.0.1", port: tlsPort, clientID: "\(user)-\(UInt32.random(in: 0...UInt32.max))",
                protocolVersion: version,
                credentials: MQTTCredentials(username: user, password: SiteAccounts.passwords[user]),
                tls: MQTTTLSConfiguration(caFile: caFile))
            options.reconnect = MQTTReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(500))
            let connection = try MQTTConnection(options: options, logger: testLogger)
            try await connection.connect(timeout: .seconds(10))
            return connection
        }

        func recorder() async throws -> TopicRecorder {
            try await TopicRecorder.start(
                host: "127.0.0.1", port: broker.plainPort,
                credentials: MQTTCredentials(username: SiteAccounts.observer, password: SiteAccounts.passwords[SiteAccounts.observer]),
                filter: "presence/#")
        }

        /// The agent replays the capture at its recorded pace: the aggregator decides on the wall
        /// clock, and at full speed the beacons' silence (5 s after their last advertisement, in
        /// the capture's time) would reach it milliseconds after their measurements. Returns its
        /// name among `programs`.
        func agent(node: String, room: String, username: String, passwordFile: String) throws -> String {
            let capture = try RecordedData.path(RecordedData.horizonCapture)
            try programs.start("agent-\(node)", try BuildProducts.executable(named: "presence-agent"), [
                "run", "--node", node, "--room", room, "--broker", brokerURL, "--username", username,
                "--password-file", passwordFile, "--ca-file", caFile, "--source", "btsnoop:" + capture, "--speed", "1",
                "--state-dir", directory + "/state-\(node)-\(UUID().uuidString)", "--wait-for-config", "5",
            ])
            return "agent-\(node)"
        }
    }

    /// The system works end to end over TLS with the site's accounts (agent measurement → aggregator
    /// location); a node's account cannot write the configuration (MQTT 5: the broker answers 0x87
    /// not authorized; MQTT 3.1.1: acknowledged and dropped) and the agent never sees it; a
    /// configuration message over the 1 MiB limit is answered with an error and changes nothing;
    /// neither password (from a file for the agent, from PRESENCE_PASSWORD for the aggregator)
    /// appears in either program's output, even at the aggregator's trace log level.
    @Test func aSiteOverTLSWithAccountsAndTheACL() async throws {
        let site = try await Site.start()
        let programs = site.programs
        let recorder = try await site.recorder()
        let operatorClient = try await site.client("operator")
        try await publishAcknowledged(operatorClient, "presence/config/regions", Self.regions(revision: 7), retain: true)

        let aggregatorPassword = try #require(SiteAccounts.passwords["aggregator"])
        try programs.start(
            "aggregator", try BuildProducts.executable(named: "presence-aggregator"),
            ["run", "--broker", site.brokerURL, "--username", "aggregator", "--ca-file", site.caFile, "--log-level", "trace"],
            environment: ["PRESENCE_PASSWORD": aggregatorPassword])
        try await recorder.wait(forTopic: "presence/aggregator/status") { $0.text == "online" }

        let nodePassword = try #require(SiteAccounts.passwords["kitchen-1"])
        let agent = try site.agent(
            node: "kitchen-1", room: "kitchen", username: "kitchen-1",
            passwordFile: try site.passwordFile("kitchen-1.password", nodePassword))
        try await recorder.wait(forTopic: "presence/nodes/kitchen-1/config/status") {
            $0.text.hasPrefix(#"{"status":"ok","topic":"presence/config/regions","revision":7,"#)
        }
        try await recorder.wait(forTopic: "presence/nodes/kitchen-1/regions/office/event") { $0.text.contains(#""event":"enter""#) }
        try await recorder.wait(forTopic: "presence/beacons/\(Self.beacon)/kitchen-1")
        // The aggregator's decision, from the agent's measurements.
        try await recorder.wait(forTopic: "presence/locations/\(Self.beacon)/room", timeout: .seconds(20)) { $0.text == "kitchen" }

        // The node's own account writes a configuration message: MQTT 5 gets the broker's refusal…
        let node5 = try await site.client("kitchen-1", version: .v5)
        let refusal = await #expect(throws: MQTTError.self) {
            try await node5.publish(topic: "presence/config/regions", string: Self.regions(revision: 99), qos: .atLeastOnce, retain: true)
                .acknowledged()
        }
        #expect(refusal?.code == .publishRejected(reasonCode: 0x87))
        // …MQTT 3.1.1 an acknowledgement, and the message is dropped all the same.
        let node311 = try await site.client("kitchen-1")
        try await publishAcknowledged(node311, "presence/config/regions", Self.regions(revision: 98), retain: true)
        try await publishAcknowledged(node311, "presence/nodes/kitchen-1/config", #"{"revision":98,"room":"hall"}"#, retain: true)
        // The operator's next message is the marker: answered, and nothing of the node's came before it.
        try await publishAcknowledged(operatorClient, "presence/config/regions", Self.regions(revision: 8), retain: true)
        try await recorder.wait(forTopic: "presence/nodes/kitchen-1/config/status") { $0.text.contains(#""revision":8,"#) }
        let answers = recorder.texts("presence/nodes/kitchen-1/config/status")
        #expect(!answers.contains { $0.contains(#""revision":99"#) || $0.contains(#""revision":98"#) }, "\(answers)")
        #expect(!recorder.messages.contains { $0.text.contains(#""revision":9"#) && $0.topic.hasPrefix("presence/config") })

        // Over the size limit: an error naming the limit; the regions stay.
        let huge = #"{"revision":9,"regions":[],"pad":""# + String(repeating: "x", count: 1_100_000) + #""}"#
        try await publishAcknowledged(operatorClient, "presence/config/regions", huge, retain: true)
        let tooBig = try await recorder.wait(forTopic: "presence/nodes/kitchen-1/config/status") { $0.text.contains("limit") }
        #expect(tooBig.text == #"{"status":"error","topic":"presence/config/regions","error":"payload: payload is \#(huge.utf8.count) bytes; the limit is 1048576 bytes","keptRevision":8}"#)
        #expect(programs.isRunning(agent) && programs.isRunning("aggregator"))

        #expect(try await programs.terminate(agent) == 0)
        #expect(try await programs.terminate("aggregator") == 0)
        try await recorder.wait(forTopic: "presence/aggregator/status") { $0.text == "offline" }
        for (program, log) in [("agent", programs.log(of: agent)), ("aggregator", programs.log(of: "aggregator"))] {
            #expect(!log.isEmpty, "\(program) logged nothing")
            #expect(!log.contains(nodePassword), "\(program) logged the node's password:\n\(log)")
            #expect(!log.contains(aggregatorPassword), "\(program) logged the aggregator's password")
        }
        await node5.disconnect()
        await node311.disconnect()
        await operatorClient.disconnect()
        await recorder.stop()
    }

    /// An agent whose account is not its node id (here: node `hall-1`, account `kitchen-1`): the
    /// broker refuses each of its publications (MQTT 5 reason 0x87), the agent logs the refusal with
    /// the topic, once a minute at most, and runs on; nothing of it reaches a subscriber. A wrong password is refused at
    /// connect, logged, and not printed.
    @Test func anAgentWithAnotherNodesAccountIsRefusedAndLogsIt() async throws {
        let site = try await Site.start()
        let programs = site.programs
        let recorder = try await site.recorder()
        let operatorClient = try await site.client("operator")
        try await publishAcknowledged(operatorClient, "presence/config/regions", Self.regions(revision: 7), retain: true)

        let nodePassword = try #require(SiteAccounts.passwords["kitchen-1"])
        let agent = try site.agent(
            node: "hall-1", room: "hall", username: "kitchen-1",
            passwordFile: try site.passwordFile("kitchen-1.password", nodePassword))
        _ = try await within("the agent to log a refused publication", timeout: .seconds(15)) {
            while !programs.log(of: agent).contains("the broker refused a publication") {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(programs.log(of: agent).contains("topic=presence/nodes/hall-1/"), "\(programs.log(of: agent))")
        #expect(programs.log(of: agent).contains("reasonCode=135"), "\(programs.log(of: agent))")
        #expect(programs.isRunning(agent))
        // Everything it wrote was dropped: the rightful writer's marker arrives, nothing of hall-1 before it.
        let hall = try await site.client("hall-1")
        try await publishAcknowledged(hall, "presence/nodes/hall-1/status", "marker", retain: false)
        try await recorder.wait(forTopic: "presence/nodes/hall-1/status") { $0.text == "marker" }
        #expect(recorder.messages.filter { $0.topic.contains("hall-1") && $0.text != "marker" }.isEmpty)
        // Its status, info and region states were all refused, yet one line says so (the next may
        // come a minute later, with the count): a refused account does not flood the log.
        #expect(programs.log(of: agent).components(separatedBy: "the broker refused a publication").count - 1 == 1,
                "\(programs.log(of: agent))")
        #expect(programs.log(of: agent).contains("refused=1"), "\(programs.log(of: agent))")
        #expect(try await programs.terminate(agent) == 0)
        #expect(!programs.log(of: agent).contains(nodePassword))

        // A wrong password: refused and logged, without the password.
        let wrong = "wrong-secret-4711"
        let refused = try site.agent(
            node: "kitchen-1", room: "kitchen", username: "kitchen-1", passwordFile: try site.passwordFile("wrong.password", wrong))
        _ = try await within("the agent to log the refused login", timeout: .seconds(15)) {
            while !programs.log(of: refused).contains("broker refused the connection: Not authorized") {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(programs.isRunning(refused))
        #expect(try await programs.terminate(refused) == 0)
        #expect(!programs.log(of: refused).contains(wrong), "\(programs.log(of: refused))")
        await hall.disconnect()
        await operatorClient.disconnect()
        await recorder.stop()
    }
}
