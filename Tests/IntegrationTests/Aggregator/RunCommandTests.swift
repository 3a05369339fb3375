import Foundation
import MQTTClient
import TestSupport
import Testing

/// `presence-aggregator run` as users start it: the built executable, real flags, real signals.
@Suite(.serialized) struct RunCommandTests {
    private func run(_ arguments: [String]) throws -> ToolRunner.Result {
        try ToolRunner.run(try BuildProducts.executable(named: "presence-aggregator"), ["run"] + arguments, separateErrors: true)
    }

    @Test(arguments: [
        (["--broker", "foo"], "run: --broker: 'foo' is not mqtt://host[:port], mqtts://host[:port] or unix:///path/to/socket\n"),
        (["--away-after=-3"], "run: --away-after: '-3' is not a positive number of seconds\n"),
        (["--root", "Presence"], "run: --root: 'Presence' is not a topic root (one or more '/'-separated levels of 1–64 characters of a-z, 0-9, '_' and '-')\n"),
        (["--config", "/nonexistent/aggregator.yaml"], "run: /nonexistent/aggregator.yaml: cannot read the configuration file (No such file or directory)\n"),
        (["--cert-file", "/etc/hostname", "--broker", "mqtts://h"], "run: tls.certificateFile: needs tls.keyFile too (a client certificate and its key go together)\n"),
        (["--failover"], "run: failover.instance: required with failover: this instance's id among the site's aggregators, e.g. agg-a\n"),
        (["--failover", "--instance", "Agg A"], "run: --instance: 'Agg A' is not an instance id (1–64 characters of a-z, 0-9, '_' and '-')\n"),
        (["--keepalive", "3"], "run: --keepalive: '3' is not a whole number of seconds in 5…3600\n"),
        (["--log-level", "loud"], "run: --log-level: 'loud' is not one of trace, debug, info, notice, warning, error, critical\n"),
    ])
    func configurationErrorsExitWithStatus2(arguments: [String], expected: String) throws {
        let result = try run(arguments)
        #expect(result.status == 2)
        #expect(result.errors == expected)
        #expect(result.output.isEmpty)
    }

    /// `replay --config` takes the decision settings of the live configuration file: a long dwell
    /// gives fewer room changes on the same trace.
    @Test func replayUsesTheConfigurationFilesDecision() throws {
        let trace = try RecordedData.path("traces/danis-rectangular_with_rotation.trace.csv")
        let executable = try BuildProducts.executable(named: "presence-aggregator")
        let config = try TestBroker.makeTemporaryDirectory() + "/slow.yaml"
        try "decision:\n  dwell: 20\n".write(toFile: config, atomically: true, encoding: .utf8)
        let standard = try ToolRunner.run(executable, ["replay", "--trace", trace], separateErrors: true)
        let slow = try ToolRunner.run(executable, ["replay", "--trace", trace, "--config", config], separateErrors: true)
        #expect(standard.status == 0 && slow.status == 0)
        let lines = { (result: ToolRunner.Result) in result.output.split(separator: "\n").count }
        #expect(lines(slow) < lines(standard))
        let bad = try ToolRunner.run(executable, ["replay", "--trace", trace, "--config", config + ".missing"], separateErrors: true)
        #expect(bad.status == 2)
        #expect(bad.errors == "replay: \(config).missing: cannot read the configuration file (No such file or directory)\n")
    }

    /// SIGTERM: `offline` is published (not the last will), and the program exits 0.
    @Test func sigtermPublishesOfflineAndExitsCleanly() async throws {
        let broker = try await TestBroker.start()
        let client = try await observer(broker)
        let status = MessageReader(try await client.subscribe("site/aggregator/status"))
        let programs = try SpawnedPrograms()
        try programs.start(
            "aggregator", try BuildProducts.executable(named: "presence-aggregator"),
            ["run", "--broker", "mqtt://127.0.0.1:\(broker.port)", "--root", "site", "--no-discovery", "--log-level", "error"])
        _ = try await status.until { text($0) == "online" }
        programs.signal("aggregator", SIGTERM)
        #expect(text(try await status.next()) == "offline")
        #expect(try await programs.waitForExit("aggregator") == 0)
    }
}
