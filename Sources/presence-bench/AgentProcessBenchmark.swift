import BeaconCore
import Foundation
import Logging
import MQTTClient

/// A real `presence-agent run` process replaying a synthetic capture of simulated iBeacons
/// (`SyntheticBeacons`) as fast as it can into a real mosquitto, with a regions config of one
/// region per major pushed as a retained message first: the whole agent pipeline (btsnoop read,
/// HCI decode, beacon decode, region match, Kalman filter, classify, publish policy, JSON,
/// libmosquitto), measured from outside with `wait4`'s resource usage.
///
/// Two runs that differ only in length (rounds of every beacon advertising once) give the cost of
/// one more advertisement without the start-up, connection and shutdown that both share.
enum AgentProcessBenchmark {
    struct Run {
        var adverts: Int
        var cpuSeconds: Double
        var wallSeconds: Double
        var maxResidentBytes: Int
        /// VmRSS sampled while it ran, the largest seen (bytes).
        var sampledResidentBytes: Int
        var status: Int32
    }

    struct Result {
        var short: Run
        var long: Run
        /// VmRSS of an agent hearing every beacon once a second: the median and the largest of
        /// the samples over the last `liveWindowSeconds` of a capture replayed at its own pace.
        var live: (medianBytes: Int, maxBytes: Int)
        /// VmRSS of an agent that replayed the short capture as fast as it could and then sat
        /// still for two seconds (bytes): what a burst leaves behind before the next trim.
        var restingAfterBurstResidentBytes: Int
        /// `live` with every beacon in `presence/config/beacons`.
        var liveKnown: (medianBytes: Int, maxBytes: Int)
        var nsPerAdvert: Double { (long.cpuSeconds - short.cpuSeconds) / Double(long.adverts - short.adverts) * 1e9 }
        var wholeRunNsPerAdvert: Double { long.cpuSeconds / Double(long.adverts) * 1e9 }
    }

    static func run(agent: String, beacons: Int, regions: Int, shortRounds: Int, longRounds: Int, liveRounds: Int) throws -> Result {
        let broker = try BenchBroker()
        defer { broker.stop() }
        let synthetic = SyntheticBeacons(beacons: beacons, regions: regions)
        try publishRetained(topic: "presence/config/regions", text: synthetic.regionsConfig, port: broker.port)
        let short = try replay(agent: agent, synthetic: synthetic, rounds: shortRounds, port: broker.port, directory: broker.directory)
        let long = try replay(agent: agent, synthetic: synthetic, rounds: longRounds, port: broker.port, directory: broker.directory)
        let live = try liveResident(agent: agent, synthetic: synthetic, rounds: liveRounds, port: broker.port, directory: broker.directory)
        try publishRetained(topic: "presence/config/beacons", text: synthetic.beaconsConfig, port: broker.port)
        let liveKnown = try liveResident(agent: agent, synthetic: synthetic, rounds: liveRounds, port: broker.port,
                                         directory: broker.directory, files: "live-known")
        // Cleared (an empty retained message), so the resting figure stays as it was measured.
        try publishRetained(topic: "presence/config/beacons", text: "", port: broker.port)
        let afterBurst = try restingResident(
            agent: agent, capture: broker.directory + "/synthetic-\(shortRounds).btsnoop", name: "resting", port: broker.port,
            directory: broker.directory)
        return Result(short: short, long: long, live: live, restingAfterBurstResidentBytes: afterBurst,
                      liveKnown: liveKnown)
    }

    /// The last seconds of the live-paced capture (`liveRounds` rounds, one a second) in which
    /// VmRSS is sampled: after the start-up burst (every beacon's first measurement, region
    /// entries, ranging) and after the agent's periodic return of freed heap
    /// (`AgentService.memoryReliefInterval`), so the figure is the agent's steady state with
    /// every beacon heard each second.
    static let liveWindowSeconds = 6.0

    /// The agent replays the capture at its own pace (`--speed 1`, as a live adapter delivers
    /// advertisements); VmRSS sampled every 50 ms over the last `liveWindowSeconds`.
    private static func liveResident(agent: String, synthetic: SyntheticBeacons, rounds liveRounds: Int, port: Int, directory: String,
                                     files: String = "live") throws
        -> (medianBytes: Int, maxBytes: Int)
    {
        let capture = directory + "/synthetic-live.btsnoop"
        if !FileManager.default.fileExists(atPath: capture) {
            try Data(synthetic.capture(rounds: liveRounds)).write(to: URL(fileURLWithPath: capture))
        }
        let start = BenchProcess.nanoseconds()
        let (pid, log) = try spawnAgent(
            agent, node: "bench-\(files)", files: files, source: replaying(capture, speed: "1"), port: port, directory: directory,
            extra: ["--exit-at-end"])
        let windowStart = start + UInt64(max(Double(liveRounds) - liveWindowSeconds, 1) * 1e9)
        var samples: [Int] = []
        while !hasExited(pid) {
            if BenchProcess.nanoseconds() >= windowStart, let resident = BenchProcess.residentBytes(pid: pid) {
                samples.append(resident)
            }
            usleep(50_000)
        }
        let status = try BenchProcess.wait(pid).status
        guard status == 0, !samples.isEmpty else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw BenchProcess.Failure("presence-agent (live pace) exited \(status) with \(samples.count) samples:\n\(text.suffix(2000))")
        }
        samples.sort()
        return (samples[samples.count / 2], samples[samples.count - 1])
    }

    /// Issue 7's flood: `count` distinct random addresses and iBeacon ids over `seconds` of capture
    /// time, replayed at full speed into an agent in discovery mode (`--report-unknown`, so each
    /// one is a beacon it would track) with its default cap; VmRSS at rest afterwards (bytes).
    static func flood(agent: String, count: Int, seconds: Double) throws -> Int {
        let broker = try BenchBroker()
        defer { broker.stop() }
        let capture = broker.directory + "/flood-\(count).btsnoop"
        try Data(SyntheticBeacons.floodCapture(count: count, seconds: seconds)).write(to: URL(fileURLWithPath: capture))
        return try restingResident(
            agent: agent, capture: capture, name: "flood", port: broker.port, directory: broker.directory,
            extra: ["--report-unknown", "--wait-for-config", "0"])
    }

    /// Replays the capture without `--exit-at-end`, waits for the agent to log the source's end,
    /// lets its queues drain for two seconds, reads VmRSS and stops it with SIGTERM.
    private static func restingResident(
        agent: String, capture: String, name: String, port: Int, directory: String, extra: [String] = []
    ) throws -> Int {
        let (pid, log) = try spawnAgent(
            agent, node: "bench-\(name)", files: name, source: replaying(capture, speed: "0"), port: port, directory: directory,
            extra: extra)
        defer {
            kill(pid, SIGTERM)
            _ = try? BenchProcess.wait(pid)
        }
        let deadline = BenchProcess.nanoseconds() + 120_000_000_000
        while !((try? String(contentsOfFile: log, encoding: .utf8))?.contains("the source ended") ?? false) {
            guard !hasExited(pid), BenchProcess.nanoseconds() < deadline else {
                throw BenchProcess.Failure("presence-agent did not finish the capture; see \(log)")
            }
            usleep(50_000)
        }
        sleep(2)
        guard let resident = BenchProcess.residentBytes(pid: pid) else { throw BenchProcess.Failure("no VmRSS for the agent") }
        return resident
    }

    private static func replay(agent: String, synthetic: SyntheticBeacons, rounds: Int, port: Int, directory: String) throws -> Run {
        let capture = directory + "/synthetic-\(rounds).btsnoop"
        try Data(synthetic.capture(rounds: rounds)).write(to: URL(fileURLWithPath: capture))
        let start = BenchProcess.nanoseconds()
        let (pid, log) = try spawnAgent(
            agent, node: "bench", files: "\(rounds)", source: replaying(capture, speed: "0"), port: port, directory: directory,
            extra: ["--exit-at-end"])
        // Sample VmRSS while it runs (the child is reaped only by wait4 below, so /proc stays readable).
        var sampled = 0
        while !hasExited(pid) {
            sampled = max(sampled, BenchProcess.residentBytes(pid: pid) ?? 0)
            usleep(20_000)
        }
        let exit = try BenchProcess.wait(pid)
        let status = exit.status
        let wall = Double(BenchProcess.nanoseconds() - start) / 1e9
        guard status == 0 else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw BenchProcess.Failure("presence-agent exited \(status):\n\(text.suffix(2000))")
        }
        return Run(adverts: rounds * synthetic.beacons, cpuSeconds: exit.cpuSeconds, wallSeconds: wall,
                   maxResidentBytes: exit.maxResidentBytes, sampledResidentBytes: sampled, status: status)
    }

    /// `--source` and `--speed` for the btsnoop `capture` replayed at `speed`.
    static func replaying(_ capture: String, speed: String) -> [String] {
        ["--source", "btsnoop:\(capture)", "--speed", speed]
    }

    /// Starts `presence-agent run` as `node` in room `lab` on `source` (its `--source` and
    /// options), with a state directory and a log of its own in `directory`
    /// (`agent-state-<files>`, `agent-<files>.log`); returns its pid and the log's path.
    static func spawnAgent(
        _ agent: String, node: String, files: String, source: [String], port: Int, directory: String, extra: [String]
    ) throws -> (pid: pid_t, log: String) {
        let state = directory + "/agent-state-\(files)"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let log = directory + "/agent-\(files).log"
        let pid = try BenchProcess.spawn(agent, [
            "run", "--node", node, "--room", "lab", "--broker", "mqtt://127.0.0.1:\(port)", "--state-dir", state,
        ] + source + extra, logPath: log)
        return (pid, log)
    }

    /// True once the child is a zombie (exited, not yet reaped).
    private static func hasExited(_ pid: pid_t) -> Bool {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return true }
        let state = text[text.index(after: close)...].drop(while: { $0 == " " }).first
        return state == "Z" || state == "X"
    }

    /// A client of the bench's broker on loopback, connected, logging errors only.
    static func connect(port: Int, clientID: String) async throws -> MQTTConnection {
        var logger = Logger(label: "presence-bench")
        logger.logLevel = .error
        let connection = try MQTTConnection(
            options: MQTTConnectionOptions(host: "127.0.0.1", port: port, clientID: clientID), logger: logger)
        try await connection.connect(timeout: .seconds(10))
        return connection
    }

    static func publishRetained(topic: String, text: String, port: Int) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = Locked<String?>(nil)
        Task {
            do {
                let connection = try await connect(port: port, clientID: "bench-config")
                try await connection.publish(topic: topic, string: text, qos: .atLeastOnce, retain: true).acknowledged()
                await connection.disconnect()
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
            done.signal()
        }
        done.wait()
        if let message = failure.withLock({ $0 }) { throw BenchProcess.Failure("publishing \(topic): \(message)") }
    }
}
