import ArgumentParser
import BeaconCore
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

    @Option(name: .long, help: "YAML configuration file.")
    var config: String?
    @Option(name: .long, help: "This receiver's id, e.g. kitchen-1.")
    var node: String?
    @Option(name: .long, help: "The room it serves, e.g. kitchen.")
    var room: String?
    @Option(name: .long, help: "mqtt://host[:port] or mqtts://host[:port].")
    var broker: String?
    @Option(name: .long, help: "Broker user name.")
    var username: String?
    @Option(name: .long, help: "File holding the broker password.")
    var passwordFile: String?
    @Option(name: .long, help: "CA certificate file for TLS.")
    var caFile: String?
    @Option(name: .long, help: "Client certificate file for TLS.")
    var certFile: String?
    @Option(name: .long, help: "Client key file for TLS.")
    var keyFile: String?
    @Option(name: .long, help: "Topic root (default presence).")
    var root: String?
    @Option(name: .long, help: "hci0, hci:N, uart:PATH[@BAUD], btsnoop:FILE or simulate[:FILE] (default hci0).")
    var source: String?
    @Option(name: .long, help: "Replay pace for captures and the simulator: 1 real time, 0 as fast as possible.")
    var speed: Double?
    @Option(name: .long, help: "Where the applied configuration is kept (default /var/lib/presence-agent).")
    var stateDir: String?
    @Flag(name: .long, help: "Measure every decodable beacon (discovery mode).")
    var reportUnknown = false
    @Option(name: .long, help: "At most this many beacons tracked at once (default 10000); known beacons always are.")
    var maxTrackedBeacons: Int?
    @Flag(name: .long, help: "With a capture: publish what is left, say offline and exit at its end.")
    var exitAtEnd = false
    @Option(name: .long, help: "Also write what this node measures to FILE as a trace, for presence-aggregator replay.")
    var record: String?
    @Option(name: .long, help: "How long a capture or simulation waits for the retained configuration before starting, seconds (default 10).")
    var waitForConfig: Double?

    func run() async throws {
        var settings = AgentConfiguration()
        let resolved: AgentConfiguration.Resolved
        do {
            if let config {
                guard let text = try? String(contentsOfFile: config, encoding: .utf8) else {
                    throw AgentConfiguration.Error("--config", "cannot read '\(config)'")
                }
                try settings.apply(yaml: text, file: config)
            }
            settings.apply(environment: ProcessInfo.processInfo.environment)
            if let node { settings.node = node }
            if let room { settings.room = room }
            if let broker { settings.broker = broker }
            if let username { settings.username = username }
            if let passwordFile { settings.passwordFile = passwordFile }
            if let caFile { settings.caFile = caFile }
            if let certFile { settings.certFile = certFile }
            if let keyFile { settings.keyFile = keyFile }
            if let root { settings.root = root }
            if let source { settings.source = source }
            if let speed { settings.speed = speed }
            if let stateDir { settings.stateDir = stateDir }
            if reportUnknown { settings.reportUnknown = true }
            if let maxTrackedBeacons { settings.maxTrackedBeacons = maxTrackedBeacons }
            if exitAtEnd { settings.exitAtEnd = true }
            if let record { settings.record = record }
            if let waitForConfig { settings.configurationWait = waitForConfig }
            resolved = try settings.resolve { try? String(contentsOfFile: $0, encoding: .utf8) }
        } catch let error as AgentConfiguration.Error {
            exitWithError(error.description)
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
