import BeaconCore
import Evaluation
import Foundation
import Testing
import TestSupport

/// `presence-agent calibrate` as an installer runs it: the built binary on a capture or the
/// simulator, what it prints, what it stores, and the agent reading that beacon at 1 m as 1 m after.
@Suite struct CalibrateCommandTests {
    static let govee = "ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20594-62207"

    func calibrate(_ arguments: [String]) throws -> ToolRunner.Result {
        try ToolRunner.run(try BuildProducts.executable(named: "presence-agent"), ["calibrate"] + arguments, separateErrors: true)
    }

    func temporaryDirectory(_ name: String) throws -> String {
        let path = NSTemporaryDirectory() + "\(name)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A minute of record 134 of the horizon capture (the Govee iBeacon stating −62 dBm at 1 m),
    /// twice a second, read 3 dB weaker than it states: −65, −64, −65, −66 dBm in turn.
    static func heldAtOneMetre(in directory: String) throws -> String {
        var event = HexDigits.bytes("3e2702010400ab6fbf38c1a41b1aff4c000215494e54454c4c495f524f434b535f48575072f2ffc2cf")!
        let writer = BtsnoopWriter(datalink: .hciUART)
        var bytes = writer.header
        for k in 0..<120 {
            event[event.count - 1] = UInt8(bitPattern: Int8([-65, -64, -65, -66][k % 4]))
            writer.append(HCIPacket(type: .event, bytes: event[...]), direction: .received,
                          timestamp: Instant(seconds: 1_767_225_600 + Double(k) / 2), to: &bytes)
        }
        let path = directory + "/held.btsnoop"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aBeaconHeldAtOneMetreGivesTheOffsetAndTheAgentUsesIt() async throws {
        let work = try temporaryDirectory("calibrate")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let capture = try Self.heldAtOneMetre(in: work)
        let result = try calibrate(["--source", "btsnoop:" + capture, "--state-dir", work + "/state", "--beacon", Self.govee])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.errors == "")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "Hold the beacon 1 m from this node's Bluetooth adapter, in line of sight, and keep it still for 30 s.")
        #expect(lines.contains("Calibrating with \(Self.govee) (states -62 dBm at 1 m; the beacon named). Collecting for 30 s."))
        #expect(lines.contains("1 m level:     -65 dBm (mean of 60 readings over 30 s, ±0.09 dB)"))
        #expect(lines.contains("1 m power:     -62 dBm (the 1 m power it states)"))
        #expect(lines.contains("rssiOffset:    -3 dB (this node hears 3 dB weaker than the beacon's reference)"))
        #expect(lines.last == "Stored in \(work)/state/install-calibration.json: the agent applies it at its next start.")
        let stored = try String(contentsOfFile: work + "/state/install-calibration.json", encoding: .utf8)
        #expect(stored.hasPrefix(#"{"rssiOffset":-3,"beacon":"\#(Self.govee)","rssi":-65,"measuredPower":-62,"#))
        #expect(stored.contains(#""calibratedAt":"2026-01-01T00:00:30.000Z""#))

        // The agent started on the same state directory measures that beacon at 1 m as 1 m
        // (uncalibrated, n 1.5 would put it at 10^(3/15) = 1.58 m).
        let broker = try await TestBroker.start()
        defer { broker.kill() }
        let recorder = try await TopicRecorder.start(broker, filter: "presence/#")
        let agent = try AgentProcess.start(broker, capture: capture, stateDir: work + "/state", extra: ["--exit-at-end", "--report-unknown"])
        #expect(try await agent.exitStatus() == 0, "\(agent.output)")
        #expect(agent.output.contains("rssiOffset -3 dB from install-calibration.json (presence-agent calibrate with \(Self.govee), 2026-01-01T00:00:30.000Z)"))
        try await recorder.wait(forTopic: "presence/nodes/test/status") { $0.text == "offline" }
        let measurements = recorder.texts("presence/beacons/\(Self.govee)/test").compactMap { text in
            (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["distance"] as? Double
        }
        #expect(!measurements.isEmpty)
        // Within a dB of 1 m (n 1.5: 0.86…1.17 m); uncalibrated every one would be 1.36 m or more.
        #expect(measurements.allSatisfy { $0 >= 0.85 && $0 <= 1.17 }, "\(measurements)")
        #expect(abs((measurements.first ?? 0) - 1) <= 0.01, "the first reading, -65 dBm: \(measurements)")
        await recorder.stop()
    }

    /// The loudest beacon of the simulator, a node 1.41 m away from it (n 2: 3 dB under its 1 m power).
    @Test func theSimulatorsBeaconIsChosenAsTheLoudest() throws {
        let work = try temporaryDirectory("calibrate-sim")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let scenario = #"""
            {"rooms":[{"id":"bench","x":0,"y":0,"width":0.04,"height":0.04}],
             "nodes":[{"id":"kitchen-1","room":"bench","x":1.4325,"y":0.02}],
             "people":[{"name":"held","uuid":"fda50693-a4e2-4fb1-afcf-c6eb07647825","major":7,"minor":1,"measuredPower":-59,"address":"c4:a1:b2:c3:d4:07"}],
             "seed":7,"pathLossExponent":2.0,"noiseSigma":2.0,"wallLoss":0,"advertisingInterval":0.5,"sensitivity":-98,
             "dwellMin":20,"dwellMax":60,"walkingSpeed":1.2}
            """#
        try scenario.write(toFile: work + "/scenario.json", atomically: true, encoding: .utf8)
        let result = try calibrate(["--source", "simulate:\(work)/scenario.json", "--speed", "0", "--state-dir", work + "/state"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("Calibrating with ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-7-1 (states -59 dBm at 1 m; the loudest heard"))
        let stored = try Data(contentsOf: URL(fileURLWithPath: work + "/state/install-calibration.json"))
        let offset = try #require((try JSONSerialization.jsonObject(with: stored) as? [String: Any])?["rssiOffset"] as? Double)
        #expect(abs(offset + 3) <= 0.5)
    }

    /// The real capture hears its Govee beacon five times in half a minute: refused, nothing stored.
    @Test func tooFewReadingsInTheRealCaptureAreRefused() throws {
        let work = try temporaryDirectory("calibrate-short")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let result = try calibrate(["--source", "btsnoop:" + (try RecordedData.path(RecordedData.horizonCapture)), "--state-dir", work])
        #expect(result.status == 1)
        #expect(result.errors == "calibrate: refused: too short: 5 readings, 20 needed: keep the beacon near and on, "
                + "or give a longer --duration; nothing stored\n")
        #expect(!FileManager.default.fileExists(atPath: work + "/install-calibration.json"))
    }

    @Test func badFlagsAreNamed() throws {
        let result = try calibrate(["--source", "simulate", "--state-dir", NSTemporaryDirectory(), "--beacon", "nope", "--duration", "2"])
        #expect(result.status == 2)
        #expect(result.errors.contains("error: --duration: 2.0 is not in 5…3600 seconds"))
        #expect(result.errors.contains("error: --beacon: 'nope': unknown beacon id kind"))
    }
}
