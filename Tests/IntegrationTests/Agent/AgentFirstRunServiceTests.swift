import BeaconCore
import Foundation
import Testing
import TestSupport

/// A new node as `presence-agent run` runs it, with nothing configured, on a serial controller (a
/// fake one on a pseudo-terminal sending a Govee sensor's real iBeacon report) and a real mosquitto:
/// it says at start that it measures nothing yet, and its telemetry counts the beacon it hears and
/// does not measure. (The hint 30 s in runs on the wall clock here: MeasuringHintTests checks it on
/// an injected clock, .ci/package-check with the installed package.)
@Suite struct AgentFirstRunServiceTests {
    static let report = HexDigits.bytes("043e2702010400ab6fbf38c1a41b1aff4c000215494e54454c4c495f524f434b535f48575072f2ffc2cf")!

    @Test func aNewNodeSaysSoAndCountsTheBeaconItDoesNotMeasure() async throws {
        let broker = try await TestBroker.start()
        defer { broker.kill() }
        let recorder = try await TopicRecorder.start(broker, filter: "presence/#")
        let directory = NSTemporaryDirectory() + "first-run-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var behaviour = FakeController.Behaviour()
        behaviour.reportsAfterScanEnable = [Self.report]
        behaviour.reportInterval = 0.2
        let controller = try FakeController(behaviour: behaviour)
        defer { controller.unplug() }
        try "telemetryInterval: 1\n".write(toFile: directory + "/agent.yaml", atomically: true, encoding: .utf8)
        let programs = SpawnedPrograms(directory: directory)
        try programs.start(
            "agent", try BuildProducts.executable(named: "presence-agent"),
            ["run", "--config", directory + "/agent.yaml", "--node", "test", "--room", "lab",
             "--source", "uart:" + controller.pty.devicePath, "--broker", "mqtt://127.0.0.1:\(broker.port)",
             "--state-dir", directory + "/state"])

        let telemetry = try await recorder.wait(forTopic: "presence/nodes/test/telemetry", timeout: .seconds(20)) {
            $0.text.contains(#""unmatchedBeacons":1"#)
        }
        #expect(telemetry.text.contains(#""beacons":0"#))
        // Heard, not measured: no measurement of it.
        #expect(!recorder.messages.contains { $0.topic.hasPrefix("presence/beacons/") })
        #expect(try await programs.terminate("agent") == 0)
        let log = programs.log(of: "agent")
        #expect(log.contains("no regions and no known beacons yet: this node measures nothing until presence/config/beacons"), "\(log)")
    }
}
