import ArgumentParser
import ConfigFile
import Foundation
import PresenceAggregator

/// `presence-aggregator check-config`: loads the configuration exactly as `run` does (same flags,
/// same loader, same checks) and prints each effective setting with where it came from, or every
/// mistake with its key and line — the check to run before deploying. It also shows the node
/// calibration kept in `stateDir`: each node's offset, and whether the aggregator applies it.
struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Check the configuration (file, PRESENCE_* environment, flags) and print the effective settings.",
        discussion: """
            Takes every configuration flag of `run`. Prints one line per setting: its key, its effective value \
            (the password only as (set), or its file's path) and where it came from: default, FILE:LINE, an \
            environment variable or a flag. Exit status 0 when `run` would accept the configuration; otherwise \
            every mistake is named on stderr (key and line) and the status is 2. Last come the node calibration             kept in stateDir (calibration.<node>: each node's offset and whether it is applied). Nothing is             opened: no broker.
            """
    )

    @OptionGroup var options: AggregatorOptions

    func run() throws {
        let loaded = AggregatorConfigurationLoad(
            file: options.configFile, environment: ProcessInfo.processInfo.environment, flags: options.flags)
        // The calibration the aggregator would start from: what it applies to each node until its next solve.
        let kept = loaded.configuration.stateDir + "/" + NodeCalibrationFile.name
        let calibration = Result { () throws(NodeCalibrationFile.Failure) in try NodeCalibrationFile.load(path: kept) }
        var warnings = loaded.warnings.map(\.description)
        if case .failure(let failure) = calibration { warnings.append("\(failure): not shown; an aggregator that cannot read it either solves it again from the adverts") }
        let report = CheckConfigReport(
            settings: loaded.effectiveSettings + NodeCalibrationSettings.rows(calibration, path: kept), errors: loaded.errors.map(\.description),
            warnings: warnings, errorPrefix: "check-config: ", warningPrefix: "check-config: warning: ")
        print(report.standardOutput, terminator: "")
        StandardOutput.error(report.standardError)
        if report.status != 0 { throw ExitCode(report.status) }
    }
}
