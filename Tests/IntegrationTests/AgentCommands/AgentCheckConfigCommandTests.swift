import Foundation
import TestSupport
import Testing

/// `presence-agent check-config` as an operator runs it before deploying a node: the real binary,
/// a real file, a real environment variable and real flags.
@Suite struct AgentCheckConfigCommandTests {
    private func file(_ text: String) throws -> String {
        let path = try TestBroker.makeTemporaryDirectory() + "/agent.yaml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `env` sets the variables for the binary alone, as a unit file's `Environment=` does.
    private func checkConfig(_ arguments: [String], environment: [String] = []) throws -> ToolRunner.Result {
        let binary = try BuildProducts.executable(named: "presence-agent")
        return try ToolRunner.run("/usr/bin/env", ["-i"] + environment + [binary, "check-config"] + arguments, separateErrors: true)
    }

    @Test func eachSettingSaysWhereItCameFrom() throws {
        let path = try file("""
            node: kitchen-1
            room: kitchen
            broker:
              url: mqtt://10.0.0.2
              username: kitchen-1
              password: s3cret-word
            reportUnknown: yes        # YAML 1.1's word for true
            tracking:
              heartbeat: 45
            """)
        let result = try checkConfig(
            ["--config", path, "--source", "simulate", "--max-tracked-beacons", "500"], environment: ["PRESENCE_ROOM=hall"])
        #expect(result.status == 0)
        #expect(result.errors == "")
        let rows = CheckConfigTable.rows(result.output)
        #expect(rows["node"] == ["kitchen-1", "\(path):1"])
        #expect(rows["room"] == ["hall", "PRESENCE_ROOM"])
        #expect(rows["source"] == ["simulate", "--source"])
        #expect(rows["maxTrackedBeacons"] == ["500", "--max-tracked-beacons"])
        #expect(rows["broker.url"] == ["mqtt://10.0.0.2", "\(path):4"])
        #expect(rows["broker.password"] == ["(set)", "\(path):6"])
        #expect(rows["reportUnknown"] == ["true", "\(path):7"])
        #expect(rows["tracking.heartbeat"] == ["45", "\(path):9"])
        #expect(rows["telemetryInterval"] == ["30", "default"])
        #expect(!result.output.contains("s3cret-word"))
    }

    @Test func everyMistakeIsNamedWithItsLine() throws {
        let path = try file("""
            node: Kitchen 1
            room: kitchen
            tracking:
              heartbeet: 60
              rssiStep: lots
            """)
        let result = try checkConfig(["--config", path])
        #expect(result.status == 2)
        #expect(result.output == "")
        #expect(result.errors == """
            error: \(path):4: tracking.heartbeet: unknown key (known keys: heartbeat, measuredPower, pathLossExponent, rssiOffset, rssiStep)
            error: \(path):5: tracking.rssiStep: expected a number, got 'lots'
            error: \(path):1: node: 'Kitchen 1' must be 1–64 characters of a-z, 0-9, '_' and '-'

            """)
    }

    /// What `check-config` accepts `run` accepts, and what it refuses `run` refuses, in the same words.
    @Test func runReadsTheSameWay() throws {
        let path = try file("node: a\nroom: b\nspeed: fast\n")
        let binary = try BuildProducts.executable(named: "presence-agent")
        let check = try checkConfig(["--config", path])
        let run = try ToolRunner.run(binary, ["run", "--config", path], separateErrors: true)
        #expect(check.status == 2 && run.status == 2)
        #expect(check.errors == "error: \(path):3: speed: expected a number, got 'fast'\n")
        #expect(run.errors == check.errors)
    }
}
