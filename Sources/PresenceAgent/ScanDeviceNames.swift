import BeaconCore

/// The known device `presence-agent scan` names on a line (`device=alice-phone`): a known beacon's
/// alias, or the device a resolvable private address resolves to under a known key — never the
/// key. It lets an operator check an enrolment (`irk import`, a pushed `config/beacons`) against
/// what the radio hears before running the agent; the agent itself resolves the same way
/// (`AgentCore+Identities`).
public struct ScanDeviceNames: Sendable {
    private let aliasByBeacon: [BeaconID: String]
    private var resolver: PrivateAddressResolver
    private let resolvedNames: [String]

    /// Names from `knownBeacons` (the agent's YAML `beacons:`, or the list the broker pushed).
    public init(knownBeacons: [KnownBeacon]) {
        var aliases: [BeaconID: String] = [:]
        for known in knownBeacons where known.irk == nil { aliases[known.beacon] = known.topicID }
        aliasByBeacon = aliases
        let keys = AgentCore.resolvingKeys(knownBeacons)
        resolver = keys.resolver
        resolvedNames = keys.devices.map(\.topicID)
    }

    /// No known device: nothing to name.
    public var isEmpty: Bool { aliasByBeacon.isEmpty && resolver.isEmpty }

    /// The known device `advertisement` comes from, nil for any other.
    public mutating func name(of advertisement: DecodedAdvertisement) -> String? {
        if let alias = aliasByBeacon[advertisement.beaconID] { return alias }
        guard !resolver.isEmpty else { return nil }
        let report = advertisement.report
        return AgentCore.resolve(report.address, type: report.addressType, with: &resolver).map { resolvedNames[$0] }
    }

    /// The list the broker last pushed, as the agent kept it in its state directory
    /// (`beacons.json`); nil when there is none. A file that does not parse is an error naming it.
    public static func pushedBeacons(stateDirectory: String) throws(ScanDeviceNamesError) -> [KnownBeacon]? {
        let (files, problems) = StateDirectory(path: stateDirectory).load([AgentCore.StateFile.beacons])
        if let problem = problems.first { throw ScanDeviceNamesError(message: problem) }
        guard let bytes = files[AgentCore.StateFile.beacons] else { return nil }
        do {
            return try KnownBeaconsConfig(json: try JSONParser.parse(bytes), crypto: AgentCore.crypto).beacons
        } catch {
            throw ScanDeviceNamesError(message: "\(stateDirectory)/\(AgentCore.StateFile.beacons): \(error)")
        }
    }
}

/// Why the known devices for `scan` could not be read.
public struct ScanDeviceNamesError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
