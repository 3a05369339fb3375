import ArgumentParser
import BeaconCore
import RoomDecisions
import Foundation

/// The speed and weight figures of issue 6, measured by running the code, printed as one JSON
/// object. Run a release build: `swift build -c release --product presence-agent`, the same for
/// `presence-bench`, then `.build/release/presence-bench speed` from the package root (it starts
/// `/usr/sbin/mosquitto` on a free loopback port and the `presence-agent` beside itself).
///
/// | figure | target |
/// |---|---|
/// | `decodeNsPerReport` | ≤ 100 ns |
/// | `pipelineNsPerAdvert` | ≤ 400 ns (in process: decode, observe, tick; `PipelineBenchmark`) |
/// | `agentProcessNsPerAdvert` | (reported: the whole `presence-agent run` process) |
/// | `aggregatorUpdatesPerSecond` | ≥ 2,000,000 |
/// | `replayRowsPerSecond` | (reported) |
/// | `endToEndP99Ms` | ≤ 10 ms |
/// | `messagesPerBeaconMinuteAtRest` | ≤ 2 (the calibration's budget) |
/// | `messagesPerBeaconMinuteMoving` | (reported) |
/// | `agentResidentMB10k` | ≤ 30 MB |
/// | `agentResidentMBFlood100k` | ≤ 30 MB (the documented cap of a flooded agent) |
/// | `agentIdleCPUPercentSimulator`, `agentIdleCPUPercentSerial` | ≤ 1 % of a core (50 still beacons, 1 Hz each) |
/// | `irkNsPerNewAddress100Keys` | ≤ 18,500 ns (2,700 new addresses a second within 5 % of a core) |
/// | `gatewayAdvertsPerSecond` | ≥ 50,000 (BLE gateway adverts through the aggregator, one core, no broker) |
struct SpeedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "speed",
        abstract: "Measures decode, pipeline, aggregator, replay, end-to-end latency and memory; prints one JSON object."
    )

    @Option(help: "The shared data directory (captures/, traces/, static-rssi/, rssi-vs-distance/).")
    var data: String = "data"

    @Option(help: "The presence-agent executable (default: the one beside this program).")
    var agent: String?

    @Option(help: "Only these figures, comma-separated: decode, pipeline, irk, aggregator, gateways, replay, messages, endToEnd, agent, idle.")
    var only: String?

    @Option(help: "The idle figures' beacons, each heard once a second.")
    var idleBeacons = 50

    @Option(help: "The idle figures' measured window, seconds (after a 5 s warm-up).")
    var idleSeconds = 20.0

    @Option(help: "The aggregator figure's updates, without its 20 s budget (to compare instruction counts under callgrind).")
    var aggregatorUpdates: Int?

    @Flag(help: "Tiny iteration counts: checks that every figure is produced, measures nothing worth quoting.")
    var quick = false

    func wants(_ figure: String) -> Bool {
        only.map { $0.split(separator: ",").contains(Substring(figure)) } ?? true
    }

    func run() throws {
        #if DEBUG
        FileHandle.standardError.write(Data("presence-bench speed: this is a DEBUG build; its figures are not the release figures\n".utf8))
        #endif
        var out: [String: Any] = [:]
        var notes: [String] = []
        out["machine"] = Self.machine()
        #if DEBUG
        out["build"] = "debug"
        #else
        out["build"] = "release"
        #endif
        out["quick"] = quick

        if wants("decode") {
            let decode = try SpeedBenchmarks.decode(
                capturePath: data + "/captures/horizon-74-at-ble.btsnoop", passes: quick ? 2 : 20_000)
            out["decodeNsPerReport"] = figure(decode.nsPerReport, 1)
            out["decodeReportsPerPass"] = decode.reports
        }

        if wants("pipeline") {
            let beacons = quick ? 1_000 : 10_000
            let pipeline = try PipelineBenchmark.run(
                beacons: beacons, regions: quick ? 100 : 1_000, warmUpRounds: 3, rounds: quick ? 4 : 60)
            out["pipelineNsPerAdvert"] = figure(pipeline.nsPerAdvert, 1)
            out["pipelineAdverts"] = pipeline.adverts
            out["pipelineBeacons"] = pipeline.trackedBeacons
            out["pipelinePublications"] = pipeline.publications
        }

        if wants("irk") {
            let irk = try IRKBenchmark.run(adverts: quick ? 1_000 : 1_000_000, newAddresses: quick ? 1_000 : 100_000)
            out["irkNsPerResolvedAdvert"] = figure(irk.nsPerResolvedAdvert, 1)
            out["irkNsPerMissedAdvert"] = figure(irk.nsPerMissedAdvert, 1)
            for (keys, ns) in irk.nsPerNewAddress { out["irkNsPerNewAddress\(keys)Key" + (keys == 1 ? "" : "s")] = figure(ns, 1) }
            // One radio's limit of new random addresses, all resolvable-looking, with 100 keys.
            out["irkCorePercentAt2700NewAddressesPerSecond100Keys"] = figure((irk.nsPerNewAddress[100] ?? 0) * 2_700 / 1e7, 2)
        }

        if wants("aggregator") {
            let updates = aggregatorUpdates ?? (quick ? 20_000 : 2_000_000)
            let budget = aggregatorUpdates == nil ? (quick ? 1.0 : 20) : .infinity
            let aggregator = SpeedBenchmarks.aggregator(
                beacons: 10_000, nodes: 10, rooms: 5, updates: updates, seconds: budget)
            out["aggregatorUpdatesPerSecond"] = Int(aggregator.corePerSecond)
            out["aggregatorUpdatesMeasured"] = aggregator.coreUpdates
            out["roomDeciderUpdatesPerSecond"] = Int(aggregator.deciderPerSecond)
            // A house: 50 beacons, 10 nodes in 5 rooms (the room messages stay short).
            let house = SpeedBenchmarks.aggregator(beacons: 50, nodes: 10, rooms: 5, updates: updates, seconds: budget)
            out["aggregatorUpdatesPerSecond50Beacons"] = Int(house.corePerSecond)
            // The same 10,000 beacons decided by a site model (`run --model`).
            let modelled = SpeedBenchmarks.aggregator(
                beacons: 10_000, nodes: 10, rooms: 5, updates: updates, seconds: budget, siteModel: true)
            out["aggregatorUpdatesPerSecondSiteModel"] = Int(modelled.corePerSecond)
            // The same with a motion sensor in every room (`motion:`), physics and site model.
            let moving = SpeedBenchmarks.aggregator(
                beacons: 10_000, nodes: 10, rooms: 5, updates: updates, seconds: budget, motion: true)
            out["aggregatorUpdatesPerSecondMotion"] = Int(moving.corePerSecond)
            let modelledMoving = SpeedBenchmarks.aggregator(
                beacons: 10_000, nodes: 10, rooms: 5, updates: updates, seconds: budget, siteModel: true, motion: true)
            out["aggregatorUpdatesPerSecondSiteModelMotion"] = Int(modelledMoving.corePerSecond)
            // Untimed: what those loops publish, to check that a change publishes the same bytes.
            let published = SpeedBenchmarks.aggregatorFingerprint(beacons: 10_000, nodes: 10, rooms: 5, updates: updates)
            out["aggregatorPublications"] = published.publications
            out["aggregatorPublicationsFingerprint"] = published.fingerprint
            let housePublished = SpeedBenchmarks.aggregatorFingerprint(beacons: 50, nodes: 10, rooms: 5, updates: updates)
            out["aggregatorPublications50Beacons"] = housePublished.publications
            out["aggregatorPublicationsFingerprint50Beacons"] = housePublished.fingerprint
            let varied = SpeedBenchmarks.aggregatorVariedFingerprint(beacons: 300, nodes: 10, rooms: 5, seconds: quick ? 30 : 240)
            out["aggregatorVariedPublications"] = varied.publications
            out["aggregatorVariedFingerprint"] = varied.fingerprint
        }

        if wants("gateways") {
            // Issue 29: 1,000 beacons heard by 10 gateways, raw adverts as Theengs Gateway publishes them.
            let gateways = GatewayBenchmark.run(beacons: quick ? 100 : 1_000, gateways: 10, adverts: quick ? 20_000 : 2_000_000)
            out["gatewayAdvertsPerSecond"] = Int(gateways.advertsPerSecond)
            out["gatewayAdvertsMeasured"] = gateways.adverts
            out["gatewayMeasurements"] = gateways.measurements
        }

        if wants("replay") {
            let replay = try SpeedBenchmarks.replay(traceDirectory: data + "/traces", passes: quick ? 1 : 20)
            out["replayRowsPerSecond"] = Int(replay.rowsPerSecond)
            out["replayRowsPerPass"] = replay.rows
            out["replayTraces"] = replay.traces
        }
        if wants("messages") {
            out["messagesPerBeaconMinuteAtRest"] = try figure(SpeedBenchmarks.messagesAtRest(dataDirectory: data), 3)
            out["messagesPerBeaconMinuteMoving"] = try figure(SpeedBenchmarks.messagesMoving(traceDirectory: data + "/traces"), 3)
        }

        if wants("endToEnd") {
            let samples = quick ? 20 : 2_000
            let endToEnd = try Self.blocking { try await EndToEndBenchmark.run(samples: samples) }
            out["endToEndP50Ms"] = figure(endToEnd.p50Ms, 3)
            out["endToEndP99Ms"] = figure(endToEnd.p99Ms, 3)
            out["endToEndMaxMs"] = figure(endToEnd.maxMs, 3)
            out["endToEndSamples"] = endToEnd.samples
            if endToEnd.timeouts > 0 { notes.append("end-to-end: \(endToEnd.timeouts) measurements gave no location within 1 s") }
        }

        let agentPath = agent ?? Self.besideThisProgram("presence-agent")
        if !wants("agent") {
        } else if FileManager.default.isExecutableFile(atPath: agentPath) {
            let beacons = quick ? 1_000 : 10_000
            let process = try AgentProcessBenchmark.run(
                agent: agentPath, beacons: beacons, regions: quick ? 100 : 1_000, shortRounds: 2, longRounds: quick ? 4 : 32,
                liveRounds: quick ? 3 : 20)
            out["agentProcessNsPerAdvert"] = figure(process.nsPerAdvert, 1)
            out["agentProcessWholeRunNsPerAdvert"] = figure(process.wholeRunNsPerAdvert, 1)
            out["agentProcessAdverts"] = process.long.adverts
            out["agentProcessBeacons"] = beacons
            out["agentResidentMB10k"] = figure(Double(process.live.medianBytes) / 1_048_576, 1)
            out["agentResidentMB10kMax"] = figure(Double(process.live.maxBytes) / 1_048_576, 1)
            out["agentResidentMB10kAfterBurst"] = figure(Double(process.restingAfterBurstResidentBytes) / 1_048_576, 1)
            out["agentResidentMB10kKnown"] = figure(Double(process.liveKnown.medianBytes) / 1_048_576, 1)
            out["agentPeakResidentMBDuringReplay"] = figure(Double(process.long.maxResidentBytes) / 1_048_576, 1)
            out["agentPeakResidentMBShortReplay"] = figure(Double(process.short.maxResidentBytes) / 1_048_576, 1)
            out["agentWallSecondsLongRun"] = figure(process.long.wallSeconds, 3)
            // Issue 7: 100,000 distinct random addresses and ids in 200 s of capture time.
            let flood = try AgentProcessBenchmark.flood(agent: agentPath, count: quick ? 10_000 : 100_000, seconds: 200)
            out["agentResidentMBFlood100k"] = figure(Double(flood) / 1_048_576, 1)
        } else {
            notes.append("no presence-agent at \(agentPath): the agent process and its memory not measured (build it in release, or pass --agent)")
            out["agentProcessNsPerAdvert"] = NSNull()
            out["agentResidentMB10k"] = NSNull()
        }

        if wants("idle") && FileManager.default.isExecutableFile(atPath: agentPath) {
            // Issue 18: a node at rest, hearing `idleBeacons` still beacons once a second, at live pace.
            let warmUp = quick ? 2.0 : 5.0
            let window = quick ? 3.0 : idleSeconds
            let simulator = try IdleCPUBenchmark.simulator(agent: agentPath, beacons: idleBeacons, warmUp: warmUp, window: window)
            let serial = try IdleCPUBenchmark.serial(agent: agentPath, beacons: idleBeacons, warmUp: warmUp, window: window)
            out["agentIdleCPUPercentSimulator"] = figure(simulator.cpuPercent, 2)
            out["agentIdleCPUPercentSerial"] = figure(serial.cpuPercent, 2)
            out["agentIdleAdvertsPerSecondSimulator"] = simulator.advertsPerSecond.map { figure($0, 1) } ?? NSNull()
            out["agentIdleAdvertsPerSecondSerial"] = serial.advertsPerSecond.map { figure($0, 1) } ?? NSNull()
            out["agentIdleBeacons"] = idleBeacons
            out["agentIdleWindowSeconds"] = figure(window, 1)
        } else if wants("idle") {
            out["agentIdleCPUPercentSimulator"] = NSNull()
            out["agentIdleCPUPercentSerial"] = NSNull()
        }
        if !notes.isEmpty { out["notes"] = notes }

        let json = try JSONSerialization.data(withJSONObject: out, options: [.prettyPrinted, .sortedKeys])
        FileHandle.standardOutput.write(json)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    /// Runs async work from this synchronous command (the main thread is not one of the
    /// cooperative pool's, so blocking it is safe).
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let result = Locked<Result<T, any Error>?>(nil)
        Task {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        guard let outcome = result.withLock({ $0 }) else { throw BenchProcess.Failure("no result") }
        return try outcome.get()
    }

    static func besideThisProgram(_ name: String) -> String {
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        return me.deletingLastPathComponent().appendingPathComponent(name).path
    }

    static func machine() -> [String: Any] {
        var facts: [String: Any] = [
            "cores": ProcessInfo.processInfo.activeProcessorCount,
            "memoryGB": figure(Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824, 1),
            "swiftCompiler": compilerVersion,
        ]
        if let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
           let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
           let colon = line.firstIndex(of: ":")
        {
            facts["cpu"] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        if let load = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) {
            facts["loadAverageAtStart"] = load.split(separator: " ").prefix(3).joined(separator: " ")
        }
        return facts
    }

    static var compilerVersion: String {
        #if compiler(>=6.4)
        return ">=6.4"
        #elseif compiler(>=6.3)
        return "6.3"
        #elseif compiler(>=6.2)
        return "6.2"
        #elseif compiler(>=6.1)
        return "6.1"
        #else
        return "6.0"
        #endif
    }
}
