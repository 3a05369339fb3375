import Foundation
import TestSupport

/// The built `presence-agent run` as operators start it, on a capture or the simulator, against a test's broker.
struct AgentProcess {
    let pid: pid_t
    let stateDir: String
    let log: String

    func signal(_ number: Int32) { kill(pid, number) }
    func exitStatus() throws -> Int32 { try ToolRunner.waitForExit(pid) }
    var output: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// Starts node `test` in room `lab` replaying `capture` at `speed`; its log goes to a file, or
    /// to `output` when given; a fresh state directory unless `stateDir` is given.
    static func start(
        _ broker: TestBroker, capture: String, speed: String = "0", stateDir: String? = nil, extra: [String] = [],
        output: Int32? = nil
    ) throws -> AgentProcess {
        try start(broker, source: ["--source", "btsnoop:" + capture, "--speed", speed], stateDir: stateDir, extra: extra, output: output)
    }

    /// The same on any source: `source` is its `--source` and options.
    static func start(
        _ broker: TestBroker, source: [String], stateDir: String? = nil, extra: [String] = [], output: Int32? = nil
    ) throws -> AgentProcess {
        let directory = stateDir ?? (NSTemporaryDirectory() + "agent-state-\(UUID().uuidString)")
        let log = NSTemporaryDirectory() + "agent-\(UUID().uuidString).log"
        let descriptor = output ?? open(log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { if output == nil { close(descriptor) } }
        let pid = try ToolRunner.spawn(
            try BuildProducts.executable(named: "presence-agent"),
            ["run", "--node", "test", "--room", "lab", "--broker", "mqtt://127.0.0.1:\(broker.port)", "--state-dir", directory]
                + source + extra,
            output: descriptor)
        return AgentProcess(pid: pid, stateDir: directory, log: log)
    }
}
