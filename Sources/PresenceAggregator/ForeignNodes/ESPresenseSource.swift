import BeaconCore
import IdentityCrypto
import RoomDecisions

/// ESPresense nodes as a source of the aggregator's evidence, without I/O: their MQTT messages and
/// the passing of time go in, `ForeignNodeInput`s come out (ESPresense and BLE gateways article).
///
/// - `<prefix>/devices/<device id>/<node>`: a known device (or, with `followUnknown`, any device
///   with an identity of ours) becomes a measurement of node `<node>` in the node's room, on the
///   scale of our agents' evidence (`ESPresenseEvidence`). A phone ESPresense resolved (`irk:<key>`)
///   becomes its `irk-…` device under its alias; the key is only hashed, never kept or shown.
/// - `<prefix>/rooms/<node>/status`: `online`/`offline` (retained, the node's last will is
///   `offline`) become node statuses; an offline node's evidence ends at once.
/// - A node met for the first time (status, report or telemetry) is first handed on as node info
///   with its kind, `NodeKind.espresense` and its status topic: its Home Assistant device reads its
///   connectivity there.
/// - ESPresense never says it stopped hearing a device, it just stops reporting it: `tick` turns a
///   (device, node) silent for `silenceTimeout` into the "no longer heard" measurement our agents
///   send, which drops that node's evidence at once.
public struct ESPresenseSource: Sendable {
    public let settings: ESPresenseSettings
    public let followUnknown: Bool
    /// The decision's path-loss exponent: evidence is put on its scale.
    public let pathLossExponent: Double
    public var known: ForeignKnownBeacons
    private let devicesPrefix: [UInt8]
    private let roomsPrefix: [UInt8]

    struct Heard: Hashable { var node: String; var beacon: BeaconID }
    /// When each (node, device) was last reported, with the room it was reported in.
    private var heard: [Heard: (at: Instant, room: String)] = [:]
    /// The most (node, device) pairs followed at once: bounds memory under `followUnknown`.
    public static let maximumFollowed = 100_000
    /// Nodes already handed on as ESPresense nodes (`nodeInfo` with their status topic), so that a
    /// node's device is announced as what it is before its first status or measurement.
    private var introduced: Set<String> = []
    /// The most nodes remembered as introduced; past it a node is introduced with each message.
    public static let maximumIntroduced = 1_024

    private static let crypto = LibCrypto()
    /// How a refused message names a node whose name is no id: not by that name, which could be
    /// anything a publisher put in the topic.
    static let invalidNode = "(not a valid node name)"

    public init(settings: ESPresenseSettings, followUnknown: Bool, pathLossExponent: Double, known: ForeignKnownBeacons = .init()) {
        self.settings = settings
        self.followUnknown = followUnknown
        self.pathLossExponent = pathLossExponent
        self.known = known
        devicesPrefix = Array((settings.topic + "/devices/").utf8)
        roomsPrefix = Array((settings.topic + "/rooms/").utf8)
    }

    /// The filters to subscribe to: devices (two levels after `devices`: the three-level query
    /// reports are not presence), node availability, and telemetry (for the version its device shows).
    public var subscriptions: [String] {
        [settings.topic + "/devices/+/+", settings.topic + "/rooms/+/status", settings.topic + "/rooms/+/telemetry"]
    }

    /// One message of the subscriptions.
    public mutating func receive(topic: String, payload: [UInt8], at time: Instant) -> ForeignMessageOutcome {
        let bytes = Array(topic.utf8)
        if bytes.starts(with: devicesPrefix) {
            let rest = bytes[devicesPrefix.count...].split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            guard rest.count == 2 else { return .ignored }
            return device(String(decoding: rest[0], as: UTF8.self), node: String(decoding: rest[1], as: UTF8.self),
                          payload: payload, at: time)
        }
        if bytes.starts(with: roomsPrefix) {
            let rest = bytes[roomsPrefix.count...].split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            guard rest.count == 2 else { return .ignored }
            if rest[1].elementsEqual("telemetry".utf8) { return telemetry(node: String(decoding: rest[0], as: UTF8.self), payload: payload) }
            guard rest[1].elementsEqual("status".utf8) else { return .ignored }
            return status(node: String(decoding: rest[0], as: UTF8.self), payload: payload)
        }
        return .ignored
    }

    /// The silences due at `time`: one "no longer heard" measurement per (node, device) not
    /// reported for `silenceTimeout`.
    public mutating func tick(at time: Instant) -> [ForeignNodeInput] {
        var out: [ForeignNodeInput] = []
        for (key, last) in heard where time.since(last.at) > settings.silenceTimeout {
            heard[key] = nil
            out.append(.measurement(ReceivedMeasurement(
                beacon: key.beacon, node: key.node, room: last.room, distance: nil, proximity: .unknown)))
        }
        return out
    }

    /// A node's telemetry (`{"ip","uptime","firm","rssi","ver",…}`, every 30 s: `reportTelemetry` in
    /// src/main.cpp): its room and firmware version for its device; nothing else is read.
    private mutating func telemetry(node: String, payload: [UInt8]) -> ForeignMessageOutcome {
        guard TopicLevelID.isValid(node) else {
            return .rejected(source: Self.invalidNode, ForeignMessageError("node name is not a valid id (\(TopicLevelID.rule))"))
        }
        guard let telemetry = JSONFieldReader(lenient: payload, maximumBytes: 4096, maximumDepth: 4) else {
            return .rejected(source: node, ForeignMessageError("telemetry: expected a JSON object"))
        }
        let version = telemetry.lenientString("ver").flatMap { !$0.isEmpty && $0.utf8.count <= 64 ? $0 : nil }
        let room = settings.room(of: node)
        guard TopicLevelID.isValid(room), room != RoomDecision.notHome else { return .ignored }
        if introduced.count < Self.maximumIntroduced { introduced.insert(node) }
        return .used([.nodeInfo(node: node, room: room, version: version, kind: kind(of: node))])
    }

    /// What an ESPresense node is to its device: its availability is `<prefix>/rooms/<node>/status`.
    public func kind(of node: String) -> NodeKind {
        .espresense(statusTopic: settings.topic + "/rooms/" + node + "/status")
    }

    /// The node's info (its room and kind) when it was not handed on yet.
    private mutating func introduce(_ node: String, into out: inout [ForeignNodeInput]) {
        guard !introduced.contains(node) else { return }
        if introduced.count < Self.maximumIntroduced { introduced.insert(node) }
        out.append(.nodeInfo(node: node, room: settings.room(of: node), version: nil, kind: kind(of: node)))
    }

    private mutating func status(node: String, payload: [UInt8]) -> ForeignMessageOutcome {
        guard TopicLevelID.isValid(node) else {
            return .rejected(source: Self.invalidNode, ForeignMessageError("node name is not a valid id (\(TopicLevelID.rule))"))
        }
        var out: [ForeignNodeInput] = []
        switch String(decoding: payload, as: UTF8.self) {
        case "online":
            introduce(node, into: &out)
            return .used(out + [.nodeStatus(node: node, online: true)])
        case "offline":
            // The core drops the node's evidence; nothing of it is left to fall silent.
            heard = heard.filter { $0.key.node != node }
            introduce(node, into: &out)
            return .used(out + [.nodeStatus(node: node, online: false)])
        case "":
            return .ignored  // a cleared retained status
        default:
            return .rejected(source: node, ForeignMessageError("status: expected online or offline"))
        }
    }

    private mutating func device(_ id: String, node: String, payload: [UInt8], at time: Instant) -> ForeignMessageOutcome {
        guard TopicLevelID.isValid(node) else {
            return .rejected(source: Self.invalidNode, ForeignMessageError("node name is not a valid id (\(TopicLevelID.rule))"))
        }
        let room = settings.room(of: node)
        guard TopicLevelID.isValid(room), room != RoomDecision.notHome else {
            return .rejected(source: node, ForeignMessageError("room '\(room)' of node is not a valid room id; map the node under sources.espresense.rooms"))
        }
        let report: ESPresenseReport
        do {
            report = try ESPresenseReport(payload: payload)
        } catch {
            return .rejected(source: node, error)
        }
        guard report.deviceID == id else {
            // Neither id is shown: either may be a key, whole or damaged.
            return .rejected(source: node, ForeignMessageError("id: not the device its topic names"))
        }
        let beacon: BeaconID
        if let alias = known.byAlias[id] {
            beacon = alias
        } else if let canonical = ESPresenseDeviceID.canonical(id, sha256: Self.crypto.sha256) {
            beacon = canonical
        } else {
            return .ignored
        }
        let isKnown = known.beacons.contains(beacon)
        // A resolved phone is only ever followed as a known device: it has no other name than its key.
        guard isKnown || (followUnknown && !ESPresenseDeviceID.carriesKey(id)) else { return .ignored }
        let key = Heard(node: node, beacon: beacon)
        if heard[key] == nil, heard.count >= Self.maximumFollowed {
            return .rejected(source: node, ForeignMessageError("more than \(Self.maximumFollowed) devices followed; new ones are refused"))
        }
        heard[key] = (time, room)
        let evidence = ESPresenseEvidence(report, pathLossExponent: pathLossExponent, absorption: settings.absorption)
        var measurement = ReceivedMeasurement(
            beacon: beacon, name: ESPresenseDeviceID.carriesKey(id) ? nil : report.name, node: node, room: room,
            rssiFiltered: evidence.rssi, sigma: evidence.sigma, distance: evidence.distance, proximity: evidence.proximity)
        measurement.alias = known.aliases[beacon]
        var out: [ForeignNodeInput] = []
        introduce(node, into: &out)
        out.append(.measurement(measurement))
        return .used(out)
    }
}
