import ArgumentParser
import ConfigFile
import PresenceAgent
#if canImport(Glibc)
import Glibc
#endif

/// `presence-agent check-config`: reads the configuration exactly as `run` does (same flags, same
/// loader, same checks) and prints each effective setting with where it came from, or every
/// mistake with its key and line — the check to run before deploying a node.
struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Check the configuration (file, PRESENCE_* environment, flags) and print the effective settings.",
        discussion: """
            Takes every flag of `run`. Prints one line per setting: its key, its effective value (the password \
            only as (set)) and where it came from: default, FILE:LINE, an environment variable or a flag. Exit \
            status 0 when `run` would accept the configuration; otherwise every mistake is named on stderr \
            (key and line) and the status is 2. Nothing is opened: no adapter, no broker.
            """
    )

    @OptionGroup var options: AgentOptions

    func run() throws {
        let configuration = options.configuration()
        var errors: [String] = []
        do {
            _ = try configuration.resolve { try? String(contentsOfFile: $0, encoding: .utf8) }
        } catch {
            errors = error.errors.map(\.description)
        }
        let report = CheckConfigReport(settings: configuration.effectiveSettings, errors: errors, errorPrefix: "error: ")
        print(report.standardOutput, terminator: "")
        writeAll(report.standardError, to: STDERR_FILENO)
        if report.status != 0 { Glibc.exit(report.status) }
    }
}
