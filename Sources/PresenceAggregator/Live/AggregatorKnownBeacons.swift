import BeaconCore
import IdentityCrypto

/// The beacons the aggregator knows: its own file's `beacons:` list merged with the list the
/// operator pushes on the retained `<root>/config/beacons` (docs/MQTT.md), which the agents follow too.
///
/// - The file's entries win, whole, for the beacons they name: the file is this aggregator's own
///   word, and `check-config` shows it. The pushed list supplies every other beacon.
/// - A pushed message is validated by the agents' own parser (`KnownBeaconsConfig.parse`), as a
///   whole. A valid one replaces the previous pushed list (its entries that are gone stop being
///   known, unless the file names them); an invalid one throws the `ConfigError` that names the
///   field and changes nothing, so the last good list stays in force; an empty one (the operator
///   cleared the topic) means no pushed list.
/// - A phone or watch pushed by its key (`irk`) is known by the canonical id cut from the key; the
///   key itself is dropped as soon as the message is read: the aggregator resolves no addresses.
public struct AggregatorKnownBeacons: Sendable {
    /// The aggregator's own file's entries.
    public let file: [KnownBeacon]
    /// The pushed list in force, as pushed but without keys; nil when none (never pushed, or cleared).
    public private(set) var pushed: KnownBeaconsConfig?
    /// The pushed entries in force that are used otherwise than pushed, one each, for the log: the
    /// file names the beacon, its id is taken by the file, or its `awayTimeout` was cut to `forgetAfter`.
    public private(set) var notes: [ConfigError] = []
    /// What is in force, by canonical id.
    public private(set) var byBeacon: [BeaconID: KnownBeacon] = [:]
    /// The aggregator's `forgetAfter` (0: never forget), which bounds a pushed `awayTimeout`.
    let forgetAfter: Double

    /// SHA-256, for the canonical id of a device pushed by its key (the agents use the same).
    private static let crypto = LibCrypto()

    /// The file's entries alone: no pushed list yet.
    public init(file: [KnownBeacon], forgetAfter: Double) {
        self.file = file
        self.forgetAfter = forgetAfter
        merge()
    }

    /// A message of `<root>/config/beacons`: applied when valid (empty: the pushed list is
    /// dropped); otherwise throws the error that names the field and changes nothing.
    public mutating func apply(_ payload: [UInt8]) throws(ConfigError) {
        switch try KnownBeaconsConfig.parse(payload, crypto: Self.crypto) {
        case .cleared:
            pushed = nil
        case .replaced(var config):
            for index in config.beacons.indices { config.beacons[index].irk = nil }
            pushed = config
        }
        merge()
    }

    /// `byBeacon` and `notes` from the file and the pushed list.
    private mutating func merge() {
        var known: [BeaconID: KnownBeacon] = [:]
        // The first entry of a beacon wins, as the core always read the file.
        for entry in file where known[entry.beacon] == nil { known[entry.beacon] = entry }
        // Every topic level the file's beacons use or could use: a pushed alias must not take one.
        let fileLevels = Set(file.map(\.topicID) + file.map(\.beacon.rawValue))
        var notes: [ConfigError] = []
        for (position, pushedEntry) in (pushed?.beacons ?? []).enumerated() {
            let path = FieldPath.root.appending("beacons").appending(index: position)
            var entry = pushedEntry
            if known[entry.beacon] != nil {
                notes.append(ConfigError(.duplicate, path: path,
                    message: "'\(entry.beacon)' is in this aggregator's own beacons list, whose entry is used"))
                continue
            }
            if fileLevels.contains(entry.topicID) {
                notes.append(ConfigError(.duplicate, path: path.appending("id"),
                    message: "'\(entry.topicID)' is the id of a beacon in this aggregator's own beacons list; entry not used"))
                continue
            }
            // The file refuses an awayTimeout longer than forgetAfter (check-config), but the agents
            // have already applied this message: refusing it here too would leave the aggregator
            // naming devices otherwise than its agents over one timeout. So the rest applies and
            // the timeout is cut to forgetAfter, the longest this site waits for anything unheard.
            if forgetAfter > 0, let away = entry.awayTimeout, away > forgetAfter {
                entry.awayTimeout = forgetAfter
                notes.append(ConfigError(.outOfRange, path: path.appending("awayTimeout"),
                    message: "\(JSONObjectWriter.number(away, decimals: 3)) is longer than this aggregator's forgetAfter (\(JSONObjectWriter.number(forgetAfter, decimals: 3))), which is used instead"))
            }
            known[entry.beacon] = entry
        }
        byBeacon = known
        self.notes = notes
    }
}
