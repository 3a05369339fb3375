import BeaconCore

/// What a foreign node's message becomes: the aggregator's own inputs, so that the core decides
/// on them exactly as on its agents' (`AggregatorCore.receive`, `nodeStatus`).
public enum ForeignNodeInput: Sendable, Hashable {
    case measurement(ReceivedMeasurement)
    case nodeStatus(node: String, online: Bool)
    /// What a node's device shows (`AggregatorCore.nodeInfo`): its room, its version when it says,
    /// and its kind (where its availability is published). Comes before the node's first
    /// measurement or status, so that its device is announced as what it is.
    case nodeInfo(node: String, room: String, version: String?, kind: NodeKind)
}

/// What became of one message on a foreign source's topic.
public enum ForeignMessageOutcome: Sendable, Hashable {
    /// Turned into these inputs (possibly none: a still device a virtual agent would not re-publish yet).
    case used([ForeignNodeInput])
    /// Well formed but not ours to follow (a device that is not a known beacon, a topic level that
    /// is no device); not an error.
    case ignored
    /// Refused: `source` is the node or gateway it came from (or its topic level), for the
    /// once-a-minute log line; the reason names what is wrong and never holds a key.
    case rejected(source: String, ForeignMessageError)
}

/// The known beacons as the foreign sources look them up: by canonical id, by alias (an
/// ESPresense user may name a device by the alias it has here) and with their measured power.
public struct ForeignKnownBeacons: Sendable {
    public private(set) var beacons: Set<BeaconID> = []
    public private(set) var components: Set<BeaconID.Components> = []
    public private(set) var byAlias: [String: BeaconID] = [:]
    public private(set) var aliases: [BeaconID: TopicLevelID] = [:]
    public private(set) var measuredPower: [BeaconID: Int] = [:]

    public init(_ known: some Sequence<KnownBeacon> = []) {
        for entry in known {
            beacons.insert(entry.beacon)
            if let parts = entry.beacon.components { components.insert(parts) }
            if let alias = entry.alias {
                byAlias[alias.rawValue] = entry.beacon
                aliases[entry.beacon] = alias
            }
            if let power = entry.measuredPower { measuredPower[entry.beacon] = power }
        }
    }
}
