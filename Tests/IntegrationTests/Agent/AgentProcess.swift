import Foundation
import TestSupport

/// The built `presence-agent run` as operators start it, on a capture or the simulator, against a
/// test's broker. Killed and reaped when the test lets go of it (its `SpawnedPrograms`), whether it
/// passed or threw.
struct AgentProcess {
    let stateDir: String
    private let programs: SpawnedPrograms

    func signal(_ number: Int32) { programs.signal("agent", number) }
    func exitStatus() async throws -> Int32 { try await programs.waitForExit("agent") }
    var output: String { programs.log(of: "agent") }

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
        let programs = try SpawnedPrograms()
        try programs.start(
            "agent", try BuildProducts.executable(named: "presence-agent"),
            ["run", "--node", "test", "--room", "lab", "--broker", "mqtt://127.0.0.1:\(broker.port)", "--state-dir", directory]
                + source + extra,
            output: output)
        return AgentProcess(stateDir: directory, programs: programs)
    }
}
