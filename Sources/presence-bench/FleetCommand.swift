import ArgumentParser
import BeaconCore
import RoomDecisions
import Foundation

/// Issue 8's load test: N nodes × M beacons of measurements played into a real mosquitto at a
/// chosen rate, a real `presence-aggregator run` deciding, and what it sustains, as one JSON
/// object (`FleetLoadTest` says what is measured and how). Run a release build from the package
/// root: `swift build -c release --product presence-aggregator`, the same for `presence-bench`,
/// then `.build/release/presence-bench fleet` (or `fleet --find-max`).
struct FleetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "Plays a fleet of nodes into a real broker and aggregator; prints messages/s, decision lag, drops and memory as JSON."
    )

    @Option(help: "Nodes (receivers).")
    var nodes = 200

    @Option(help: "Nodes in each room.")
    var nodesPerRoom = 2

    @Option(help: "Beacons.")
    var beacons = 5_000

    @Option(help: "Nodes that hear each beacon (consecutive nodes, the nearest first).")
    var nodesPerBeacon = 3

    @Option(help: "Measurements per (beacon, node) pair per minute; 1.42 is the measured at-rest median.")
    var rate = 1.42

    @Option(help: "Seconds of steady load (after the warm-up).")
    var duration = 90.0

    @Option(help: "Share of beacons that move (change room) during the run, 0…1.")
    var moving = 0.1

    @Option(help: "Seconds between two moves of one moving beacon.")
    var moveEvery = 20.0

    @Option(help: "The aggregator's --tick-interval, seconds (0.05…1); decisions due between ticks are served when due.")
    var tickInterval = 0.25

    @Option(help: "Seconds after its due time before an undecided move counts as dropped.")
    var deadline = 5.0

    @Option(help: "The presence-aggregator executable (default: the one beside this program).")
    var aggregator: String?

    @Option(help: "How the aggregator reaches the broker: tcp (loopback) or unix (the broker's Unix-domain socket); the fleet's nodes stay on TCP.")
    var aggregatorTransport = AggregatorTransport.tcp

    @Flag(help: "Raise the rate step by step (doubling, then bisecting) until lag p99 > 1 s or drops; report the highest sustained.")
    var findMax = false

    @Option(help: "With --find-max: seconds of steady load per step.")
    var stepDuration = 30.0

    @Option(help: "With --find-max: at most this many steps.")
    var maxSteps = 9

    func validate() throws {
        guard nodes >= 1, beacons >= 1, nodesPerRoom >= 1 else { throw ValidationError("--nodes, --beacons and --nodes-per-room must be at least 1") }
        guard (1...nodes).contains(nodesPerBeacon) else { throw ValidationError("--nodes-per-beacon must be 1…\(nodes)") }
        guard rate > 0, rate.isFinite else { throw ValidationError("--rate must be a positive number of messages per pair per minute") }
        guard duration > deadline else { throw ValidationError("--duration must be longer than --deadline (\(deadline) s)") }
        guard (0...1).contains(moving) else { throw ValidationError("--moving must be 0…1") }
        // A beacon moves again only after its last move was decided or counted as dropped.
        let dwell = SwitchingRule.default.dwell
        guard moveEvery > dwell + deadline else {
            throw ValidationError("--move-every must be longer than the dwell (\(dwell) s) plus --deadline (\(deadline) s)")
        }
        guard (0.05...1).contains(tickInterval) else { throw ValidationError("--tick-interval must be 0.05…1") }
    }

    func run() throws {
        #if DEBUG
        FileHandle.standardError.write(Data("presence-bench fleet: this is a DEBUG build; its figures are not the release figures\n".utf8))
        #endif
        let aggregatorPath = aggregator ?? SpeedCommand.besideThisProgram("presence-aggregator")
        guard FileManager.default.isExecutableFile(atPath: aggregatorPath) else {
            throw BenchProcess.Failure("no presence-aggregator at \(aggregatorPath): build it (swift build -c release --product presence-aggregator) or pass --aggregator")
        }
        let layout = FleetLayout(nodes: nodes, nodesPerRoom: nodesPerRoom, beacons: beacons, nodesPerBeacon: nodesPerBeacon)
        func options(rate: Double, duration: Double) -> FleetLoadTest.Options {
            FleetLoadTest.Options(
                layout: layout, rate: rate, duration: duration, moving: moving, moveEvery: moveEvery,
                tickInterval: tickInterval, deadline: deadline, aggregator: aggregatorPath, aggregatorTransport: aggregatorTransport)
        }
        func progress(_ line: String) { FileHandle.standardError.write(Data("fleet: \(line)\n".utf8)) }

        var out: [String: Any] = [:]
        out["machine"] = SpeedCommand.machine()
        #if DEBUG
        out["build"] = "debug"
        #else
        out["build"] = "release"
        #endif
        out["nodesPerRoom"] = nodesPerRoom
        out["rooms"] = layout.rooms
        out["nodesPerBeacon"] = nodesPerBeacon
        out["pairs"] = layout.pairs
        out["moving"] = moving
        out["moveEverySeconds"] = moveEvery
        out["tickIntervalSeconds"] = tickInterval
        out["dwellSeconds"] = SwitchingRule.default.dwell
        out["deadlineSeconds"] = deadline
        out["aggregatorTransport"] = aggregatorTransport.rawValue

        if !findMax {
            let run = options(rate: rate, duration: duration)
            let result = try FleetLoadTest.run(run, progress: progress)
            out.merge(Self.figures(run, result)) { $1 }
        } else {
            var steps: [[String: Any]] = []
            var best: (FleetLoadTest.Options, FleetLoadTest.Result)?
            var good: Double?
            var bad: Double?
            var next = rate
            for _ in 0..<maxSteps {
                let step = options(rate: next, duration: stepDuration)
                progress("step at \(Int(step.messagesPerSecond)) messages/s (\(next) per pair per minute)")
                let result = try FleetLoadTest.run(step, progress: progress)
                let sustained = Self.sustained(step, result)
                var figures = Self.figures(step, result)
                figures["sustained"] = sustained
                steps.append(figures)
                if sustained {
                    good = next
                    if best.map({ result.messagesPerSecond > $0.1.messagesPerSecond }) ?? true { best = (step, result) }
                } else {
                    bad = next
                }
                if let bad, let good {
                    // Bisect (geometrically) until the bounds are within 15 %.
                    guard bad / good > 1.15 else { break }
                    next = (good * bad).squareRoot()
                } else if bad != nil {
                    break  // even the first rate fails
                } else {
                    next *= 2
                }
            }
            out["steps"] = steps
            out["findMax"] = true
            if let (step, result) = best {
                out.merge(Self.figures(step, result)) { $1 }
                out["maxSustainedMessagesPerSecond"] = Int(result.messagesPerSecond.rounded())
                out["maxSustainedRatePerPairPerMinute"] = figure(step.rate, 2)
            } else {
                out["maxSustainedMessagesPerSecond"] = NSNull()
            }
        }
        let json = try JSONSerialization.data(withJSONObject: out, options: [.prettyPrinted, .sortedKeys])
        FileHandle.standardOutput.write(json)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    /// Sustained: the publisher kept the rate (within 3 %), nothing dropped, lag p99 under 1 s.
    static func sustained(_ options: FleetLoadTest.Options, _ result: FleetLoadTest.Result) -> Bool {
        result.dropped == 0 && result.messagesPerSecond >= 0.97 * options.messagesPerSecond
            && result.lagPercentileMs(0.99) < 1_000
    }

    static func figures(_ options: FleetLoadTest.Options, _ result: FleetLoadTest.Result) -> [String: Any] {
        var out: [String: Any] = [
            "nodes": options.layout.nodes,
            "beacons": options.layout.beacons,
            "ratePerPairPerMinute": figure(options.rate, 3),
            "targetMessagesPerSecond": figure(options.messagesPerSecond, 1),
            "messagesPerSecond": figure(result.messagesPerSecond, 1),
            "messagesPublished": result.messagesPublished,
            "moveMessages": result.moveMessages,
            "durationSeconds": figure(result.seconds, 1),
            "warmUpSeconds": figure(result.warmUpSeconds, 1),
            "moves": result.moves,
            "decisionLagP50Ms": figure(result.lagPercentileMs(0.5), 1),
            "decisionLagP99Ms": figure(result.lagPercentileMs(0.99), 1),
            "decisionLagMaxMs": figure(result.lagsMs.max() ?? .nan, 1),
            "decisionLagMinMs": figure(result.lagsMs.min() ?? .nan, 1),
            // The lag split at the aggregator's decision (its location's `since`): waiting to decide
            // (transport in, the decision's own evidence beyond the dwell, the tick), then publishing.
            "decidingP50Ms": figure(FleetLoadTest.Result.percentile(result.decidingMs, 0.5), 1),
            "decidingP99Ms": figure(FleetLoadTest.Result.percentile(result.decidingMs, 0.99), 1),
            "publishingP50Ms": figure(FleetLoadTest.Result.percentile(result.publishingMs, 0.5), 1),
            "publishingP99Ms": figure(FleetLoadTest.Result.percentile(result.publishingMs, 0.99), 1),
            // The waiting split at the rules' own switch (the bench's decider, evaluated every 10 ms):
            // the rules' own wait beyond the dwell, then the service's (transport in, queue, tick).
            "decidingRulesP50Ms": figure(FleetLoadTest.Result.percentile(result.ownMs, 0.5), 1),
            "decidingRulesP99Ms": figure(FleetLoadTest.Result.percentile(result.ownMs, 0.99), 1),
            "decidingServiceP50Ms": figure(FleetLoadTest.Result.percentile(result.toDecisionMs, 0.5), 1),
            "decidingServiceP99Ms": figure(FleetLoadTest.Result.percentile(result.toDecisionMs, 0.99), 1),
            "movesSplitAtTheRules": result.ownMs.count,
            "movesAggregatorBeforeTheRules": result.toDecisionMs.filter { $0 < 0 }.count,
            "movesTheRulesNeverSwitched": result.movesRulesNever,
            "late": result.late,
            "dropped": result.dropped,
            "undecidedMoves": result.undecidedMoves,
            "publishFailures": result.publishFailures,
            "brokerDropped": result.brokerDropped.map { $0 as Any } ?? NSNull(),
            "aggregatorPublicationFailures": result.aggregatorPublicationFailures,
            "aggregatorPublicationFailuresWarmUp": result.aggregatorPublicationFailuresWarmUp,
            "aggregatorResidentMB": figure(Double(result.aggregatorResidentBytes) / 1_048_576, 1),
            "aggregatorPeakResidentMB": figure(Double(result.aggregatorPeakResidentBytes) / 1_048_576, 1),
            "aggregatorCPUPercent": figure(100 * result.aggregatorCPUSeconds / max(result.seconds, 1e-9), 1),
            "aggregatorCPUMicrosecondsPerMessage": figure(1e6 * result.aggregatorCPUSeconds / Double(max(result.messagesPublished, 1)), 1),
            "aggregatorUserCPUMicrosecondsPerMessage": figure(1e6 * result.aggregatorUserCPUSeconds / Double(max(result.messagesPublished, 1)), 1),
            "aggregatorSystemCPUMicrosecondsPerMessage": figure(1e6 * result.aggregatorSystemCPUSeconds / Double(max(result.messagesPublished, 1)), 1),
            "brokerCPUPercent": figure(100 * result.brokerCPUSeconds / max(result.seconds, 1e-9), 1),
            "aggregatorLogLinesPerMinute": figure(result.aggregatorLogLinesPerMinute, 1),
            "aggregatorLogLinesMaxPerSecondPerKind": result.aggregatorLogLinesMaxPerSecondPerKind,
        ]
        if result.aggregatorExitStatus != 0 {
            out["aggregatorExitStatus"] = Int(result.aggregatorExitStatus)
        }
        if !result.aggregatorLogTail.isEmpty { out["aggregatorLog"] = result.aggregatorLogTail }
        return out
    }
}

/// How `fleet`'s aggregator reaches the broker (`--aggregator-transport`).
enum AggregatorTransport: String, ExpressibleByArgument, CaseIterable {
    /// `mqtt://127.0.0.1:<port>`, as before.
    case tcp
    /// `unix://<the broker's directory>/socket/mosquitto.sock`.
    case unix
}
