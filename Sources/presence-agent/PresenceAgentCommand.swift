import ArgumentParser

@main
struct PresenceAgentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presence-agent",
        abstract: "Scans Bluetooth LE beacons and publishes room presence over MQTT.",
        subcommands: [ScanCommand.self]
    )
}
