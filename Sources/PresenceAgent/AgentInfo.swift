import BeaconCore
import BluetoothHCI

/// The agent's retained `<root>/nodes/<node>/info` (docs/MQTT.md): who the node is, what it runs,
/// which configuration is in force, and the node beacon it advertises, so every node and the
/// aggregator know that beacon is this node.
enum AgentInfo {
    /// - Parameters:
    ///   - room: the room it serves now (its node config's, else its own).
    ///   - configRevisionJSON: the revision of each config message in force (`AgentCore.configRevisionJSON`).
    ///   - nodeBeacon: the node beacon asked for (nil: off, or a source that is no radio).
    ///   - advertising: how its last set-up ended; nil while the controller has not answered yet.
    ///   - rssiOffset: the offset it measures with, dB, and whose it is: the aggregator reads it
    ///     to correct at its input only a node that applies no offset of its own.
    static func json(
        node: TopicLevelID, room: TopicLevelID, version: String, source: String, startedAt: Instant,
        configRevisionJSON: String, nodeBeacon: AdvertisingRequest?, advertising: AdvertisingOutcome?,
        rssiOffset: (value: Double, source: RSSIOffsetSource)
    ) -> String {
        var info = JSONObjectWriter()
        info.add("node", node.rawValue)
        info.add("room", room.rawValue)
        info.add("version", version)
        info.add("source", source)
        info.add("startedAt", ISO8601Timestamp.string(from: startedAt))
        info.addRaw("configRevision", configRevisionJSON)
        if let nodeBeacon { info.addRaw("nodeBeacon", nodeBeaconJSON(nodeBeacon, advertising)) }
        info.add("rssiOffset", rssiOffset.value, decimals: 2)
        info.add("rssiOffsetSource", rssiOffset.source.rawValue)
        return info.json
    }

    /// `{"id":…,"interval":…,"state":…}` with `measuredPower` and `txPower` once advertising,
    /// `error` once refused.
    static func nodeBeaconJSON(_ request: AdvertisingRequest, _ outcome: AdvertisingOutcome?) -> String {
        var beacon = JSONObjectWriter()
        beacon.add("id", request.beacon.id.rawValue)
        beacon.add("interval", Double(request.intervalUnits) * 0.000625, decimals: 3)
        beacon.add("state", outcome?.stateName ?? "starting")
        switch outcome {
        case .advertising(let transmitPower, let measuredPower)?:
            beacon.add("measuredPower", Int(measuredPower))
            if let transmitPower { beacon.add("txPower", transmitPower) }
        case .refused(let error)?:
            beacon.add("error", error.description)
        case nil:
            break
        }
        return beacon.json
    }
}
