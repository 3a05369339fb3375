import ArgumentParser
import BeaconCore
import Foundation
import Logging
import PresenceAggregator
import ServiceLifecycle

/// `presence-aggregator watch`: a live terminal view of any deployment, read from its topics only.
/// Parses the flags (broker, account and TLS are checked as `run` checks them) and runs
/// `WatchService`; SIGINT and SIGTERM end it with status 0.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Shows rooms, beacons, nodes (with their calibration) and events of a deployment live, from its MQTT topics.",
        discussion: """
            Redraws in place on a terminal; prints plain snapshots (one per change, at most one a second) \
            when standard output is not a terminal. Only reads: needs an account that may read <root>/#.
            """
    )

    @OptionGroup var brokerOptions: BrokerOptions

    @Flag(help: "Print one snapshot once the retained state has arrived, and exit.")
    var once = false

    @Option(help: "Stop after this many seconds.")
    var duration: Double?

    func validate() throws {
        if let duration, !(duration.isFinite && duration > 0) {
            throw ValidationError("--duration must be a positive number of seconds")
        }
    }

    func run() async throws {
        let flags = brokerOptions.flags
        let configuration: AggregatorConfiguration
        do {
            configuration = try AggregatorConfiguration.load(
                file: nil, environment: ProcessInfo.processInfo.environment, flags: flags)
        } catch {
            StandardOutput.error(error.lines(prefix: "watch: "))
            throw ExitCode(2)
        }

        let connection = WatchService.connectionOptions(
            for: configuration, clientID: "presence-watch-\(ProcessInfo.processInfo.processIdentifier)")
        var options = WatchService.Options(
            connection: connection, topics: configuration.topics,
            title: "\(configuration.topics.root) @ \(configuration.broker)",
            terminal: isatty(STDOUT_FILENO) == 1 && !once, once: once, duration: duration)
        options.motion = configuration.motion

        var logger = Logger(label: "presence-watch")
        logger.logLevel = .critical
        let service = WatchService(
            options: options, logger: logger, output: { Self.write($0) }, screenSize: Self.screenSize,
            now: { Instant(seconds: Date().timeIntervalSince1970) })
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: service, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            StandardOutput.error("watch: \(configuration.broker): \(error)\n")
            throw ExitCode(1)
        }
    }

    @Sendable private static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// The terminal's columns and rows (80 × 24 when unknown).
    @Sendable private static func screenSize() -> (columns: Int, rows: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24) }
        return (Int(size.ws_col), Int(size.ws_row))
    }
}
