import BeaconCore

/// `presence-agent scan --suggest`: what a source heard, as the `config/beacons` entries that make
/// a node measure it — YAML for the agent's file and the `mosquitto_pub` line for the broker —
/// strongest first, each identity heard from several addresses flagged.
///
/// Only beacons with an identity of their own (iBeacon, AltBeacon, Eddystone-UID) are suggested:
/// anything else is known by its address, which phones and most tags change every few minutes.
public struct ScanSuggestions: Sendable {
    /// One identity heard.
    public struct Heard: Sendable {
        public var beacon: BeaconID
        public var format: String
        /// Every address it came from (at most `addressCap`), the strongest first once sorted.
        public var addresses: [BluetoothAddress: Int] = [:]
        public var adverts = 0
        public var rssiSum = 0
        public var strongest = Int.min
        public var measuredPower: Int?

        /// Mean RSSI of its adverts with one, dBm; nil when none had an RSSI.
        public var meanRSSI: Int? {
            adverts == 0 ? nil : Int((Double(rssiSum) / Double(adverts)).rounded())
        }
        /// Several devices send this one identity: the agent would take them for one beacon.
        public var isShared: Bool { addresses.count > 1 }
    }

    /// The most identities kept (a flood of random ids must not grow this without bound).
    static let identityCap = 4_096
    /// The most addresses kept per identity and names remembered per address.
    static let addressCap = 64
    static let nameCap = 16_384

    private var heard: [BeaconID.Components: Heard] = [:]
    /// Advertised local names by address: a beacon's name often comes in another report than its
    /// identity (the scan response or the other way round).
    private var names: [BluetoothAddress: String] = [:]
    public private(set) var adverts = 0

    public init() {}

    public mutating func add(_ advertisement: DecodedAdvertisement) {
        adverts += 1
        let report = advertisement.report
        if names.count < Self.nameCap, names[report.address] == nil, let name = AdvertisingData(report.data).localName {
            names[report.address] = name
        }
        guard let beacon = advertisement.beacon, let identity = beacon.advertisedComponents else { return }
        if heard[identity] == nil {
            guard heard.count < Self.identityCap else { return }
            heard[identity] = Heard(beacon: BeaconID(identity), format: beacon.kind.name)
        }
        heard[identity]!.measuredPower = beacon.measuredPower
        if let rssi = report.rssi.map(Int.init) {
            heard[identity]!.adverts += 1
            heard[identity]!.rssiSum += rssi
            heard[identity]!.strongest = max(heard[identity]!.strongest, rssi)
        }
        let address = report.address
        if heard[identity]!.addresses[address] != nil || heard[identity]!.addresses.count < Self.addressCap {
            heard[identity]!.addresses[address, default: 0] += 1
        }
    }

    /// Identities heard with an RSSI, strongest (mean RSSI) first; ties by id.
    public var strongestFirst: [Heard] {
        heard.values.filter { $0.meanRSSI != nil }.sorted {
            ($0.meanRSSI!, $1.beacon.rawValue) > ($1.meanRSSI!, $0.beacon.rawValue)
        }
    }

    /// The name advertised by one of the identity's addresses (the most heard first), if any.
    public func localName(of heard: Heard) -> String? {
        heard.addresses.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.lazy.compactMap { names[$0.key] }.first
    }

    /// The suggested entries: an alias made from the advertised name (else `beacon-N`, N the rank),
    /// unique, and a display name to edit.
    public func entries() -> [(heard: Heard, id: String, name: String)] {
        var used: Set<String> = []
        var out: [(heard: Heard, id: String, name: String)] = []
        for (rank, item) in strongestFirst.enumerated() {
            let localName = localName(of: item)
            var id = localName.map(Self.alias) ?? ""
            if id.isEmpty { id = "beacon-\(rank + 1)" }
            if used.contains(id) { id = String(id.prefix(56)) + "-\(rank + 1)" }
            used.insert(id)
            out.append((item, id, localName ?? "Beacon \(rank + 1)"))
        }
        return out
    }

    /// A name as an alias: lowercase a-z, 0-9, '-' and '_', at most 64 characters.
    static func alias(_ name: String) -> String {
        var out = ""
        for scalar in name.lowercased().unicodeScalars {
            switch scalar {
            case "a"..."z", "0"..."9", "_", "-": out.unicodeScalars.append(scalar)
            case " ", ".", ":", "'": if !out.isEmpty && !out.hasSuffix("-") { out += "-" }
            default: continue
            }
        }
        while out.hasSuffix("-") { out.removeLast() }
        return String(out.prefix(64))
    }

    /// The report: a YAML `beacons:` list with a comment per entry (RSSI, adverts, addresses, and a
    /// warning for a shared identity), then the message for the broker and its `mosquitto_pub` line.
    /// `root`: the topic root; `source`: what was scanned, for the heading.
    public func report(root: String = "presence", source: String) -> String {
        let entries = entries()
        guard !entries.isEmpty else {
            return """
                # \(source): \(adverts) adverts, no beacon with an identity of its own (iBeacon, AltBeacon,
                # Eddystone-UID). Is the beacon on and in range? Scan longer (--duration 60), or move it closer.

                """
        }
        var text = """
            # \(source): \(adverts) adverts, \(entries.count) beacons by identity, strongest first.
            # Keep the ones to follow, give each an id (a-z, 0-9, _ and -, used in topics) and a name
            # (Home Assistant's device name). Then either publish them to every node and the aggregator
            # (below, as the operator account), or put the list in a node's presence-agent.yaml.
            beacons:

            """
        for entry in entries {
            let item = entry.heard
            let addresses = item.addresses.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map(\.key.description)
            text += "  # \(item.format), mean \(item.meanRSSI!) dBm (strongest \(item.strongest)), \(item.adverts) adverts"
            text += item.measuredPower.map { ", measuredPower \($0)" } ?? ""
            text += ", from \(addresses.joined(separator: " "))\n"
            if item.isShared {
                text += """
                      # WARNING: \(addresses.count) devices send this one identity; the agent takes them for ONE beacon
                      # (its distance jumps between them). Give each its own major/minor (the maker's app), or keep one.

                    """
            }
            text += "  - { beacon: \(item.beacon.rawValue), id: \(entry.id), name: \(Self.yamlQuoted(entry.name)) }\n"
        }
        let message = Self.message(entries.map { ($0.heard.beacon.rawValue, $0.id, $0.name) })
        text += """

            # The same, retained with QoS 1 (a pushed list replaces the nodes' own whole):
            mosquitto_pub -h BROKER -u operator -P PASSWORD -q 1 -r -t \(root)/config/beacons \\
              -m \(Self.shellQuoted(message))

            """
        return text
    }

    /// The `config/beacons` message for these entries, revision 1.
    static func message(_ entries: [(beacon: String, id: String, name: String)]) -> String {
        let beacons = entries.map { entry in
            var json = JSONObjectWriter()
            json.add("beacon", entry.beacon)
            json.add("id", entry.id)
            json.add("name", entry.name)
            return json.json
        }
        return #"{"revision":1,"beacons":\#(JSONObjectWriter.array(beacons))}"#
    }

    /// A YAML double-quoted scalar; control characters become spaces (a name is any text).
    static func yamlQuoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += " "
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// One argument for a POSIX shell, in single quotes.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacing("'", with: "'\\''") + "'"
    }
}
