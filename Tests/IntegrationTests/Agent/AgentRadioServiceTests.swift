import BeaconCore
import Foundation
import Testing
import TestSupport

/// `presence-agent run` on a serial controller (a fake one on a pseudo-terminal, real HCI bytes)
/// and a real mosquitto: what a node's owner sees when the broker or the radio goes away.
@Suite struct AgentRadioServiceTests {
    static let report = HexDigits.bytes("043e2702010400ab6fbf38c1a41b1aff4c000215494e54454c4c495f524f434b535f48575072f2ffc2cf")!
    static let beacon = "ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20594-62207"

    @Test func theFirstMeasurementIsNotLostToAnUnreachableBrokerAndARadioOutageIsSaid() async throws {
        // The recorder's session keeps QoS 0 measurements while it is away, so it misses nothing
        // the agent publishes the moment it connects.
        let broker = try await TestBroker.start(TestBroker.Configuration(persistence: true, extraLines: ["queue_qos0_messages true"]))
        defer { broker.kill() }
        let recorder = try await TopicRecorder.start(broker, filter: "presence/#", clientID: "radio-recorder", persistentSession: true)
        broker.terminate()

        let directory = NSTemporaryDirectory() + "radio-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stable = directory + "/ttyDONGLE"
        var behaviour = FakeController.Behaviour()
        behaviour.reportsAfterScanEnable = [Self.report]
        behaviour.reportInterval = 0.2
        let first = try FakeController(behaviour: behaviour)
        try FileManager.default.createSymbolicLink(atPath: stable, withDestinationPath: first.pty.devicePath)
        try "telemetryInterval: 1\n".write(toFile: directory + "/agent.yaml", atomically: true, encoding: .utf8)
        let programs = SpawnedPrograms(directory: directory)
        try programs.start(
            "agent", try BuildProducts.executable(named: "presence-agent"),
            ["run", "--config", directory + "/agent.yaml", "--node", "test", "--room", "lab", "--source", "uart:" + stable,
             "--report-unknown", "--broker", "mqtt://127.0.0.1:\(broker.port)", "--state-dir", directory + "/state"])

        // The agent hears the beacon (its first measurement goes nowhere) before the broker is back.
        _ = try await within("the agent to scan") {
            while !first.commandNames.contains("HCI_LE_Set_Extended_Scan_Enable") { try await Task.sleep(for: .milliseconds(50)) }
        }
        try await Task.sleep(for: .seconds(1))  // five reports at 0.2 s: heard, measured, not published
        try await broker.restart()
        // Without the re-publication on connect, this beacon (steady RSSI) would wait for the 60 s heartbeat.
        let measurement = try await recorder.wait(forTopic: "presence/beacons/\(Self.beacon)/test", timeout: .seconds(20))
        #expect(measurement.text.contains(#""rssi":-49"#))
        let telemetry = try await recorder.wait(forTopic: "presence/nodes/test/telemetry")
        #expect(telemetry.text.contains(#""radio":"scanning","radioSince":"#))
        #expect(telemetry.text.contains(#""radioReopens":0"#))

        // The dongle is unplugged: said in the log and in telemetry, then plugged back.
        first.unplug()
        do {
            try await recorder.wait(forTopic: "presence/nodes/test/telemetry") { $0.text.contains(#""radio":"retrying""#) }
        } catch {
            Issue.record("\(recorder.texts("presence/nodes/test/telemetry").last ?? "")\n\(programs.log(of: "agent"))")
            throw error
        }
        let retrying = recorder.messages.last { $0.topic == "presence/nodes/test/telemetry" && $0.text.contains("retrying") }
        #expect(retrying?.text.contains(#""radioError":"read "#) == true)
        let second = try FakeController(behaviour: behaviour)
        defer { second.unplug() }
        try FileManager.default.removeItem(atPath: stable)
        try FileManager.default.createSymbolicLink(atPath: stable, withDestinationPath: second.pty.devicePath)
        try await recorder.wait(forTopic: "presence/nodes/test/telemetry", timeout: .seconds(40)) {
            $0.text.contains(#""radio":"scanning""#) && $0.text.contains(#""radioReopens":1"#)
        }
        #expect(try await programs.terminate("agent") == 0)
        let text = programs.log(of: "agent")
        #expect(text.contains("the controller stopped scanning: read "), "\(text)")
        #expect(text.contains("the controller is set up again and scans (extended)"))
        #expect(text.contains("hearing advertisements again"))
        await recorder.stop()
    }
}
