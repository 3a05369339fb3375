import ArgumentParser
import BeaconCore
import Foundation
import Logging
import PresenceAggregator
import RoomDecisions
import ServiceLifecycle

/// `presence-aggregator run`: the live aggregator. Parses flags, loads the configuration (file,
/// then environment, then flags) and runs `AggregatorService` in a `ServiceGroup` that turns
/// SIGTERM and SIGINT into a graceful shutdown (`offline`, flush, disconnect).
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Decides each beacon's room from the nodes' measurements on the broker and publishes locations.",
        discussion: """
            Settings come from the YAML file (--config), then PRESENCE_* environment variables, then flags. \
            See etc/presence-aggregator.yaml for every setting and its default.
            """
    )

    /// The version shown in Home Assistant's device info.
    static let softwareVersion = "0.1.0"

    @OptionGroup var options: AggregatorOptions

    @Option(help: "Write every measurement received to this file as a recorded trace (docs/Files.md), on the clock `label` uses; with motion sensors configured, their changes beside it (NAME.motion.csv).")
    var record: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    func run() async throws {
        guard let level = Logger.Level(rawValue: logLevel) else {
            StandardOutput.error("run: --log-level: '\(logLevel)' is not one of trace, debug, info, notice, warning, error, critical\n")
            throw ExitCode(2)
        }
        let configuration: AggregatorConfiguration
        do {
            configuration = try AggregatorConfiguration.load(
                file: options.configFile, environment: ProcessInfo.processInfo.environment, flags: options.flags)
        } catch {
            StandardOutput.error(error.lines(prefix: "run: "))
            throw ExitCode(2)
        }
        var recorder: MeasurementRecorder?
        if let record {
            do {
                recorder = try MeasurementRecorder(path: record)
            } catch {
                StandardOutput.error("run: --record: \(error)\n")
                throw ExitCode(2)
            }
        }
        var motionRecorder: MotionRecorder?
        if let record, !configuration.motion.isEmpty {
            do {
                motionRecorder = try MotionRecorder(path: MotionFileParser.path(besideTrace: record))
            } catch {
                StandardOutput.error("run: --record: \(error)\n")
                throw ExitCode(2)
            }
        }
        var logger = Logger(label: "presence-aggregator")
        logger.logLevel = level
        let service = AggregatorService(configuration: configuration, logger: logger, softwareVersion: Self.softwareVersion,
                                        recorder: recorder, motionRecorder: motionRecorder)
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: service)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
