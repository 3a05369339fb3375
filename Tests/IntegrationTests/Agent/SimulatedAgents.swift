import BluetoothHCI
import Foundation
import Logging
import PresenceAgent
import ServiceLifecycle
import Testing
import TestSupport

/// Real agents (`AgentService`) hearing a simulated building (the `simulate` source: the demo's, or
/// `scenario`) on one manual clock, in one service group. The building moves only when the test
/// moves the clock, so no test waits for time to pass. Shared by the tests that run our agents
/// beside a real mosquitto (the level query's agent side and end to end, the rise announcement).
struct SimulatedAgents {
    let clock: ManualClock
    let agents: [AgentService]

    /// Waits until every agent's source is asleep on the clock again and the agent has handled all
    /// it heard: what was due by now is published.
    func asleep(timeout: Duration = .seconds(10)) async throws {
        let clock = clock, agents = agents
        try await within("the simulated sources asleep on the clock", timeout: timeout) { try await clock.asleep(agents.count) }
        try await eventually("the agents to handle what they heard", timeout: timeout) {
            agents.allSatisfy { $0.unhandledSourceBatches == 0 }
        }
    }

    /// Publications the agents have handed to the broker so far.
    var published: Int { agents.reduce(0) { $0 + $1.publishedCount } }

    /// Moves the building on by `seconds`, `step` at a time, each step heard by every agent.
    func hear(_ seconds: Double, step: Double = 0.25) async throws {
        for _ in 0..<Int((seconds / step).rounded()) {
            clock.advance(by: step)
            try await asleep()
        }
    }

    /// Runs one agent per `nodes` entry against `broker` until `body` returns, then stops them
    /// gracefully (also when `body` throws) and expects them stopped.
    static func run<Result>(
        on broker: TestBroker, nodes: [(String, String)], clock: ManualClock,
        scenario: SimulationScenario? = nil, _ body: (SimulatedAgents) async throws -> Result
    ) async throws -> Result {
        let work = try TestBroker.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: work) }
        var source = "simulate"
        if let scenario {
            let path = work + "/building.json"
            try JSONEncoder().encode(scenario).write(to: URL(fileURLWithPath: path))
            source += ":" + path
        }
        let agents = try nodes.map { node, room in
            try testAgent(node, room, broker: broker, stateDir: work + "/state-\(node)", source: source, clock: clock)
        }
        let group = ServiceGroup(configuration: .init(services: agents.map { .init(service: $0) }, logger: quietLogger))
        let stopped = Flag()
        let run = Task {
            defer { stopped.set() }
            try await group.run()
        }
        func stop() async {
            await group.triggerGracefulShutdown()
            // The simulated sources asleep on the clock see the stop when they wake.
            for _ in 0..<40 where !stopped.isSet {
                clock.advance(by: 0.25)
                try? await eventually("the agents to stop", timeout: .milliseconds(250)) { stopped.isSet }
            }
        }
        let result: Result
        do {
            result = try await body(SimulatedAgents(clock: clock, agents: agents))
        } catch {
            await stop()
            _ = try? await run.value
            throw error
        }
        await stop()
        #expect(stopped.isSet, "the agents did not stop")
        try await run.value
        return result
    }
}

/// One agent as the tests run it in process: `node` serving `room` on `broker`, its state in
/// `stateDir`, hearing `source` on `clock`; `configure` sets anything else.
func testAgent(
    _ node: String, _ room: String, broker: TestBroker, stateDir: String, source: String, clock: ManualClock,
    logger: Logger = quietLogger, _ configure: (inout AgentConfiguration) -> Void = { _ in }
) throws -> AgentService {
    var configuration = AgentConfiguration()
    configuration.node = node
    configuration.room = room
    configuration.broker = "mqtt://127.0.0.1:\(broker.port)"
    configuration.stateDir = stateDir
    configuration.source = source
    configure(&configuration)
    return AgentService(configuration: try configuration.resolve(), logger: logger, version: "test", clock: clock)
}
