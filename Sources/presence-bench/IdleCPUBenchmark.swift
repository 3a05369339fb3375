import BeaconCore
import BluetoothHCI
import Foundation
import MQTTClient
import TestSupport

/// Issue 18 (6): the CPU a real `presence-agent run` uses at rest at live pace, for a node hearing
/// `beacons` still beacons once a second each (all in one region, so each is tracked, measured and
/// ranged), from two sources:
/// - the simulator (`--source simulate:FILE`, a scenario of that many beacons that do not move;
///   it loses one advertisement in ten by design, so the agent hears about 0.9 × `beacons` a second);
/// - a serial line (`--source uart:/dev/pts/N`): the tests' fake controller on a pseudo-terminal
///   answers the agent's setup, then this process writes each beacon's advertising report once a
///   second, spread evenly over the second, as a dongle's H4 firmware would. The agent advertises
///   its node beacon there (the shipped default) unless `nodeBeacon` is false: the controller
///   does the advertising, so what it can cost the agent is its set-up and lost reports.
///
/// The figure is the agent's user + system CPU ticks (`/proc/PID/stat`) over a window after a
/// warm-up (connect, retained regions, every beacon's first measurement), divided by the window's
/// wall time: percent of one core. The agent's own telemetry (every 5 s) says how many
/// advertisements a second it handled in the window.
enum IdleCPUBenchmark {
    struct Result {
        var cpuPercent: Double
        var windowSeconds: Double
        /// `advertsPerSecond` of the agent's last telemetry in the window (nil if none arrived).
        var advertsPerSecond: Double?
    }

    static let node = "office-1"

    static func simulator(agent: String, beacons: Int, warmUp: Double, window: Double) throws -> Result {
        try run(agent: agent, beacons: beacons, files: "idle-simulator", warmUp: warmUp, window: window) { directory in
            let path = directory + "/idle-scenario.json"
            try JSONEncoder().encode(scenario(beacons: beacons)).write(to: URL(fileURLWithPath: path))
            return ["--source", "simulate:\(path)", "--speed", "1"]
        }
    }

    static func serial(agent: String, beacons: Int, warmUp: Double, window: Double, nodeBeacon: Bool = true) throws -> Result {
        var behaviour = FakeController.Behaviour()
        // A legacy controller, so the reports it sends are the kind its scan asked for.
        behaviour.supportsExtendedScan = false
        let controller = try FakeController(behaviour: behaviour)
        let synthetic = SyntheticBeacons(beacons: beacons, regions: 1)
        let stop = Locked(false)
        let sender = Thread {
            // Once the agent has switched scanning on: every beacon once a second.
            while !controller.commands.contains(.leSetScanEnable(true)) {
                if stop.withLock({ $0 }) { return }
                usleep(10_000)
            }
            var round = 0
            let start = BenchProcess.nanoseconds()
            while !stop.withLock({ $0 }) {
                for beacon in 0..<beacons {
                    let due = start + UInt64((Double(round) + Double(beacon) / Double(beacons)) * 1e9)
                    let now = BenchProcess.nanoseconds()
                    if due > now { usleep(UInt32((due - now) / 1000)) }
                    controller.pty.write([HCIPacketType.event.rawValue] + synthetic.event(beacon: beacon, rssi: SyntheticBeacons.rssi(beacon: beacon, round: round)))
                }
                round += 1
            }
        }
        sender.start()
        defer {
            stop.withLock { $0 = true }
            controller.unplug()
        }
        let result = try run(agent: agent, beacons: beacons, files: nodeBeacon ? "idle-serial" : "idle-serial-silent", warmUp: warmUp,
                             window: window, settings: nodeBeacon ? "" : "nodeBeacon:\n  enabled: false\n") { _ in
            ["--source", "uart:\(controller.pty.devicePath)"]
        }
        let advertised = controller.commands.contains(.leSetExtendedAdvertisingEnable(true)) || controller.commands.contains(.leSetAdvertisingEnable(true))
        guard advertised == nodeBeacon else { throw BenchProcess.Failure("the agent's node beacon was \(nodeBeacon ? "not " : "")switched on") }
        return result
    }

    /// A scenario of `beacons` people carrying the synthetic beacons (major 0, minor i) in the
    /// demo building, each advertising once a second, who stay where they are.
    static func scenario(beacons: Int) -> SimulationScenario {
        var scenario = SimulationScenario.demo
        let template = scenario.people[0]
        scenario.people = (0..<beacons).map { index in
            var person = template
            person.name = "beacon-\(index)"
            person.uuid = SyntheticBeacons.uuidText
            person.major = 0
            person.minor = UInt16(index)
            person.address = String(format: "c0:00:00:00:%02x:%02x", (index >> 8) & 0xFF, index & 0xFF)
            return person
        }
        scenario.advertisingInterval = 1
        // Every beacon in the building is heard (the simulator still loses one advertisement in ten).
        scenario.sensitivity = -127
        // A day in each room: nobody walks during the run.
        scenario.dwellMin = 86_400
        scenario.dwellMax = 86_400
        return scenario
    }

    /// Starts a broker with the region of every synthetic beacon retained and the agent on the
    /// `--source` arguments `prepare` gives (handed the broker's directory), and measures it.
    private static func run(
        agent: String, beacons: Int, files: String, warmUp: Double, window: Double, settings: String = "",
        source prepare: (String) throws -> [String]
    ) throws -> Result {
        let broker = try BenchBroker()
        defer { broker.stop() }
        let synthetic = SyntheticBeacons(beacons: beacons, regions: 1)
        try AgentProcessBenchmark.publishRetained(topic: "presence/config/regions", text: synthetic.regionsConfig, port: broker.port)
        let configuration = broker.directory + "/\(files).yaml"
        try ("telemetryInterval: 5\n" + settings).write(toFile: configuration, atomically: true, encoding: .utf8)
        let telemetry = try TelemetryListener(port: broker.port, topic: "presence/nodes/\(node)/telemetry")
        defer { telemetry.stop() }
        let source = try prepare(broker.directory)
        let (pid, log) = try AgentProcessBenchmark.spawnAgent(
            agent, node: node, files: files, source: source, port: broker.port, directory: broker.directory,
            extra: ["--config", configuration])
        defer {
            kill(pid, SIGTERM)
            _ = try? BenchProcess.wait(pid)
        }
        func failure(_ what: String) -> BenchProcess.Failure {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return BenchProcess.Failure("presence-agent (\(files)) \(what):\n\(text.suffix(2000))")
        }
        usleep(UInt32(warmUp * 1e6))
        guard let cpuStart = BenchProcess.cpuSeconds(pid: pid), BenchProcess.processIsRunning(pid) else { throw failure("stopped") }
        let wallStart = BenchProcess.nanoseconds()
        usleep(UInt32(window * 1e6))
        guard let cpuEnd = BenchProcess.cpuSeconds(pid: pid), BenchProcess.processIsRunning(pid) else { throw failure("stopped") }
        let wall = Double(BenchProcess.nanoseconds() - wallStart) / 1e9
        return Result(cpuPercent: (cpuEnd - cpuStart) / wall * 100, windowSeconds: wall, advertsPerSecond: telemetry.lastAdvertsPerSecond)
    }
}

/// The last `advertsPerSecond` an agent's telemetry said, heard on the broker.
final class TelemetryListener: Sendable {
    private let last = Locked<Double?>(nil)
    private let task: Task<Void, Never>

    init(port: Int, topic: String) throws {
        let last = self.last
        let subscribed = DispatchSemaphore(value: 0)
        let failure = Locked<String?>(nil)
        task = Task {
            do {
                let connection = try await AgentProcessBenchmark.connect(port: port, clientID: "bench-telemetry")
                let messages = try await connection.subscribe(topic, qos: .atMostOnce)
                subscribed.signal()
                for await message in messages {
                    let object = try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any]
                    if let rate = object?["advertsPerSecond"] as? Double { last.withLock { $0 = rate } }
                }
                await connection.disconnect()
            } catch {
                failure.withLock { $0 = "\(error)" }
                subscribed.signal()
            }
        }
        subscribed.wait()
        if let message = failure.withLock({ $0 }) { throw BenchProcess.Failure("subscribing to \(topic): \(message)") }
    }

    var lastAdvertsPerSecond: Double? { last.withLock { $0 } }

    func stop() { task.cancel() }
}
