import ArgumentParser

@main
struct PresenceAgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presence-agent",
        abstract: "Scans Bluetooth LE beacons and publishes room presence over MQTT.",
        subcommands: [RunCommand.self, ScanCommand.self]
    )
}
