import Foundation
import Testing
import TestSupport

/// Both programs reach a broker on the same host through its Unix-domain socket
/// (`--broker unix:///path`), as an operator sets them up beside the site's mosquitto.
@Suite struct UnixSocketTests {
    static let beacon = "ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20594-62207"

    /// The agent replays the horizon capture into the socket in real time (at full speed it would
    /// end, and go offline, before the aggregator places the beacon); the aggregator, on the socket too,
    /// places the beacon in the agent's room; a subscriber over TCP sees both, and the broker's
    /// log shows that both programs came in through the socket.
    @Test func agentAndAggregatorTalkThroughTheBrokersUnixSocket() async throws {
        let broker = try await TestBroker.start(TestBroker.Configuration(unixSocket: true))
        defer { broker.kill() }
        let url = "unix://" + broker.socketPath
        let recorder = try await TopicRecorder.start(broker, filter: "presence/#")
        let programs = try SpawnedPrograms()
        try programs.start(
            "aggregator", try BuildProducts.executable(named: "presence-aggregator"),
            ["run", "--broker", url, "--client-id", "unix-aggregator", "--no-discovery", "--log-level", "warning"])
        try await recorder.wait(forTopic: "presence/aggregator/status") { $0.text == "online" }
        // The agent measures the beacons of its regions (AgentServiceTests' region).
        try broker.mosquittoPub(
            topic: "presence/config/regions", message: #"{"revision":7,"regions":[{"id":"office","uuid":"494e5445-4c4c-495f-524f-434b535f4857"}]}"#,
            qos: 1, retain: true)
        try programs.start(
            "agent", try BuildProducts.executable(named: "presence-agent"),
            ["run", "--node", "test", "--room", "lab", "--broker", url,
             "--state-dir", NSTemporaryDirectory() + "agent-state-\(UUID().uuidString)",
             "--source", "btsnoop:" + (try RecordedData.path(RecordedData.horizonCapture)), "--speed", "1"])

        try await recorder.wait(forTopic: "presence/nodes/test/status") { $0.text == "online" }
        let measurement = try await recorder.wait(forTopic: "presence/beacons/\(Self.beacon)/test")
        #expect(measurement.text.hasPrefix(#"{"id":"\#(Self.beacon)","beacon":"\#(Self.beacon)","node":"test","room":"lab","#))
        _ = try await recorder.wait(forTopic: "presence/locations/\(Self.beacon)") { $0.text.contains(#""room":"lab""#) }

        let log = broker.log()
        #expect(log.contains("New client connected from \(broker.socketPath):0 as unix-aggregator"), "\(log)")
        #expect(log.contains("New client connected from \(broker.socketPath):0 as presence-agent-test"), "\(log)")
        // No TCP option is set on the socket (libmosquitto would warn "Unable to set TCP_NODELAY").
        #expect(!programs.log(of: "aggregator").contains("TCP_NODELAY"), "\(programs.log(of: "aggregator"))")
        programs.signal("aggregator", SIGTERM)
        try await recorder.wait(forTopic: "presence/aggregator/status") { $0.text == "offline" }
        #expect(try await programs.waitForExit("aggregator") == 0)
        await recorder.stop()
    }

    /// A socket path that is not absolute is named, with the form to write.
    @Test func aRelativeSocketPathIsNamed() throws {
        let agent = try ToolRunner.run(
            try BuildProducts.executable(named: "presence-agent"),
            ["run", "--node", "a", "--room", "b", "--broker", "unix://run/mosquitto/mosquitto.sock"], separateErrors: true)
        #expect(agent.status == 2)
        #expect(agent.errors == "error: broker.url (--broker): 'unix://run/mosquitto/mosquitto.sock' has a bad socket path: the socket's path must be absolute, such as unix:///run/mosquitto/mosquitto.sock (three slashes)\n")
        let aggregator = try ToolRunner.run(
            try BuildProducts.executable(named: "presence-aggregator"), ["run", "--broker", "unix:///run/mosquitto/"],
            separateErrors: true)
        #expect(aggregator.status == 2)
        #expect(aggregator.errors == "run: --broker: 'unix:///run/mosquitto/' has a bad socket path: the path names a directory, not a socket\n")
    }
}
