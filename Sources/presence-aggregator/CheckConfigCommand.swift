import ArgumentParser
import ConfigFile
import Foundation
import PresenceAggregator

/// `presence-aggregator check-config`: loads the configuration exactly as `run` does (same flags,
/// same loader, same checks) and prints each effective setting with where it came from, or every
/// mistake with its key and line — the check to run before deploying.
struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Check the configuration (file, PRESENCE_* environment, flags) and print the effective settings.",
        discussion: """
            Takes every configuration flag of `run`. Prints one line per setting: its key, its effective value \
            (the password only as (set), or its file's path) and where it came from: default, FILE:LINE, an \
            environment variable or a flag. Exit status 0 when `run` would accept the configuration; otherwise \
            every mistake is named on stderr (key and line) and the status is 2. Nothing is opened: no broker.
            """
    )

    @OptionGroup var options: AggregatorOptions

    func run() throws {
        let loaded = AggregatorConfigurationLoad(
            file: options.configFile, environment: ProcessInfo.processInfo.environment, flags: options.flags)
        let report = CheckConfigReport(
            settings: loaded.effectiveSettings, errors: loaded.errors.map(\.description),
            warnings: loaded.warnings.map(\.description), errorPrefix: "check-config: ", warningPrefix: "check-config: warning: ")
        print(report.standardOutput, terminator: "")
        StandardOutput.error(report.standardError)
        if report.status != 0 { throw ExitCode(report.status) }
    }
}
