import BeaconCore
import RoomDecisions

/// What the aggregator publishes about one beacon on `<root>/locations/<beacon>` (docs/MQTT.md), and
/// what it reads back from that retained topic at start.
public struct BeaconLocation: Sendable, Hashable {
    /// The topic id: the alias of a known beacon, else the canonical id.
    public var id: String
    public var name: String
    /// The room decision it shows (its `since`: when the beacon entered the room).
    public var decision: RoomDecision
    /// The room's floor, where known (configured, or learned by the site model); nil otherwise
    /// and for `not_home`.
    public var floor: String?

    public var beacon: BeaconID {
        get { decision.beacon }
        set { decision.beacon = newValue }
    }
    /// The decided room or `not_home`.
    public var room: String {
        get { decision.room }
        set { decision.room = newValue }
    }
    public var distance: Double? {
        get { decision.distance }
        set { decision.distance = newValue }
    }
    public var proximity: Proximity {
        get { decision.proximity }
        set { decision.proximity = newValue }
    }
    public var node: String? {
        get { decision.node }
        set { decision.node = newValue }
    }
    public var since: Instant {
        get { decision.since }
        set { decision.since = newValue }
    }
    public var confidence: Double {
        get { decision.confidence }
        set { decision.confidence = newValue }
    }
    /// Per room with fresh evidence: the nearest node's distance, metres.
    public var candidates: [String: Double] {
        get { decision.candidates }
        set { decision.candidates = newValue }
    }

    public init(id: String, name: String, decision: RoomDecision, floor: String? = nil) {
        self.id = id
        self.name = name
        self.decision = decision
        self.floor = floor
    }

    public init(id: String, beacon: BeaconID, name: String, room: String, distance: Double?, proximity: Proximity,
                node: String?, since: Instant, confidence: Double, candidates: [String: Double], floor: String? = nil) {
        self.init(id: id, name: name, decision: RoomDecision(
            beacon: beacon, room: room, distance: distance, proximity: proximity, node: node, since: since,
            confidence: confidence, candidates: candidates), floor: floor)
    }

    /// docs/MQTT.md's key order; distances to the centimetre, confidence to 0.01, candidates by room name.
    public var json: String {
        // The keys, timestamp and numbers take about 128 bytes; reserving the rest up front saves
        // the reallocations of a growing string.
        let textBytes = id.utf8.count + beacon.rawValue.utf8.count + name.utf8.count + room.utf8.count
            + (floor.map { $0.utf8.count + 10 } ?? 0)
            + (node?.utf8.count ?? 0)
        var json = JSONObjectWriter(reservingCapacity: 128 + textBytes + 24 * candidates.count)
        json.add("id", id)
        json.add("beacon", beacon.rawValue)
        json.add("name", name)
        json.add("room", room)
        if let floor { json.add("floor", floor) }
        if let distance { json.add("distance", distance, decimals: 2) } else { json.addNull("distance") }
        json.add("proximity", proximity.rawValue)
        if let node { json.add("node", node) } else { json.addNull("node") }
        json.add("since", ISO8601Timestamp.string(from: since))
        json.add("confidence", confidence, decimals: 2)
        var candidateObject = JSONObjectWriter()
        for room in candidates.keys.sorted() {
            candidateObject.add(room, candidates[room] ?? 0, decimals: 2)
        }
        json.addRaw("candidates", candidateObject.finish())
        return json.finish()
    }

    /// What makes a location worth publishing again at once when the room did not change: the
    /// node, the proximity, which rooms are candidates and the name (confidence and candidate
    /// distances move with every measurement and would make every measurement a publication).
    /// The distance is `LocationRefreshRule`'s.
    var significantPart: SignificantPart {
        SignificantPart(room: room, node: node ?? "", proximity: proximity, candidateRooms: candidates.keys.sorted(),
                        name: name)
    }

    /// `significantPart`'s values, compared as they are (a text of them cost an interpolation
    /// per measurement, issue 38).
    struct SignificantPart: Hashable, Sendable {
        var room: String
        var node: String
        var proximity: Proximity
        var candidateRooms: [String]
        var name: String
    }

    /// Reads a retained location back (restore at start). Nil unless it is a JSON object with at
    /// least a canonical `beacon`, a valid `room` (or `not_home`) and an ISO-8601 `since`.
    public init?(retainedPayload payload: [UInt8]) {
        guard let location = JSONFieldReader(lenient: payload, maximumBytes: 16_384, maximumDepth: 4),
            let beaconText = location.lenientString("beacon"), BeaconIDSyntax.canonical(beaconText) == beaconText,
            let room = location.lenientString("room"), TopicLevelID.isValid(room),
            let since = location.lenientString("since").flatMap(ISO8601Timestamp.instant(from:))
        else { return nil }
        let beacon = BeaconID(rawValue: beaconText)
        let id = location.lenientString("id").flatMap { TopicLevelID.isValid($0) || $0 == beaconText ? $0 : nil } ?? beaconText
        let name = location.lenientString("name").flatMap { $0.isEmpty ? nil : $0 } ?? id
        let distance = location.lenientNumber("distance").flatMap { $0 >= 0 ? $0 : nil }
        let proximity = location.lenientString("proximity").flatMap(Proximity.init(rawValue:)) ?? .unknown
        let node = location.lenientString("node").flatMap { TopicLevelID.isValid($0) ? $0 : nil }
        let confidence = location.lenientNumber("confidence").flatMap { (0...1).contains($0) ? $0 : nil } ?? 0
        let floor = location.lenientString("floor").flatMap { TopicLevelID.isValid($0) && room != RoomDecision.notHome ? $0 : nil }
        var candidates: [String: Double] = [:]
        if let list = location.lenientObject("candidates") {
            for key in list.object.keys where TopicLevelID.isValid(key) {
                if let number = list.lenientNumber(key) { candidates[key] = number }
            }
        }
        self.init(id: id, beacon: beacon, name: name, room: room, distance: distance, proximity: proximity,
                  node: node, since: since, confidence: confidence, candidates: candidates, floor: floor)
    }
}
