import ArgumentParser
import BeaconCore
import RoomDecisions
import PresenceAggregator

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `presence-aggregator replay`: runs a recorded trace through the agent's tracking and the
/// aggregator's room decision on the trace's own clock, as fast as the CPU allows (docs/Files.md).
/// `--config` takes the live aggregator's YAML file (etc/presence-aggregator.yaml); its `decision`
/// settings and its known `beacons` (`awayTimeout`) matter to a replay, as live.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replays an RSSI trace (CSV) through the node filter and the room decision; writes CSV to stdout."
    )

    enum Output: String, ExpressibleByArgument, CaseIterable {
        case decisions
        case measurements
        case published
    }

    @Option(help: "The trace: CSV with columns time,node,room,beacon,rssi[,measuredPower].")
    var trace: String

    @Option(name: .customLong("config"), help: "The aggregator's YAML configuration; its decision settings and known beacons (awayTimeout) are used.")
    var configFile: String?

    @Option(help: "decisions (time,beacon,room,distance), measurements (one row per sample after the node's filter) or published (what the nodes published, as run --record writes it).")
    var output: Output = .decisions

    @Option(help: "A site model (presence-aggregator learn): decide with it, falling back on the physics decision.")
    var model: String?

    @Option(help: "Path-loss exponent n of every node's distance model.")
    var pathLossExponent: Double?

    @Option(help: "RSSI offset (dB) of every node's distance model.")
    var rssiOffset: Double?

    func validate() throws {
        if let pathLossExponent, !(pathLossExponent.isFinite && pathLossExponent > 0) {
            throw ValidationError("--path-loss-exponent must be a positive number")
        }
        if let rssiOffset, !rssiOffset.isFinite {
            throw ValidationError("--rssi-offset must be a number")
        }
    }

    func run() throws {
        var tracking = TrackingParameters.default
        if let pathLossExponent { tracking.distance.pathLossExponent = pathLossExponent }
        if let rssiOffset { tracking.distance.rssiOffset = rssiOffset }
        var decision = RoomDecisionParameters.default
        var motionParameters = MotionParameters.default
        var knownBeacons: [KnownBeacon] = []
        if let configFile {
            do {
                let configuration = try AggregatorConfiguration.load(file: configFile, environment: [:], flags: [:])
                decision = configuration.decision
                motionParameters = configuration.motionDecision
                knownBeacons = configuration.knownBeacons
                for warning in configuration.warnings { StandardOutput.error("replay: warning: \(warning)\n") }
            } catch {
                StandardOutput.error(error.lines(prefix: "replay: "))
                throw ExitCode(2)
            }
        }
        var siteModel: SiteModel?
        if let model {
            do {
                var warnings: [String] = []
                siteModel = try SiteModelFile.load(path: model, warnings: &warnings)
                for warning in warnings { StandardOutput.error("replay: warning: \(warning)\n") }
            } catch {
                StandardOutput.error("replay: \(error)\n")
                throw ExitCode(2)
            }
        }
        let mode: TraceReplayRunner.Output
        switch output {
        case .decisions: mode = .decisions
        case .measurements: mode = .measurements
        case .published: mode = .published
        }
        // The recording's motion sensors, when a NAME.motion.csv lies beside it.
        let motion: [MotionSample]
        do {
            motion = try TraceFile.motion(besideTrace: trace) ?? []
        } catch {
            StandardOutput.error("replay: \(error)\n")
            throw ExitCode(2)
        }
        var writer = StandardOutput()
        do {
            let summary = try TraceReplayRunner.run(
                path: trace, output: mode, tracking: tracking, decision: decision,
                knownBeacons: knownBeacons, model: siteModel, motion: motion,
                motionParameters: motionParameters
            ) { writer.write($0) }
            writer.flush()
            if !summary.absentNodes.isEmpty {
                StandardOutput.error("replay: site model: node(s) \(summary.absentNodes.joined(separator: ", ")) not heard from when "
                    + "deciding started (off?); the model decides with its other nodes and takes each in once it is heard\n")
            }
            for node in summary.unknownNodes {
                StandardOutput.error("replay: site model: node '\(node)' is not in the model; its measurements are left to the physics decision\n")
            }
            if summary.reorderedLines > 0 {
                StandardOutput.error("replay: \(summary.reorderedLines) line(s) up to 10 ms out of order were taken at the previous time\n")
            }
        } catch let error as TraceError {
            writer.flush()
            StandardOutput.error("replay: \(trace): \(error)\n")
            throw ExitCode(2)
        } catch {
            writer.flush()
            StandardOutput.error("replay: \(error)\n")
            throw ExitCode(2)
        }
    }
}

/// Buffered standard output: one write per 64 KiB, not per line.
struct StandardOutput {
    private var buffer: [UInt8] = []

    mutating func write(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        Self.writeAll(buffer, to: 1)
        buffer.removeAll(keepingCapacity: true)
    }

    static func error(_ text: String) {
        writeAll(Array(text.utf8), to: 2)
    }

    /// write(2) until done, retrying on EINTR; gives up on any other error (e.g. a closed pipe).
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count, let base = raw.baseAddress {
                let written = systemWrite(descriptor, base + offset, raw.count - offset)
                if written > 0 { offset += written } else if written < 0, errno == EINTR { continue } else { return }
            }
        }
    }
}

#if canImport(Glibc)
private let systemWrite = Glibc.write
#elseif canImport(Musl)
private let systemWrite = Musl.write
#elseif canImport(Darwin)
private let systemWrite = Darwin.write
#endif
