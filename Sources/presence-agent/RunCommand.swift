import ArgumentParser
import FoundationEssentials
import Logging
import PresenceAgent
import ServiceLifecycle

/// `presence-agent run`: parse, build the configuration (file < environment < flags), wire the service.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Scan and publish presence to MQTT until stopped.",
        discussion: """
            The raw HCI socket needs CAP_NET_RAW, and CAP_NET_ADMIN to power a down adapter up (the systemd unit in etc/ grants both). \
            Configuration: --config FILE (YAML, see etc/presence-agent.yaml), then PRESENCE_* environment \
            variables, then these flags.
            """
    )

    @OptionGroup var options: AgentOptions

    func run() async throws {
        let resolved: AgentConfiguration.Resolved
        do {
            resolved = try options.configuration().resolve { try? String(contentsOfFile: $0, encoding: .utf8) }
        } catch {
            exitWithErrors(error)
        }

        var logger = Logger(label: "presence-agent")
        logger.logLevel = .info
        let service = AgentService(configuration: resolved, logger: logger, version: PresenceAgentVersion.current)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                // The service ends by itself only after a capture with --exit-at-end: that is success.
                services: [.init(service: service, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        do {
            try await group.run()
        } catch {
            exitWithError("\(error)")
        }
    }
}
