import ArgumentParser
import BeaconCore
import FoundationEssentials
import IdentityCrypto

/// `presence-agent irk`: enrolment of phones and watches (Sources/PresenceAgent/PresenceAgent.docc/PhonesAndWatches.md).
struct IRKCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "irk",
        abstract: "Phones and watches known by their Identity Resolving Key.",
        subcommands: [IRKImportCommand.self]
    )
}

/// `presence-agent irk import`: the key of a device paired with `bluetoothctl`, read from BlueZ's
/// bond store, printed as the `config/beacons` entry (and its canonical id) for the operator to
/// add to the retained list. Nothing is published: the entry carries the key, and where it goes
/// is the operator's choice.
struct IRKImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Print the config/beacons entry of a device paired with bluetoothctl (its key from BlueZ's bond store).",
        discussion: """
            DEVICE is the device's identity address as bluetoothctl shows it after pairing \
            (AA:BB:CC:DD:EE:FF; looked up under every adapter of --bluez-dir), or the path of its info file. \
            Needs read access to the bond store (root). The entry carries the key: paste it into \
            <root>/config/beacons (operator account) or the agent's YAML `beacons`, not into a chat or a ticket. \
            Exit status 2 when the file is missing or holds no key.
            """
    )

    @Argument(help: "The paired device's address, or the path of its BlueZ info file.")
    var device: String

    @Option(name: .long, help: "The alias its topics use, e.g. alice-phone (required: docs/MQTT.md).")
    var id: String

    @Option(name: .long, help: "A display name (default: the name BlueZ stored).")
    var name: String?

    @Option(name: .long, help: "BlueZ's storage directory.")
    var bluezDir = "/var/lib/bluetooth"

    func validate() throws {
        guard TopicLevelID(id) != nil else { throw ValidationError("--id '\(id)' must be \(TopicLevelID.rule)") }
    }

    func run() throws {
        let path = try infoPath()
        guard let data = FileManager.default.contents(atPath: path) else {
            exitWithError("\(path): cannot read it (run as root: BlueZ keeps its bond store readable by root only)")
        }
        let bond: BlueZBondFile
        do {
            bond = try BlueZBondFile(parsing: String(decoding: data, as: UTF8.self))
        } catch {
            exitWithError("\(path): \(error)")
        }
        var entry = JSONObjectWriter()
        entry.add("irk", bond.key.specOrderHex)
        entry.add("id", id)
        if let shown = name ?? bond.name { entry.add("name", String(shown.prefix(KnownBeacon.maximumNameLength))) }
        print(entry.json)
        let canonical = BeaconID(bond.key.canonicalID(sha256: LibCrypto().sha256))
        printError("add this entry to <root>/config/beacons; the device's measurements will carry \"beacon\":\"\(canonical)\"")
    }

    /// The info file: the argument itself, or `<bluez-dir>/<adapter>/<DEVICE>/info` for an address.
    private func infoPath() throws -> String {
        guard let address = BluetoothAddress(device), !device.contains("/") else { return device }
        let folder = address.description.uppercased()
        let adapters = (try? FileManager.default.contentsOfDirectory(atPath: bluezDir)) ?? []
        let found = adapters.sorted().map { "\(bluezDir)/\($0)/\(folder)/info" }.filter { FileManager.default.fileExists(atPath: $0) }
        guard let first = found.first else {
            exitWithError("no bond for \(folder) under \(bluezDir) (pair it first: bluetoothctl, then pair \(folder))")
        }
        return first
    }
}
