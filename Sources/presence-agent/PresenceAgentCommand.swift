import ArgumentParser
import PresenceAgent

@main
struct PresenceAgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presence-agent",
        abstract: "Scans Bluetooth LE beacons and publishes room presence over MQTT.",
        subcommands: [RunCommand.self, CheckConfigCommand.self, ScanCommand.self, CalibrateCommand.self, IRKCommand.self]
    )

    /// The allocator is set up before anything else runs (`MemoryRelief.configureAllocator`):
    /// main's first statements run on the main thread, before the cooperative pool exists.
    static func main() async {
        MemoryRelief.configureAllocator()
        await main(nil)
    }
}
