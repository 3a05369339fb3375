import ArgumentParser
import ConfigFile
import FoundationEssentials
import PresenceAgent
#if canImport(Glibc)
import Glibc
#endif

/// The configuration flags `run` and `check-config` share, and the one loader both use (file, then
/// `PRESENCE_*` environment, then flags), so what `check-config` accepts `run` accepts.
struct AgentOptions: ParsableArguments {
    @Option(name: .long, help: "YAML configuration file.")
    var config: String?
    @Option(name: .long, help: "This receiver's id, e.g. kitchen-1.")
    var node: String?
    @Option(name: .long, help: "The room it serves, e.g. kitchen.")
    var room: String?
    @Option(name: .long, help: "mqtt://host[:port], mqtts://host[:port] or unix:///path/to/socket.")
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


    /// The file, the environment, then the flags, each value remembering where it came from (the
    /// flag's name is the one `AgentConfiguration.settings` gives the setting); mistakes are
    /// collected in `problems` for `resolve` to report, all of them.
    func configuration(environment: [String: String] = ProcessInfo.processInfo.environment) -> AgentConfiguration {
        var settings = AgentConfiguration()
        if let config { settings.apply(file: config) }
        settings.apply(environment: environment)
        if let node { settings.set(\.node, to: node, flagOf: "node") }
        if let room { settings.set(\.room, to: room, flagOf: "room") }
        if let broker { settings.set(\.broker, to: broker, flagOf: "broker.url") }
        if let username { settings.set(\.username, to: username, flagOf: "broker.username") }
        if let passwordFile { settings.set(\.passwordFile, to: passwordFile, flagOf: "broker.passwordFile") }
        if let caFile { settings.set(\.caFile, to: caFile, flagOf: "broker.caFile") }
        if let certFile { settings.set(\.certFile, to: certFile, flagOf: "broker.certFile") }
        if let keyFile { settings.set(\.keyFile, to: keyFile, flagOf: "broker.keyFile") }
        if let root { settings.set(\.root, to: root, flagOf: "root") }
        if let source { settings.set(\.source, to: source, flagOf: "source") }
        if let speed { settings.set(\.speed, to: speed, flagOf: "speed") }
        if let stateDir { settings.set(\.stateDir, to: stateDir, flagOf: "stateDir") }
        if reportUnknown { settings.set(\.reportUnknown, to: true, flagOf: "reportUnknown") }
        if let maxTrackedBeacons { settings.set(\.maxTrackedBeacons, to: maxTrackedBeacons, flagOf: "maxTrackedBeacons") }
        if exitAtEnd { settings.set(\.exitAtEnd, to: true, flagOf: "exitAtEnd") }
        if let record { settings.set(\.record, to: record, flagOf: "record") }
        if let waitForConfig { settings.set(\.configurationWait, to: waitForConfig, flagOf: "waitForConfig") }
        return settings
    }
}

/// Every mistake on its own `error:` line, then exit status 2 (as a bad flag).
func exitWithErrors(_ problems: AgentConfiguration.Problems) -> Never {
    for error in problems.errors { printError("error: " + error.description) }
    Glibc.exit(2)
}
