import BeaconCore

/// The live aggregator's state, without I/O: measurements, node statuses, its own retained
/// locations (restore) and the passing of time go in; the MQTT messages to send come out
/// (MQTT.md's aggregator topics). `AggregatorService` feeds it from the broker and publishes what it
/// returns; tests may drive it directly. The room decision itself is `RoomDecider`'s.
///
/// - Each decision change publishes `<root>/locations/<beacon>` and `…/room` (retained), the
///   `<root>/rooms/<room>` of the room left and the room entered (retained), and one
///   `<root>/events` message: `arrived` from `not_home` or no room, `departed` to `not_home`,
///   `room_changed` otherwise.
/// - Between changes a location is re-published when its node, proximity, distance (to 0.1 m) or
///   candidate rooms change, not at every measurement.
/// - Restored locations stand until the decider has its own decision for the beacon; a restored
///   beacon that is then not heard for the away timeout turns `not_home`, as if it had been
///   heard just before the restart.
/// - A beacon that is not a known beacon and not heard for `forgetAfter` is forgotten: its
///   retained topics and discovery entities are cleared with empty payloads.
public struct AggregatorCore: Sendable {
    struct Tracked: Sendable {
        var beacon: BeaconID
        var id: String
        var name: String
        var isKnown: Bool
        var location: BeaconLocation?
        var lastHeard: Instant
        /// Set while `location` came from the retained topics and the decider has not decided yet.
        var restoredAt: Instant?
        var publishedSignificantPart: String?
    }

    public let configuration: AggregatorConfiguration
    public let discovery: HomeAssistantDiscovery?
    public private(set) var decider: RoomDecider
    private var tracked: [BeaconID: Tracked] = [:]
    /// Beacons deciding each room (not `not_home`), for `<root>/rooms/<room>`.
    private var occupants: [String: Set<BeaconID>] = [:]

    public var topics: TopicScheme { configuration.topics }

    public init(configuration: AggregatorConfiguration, softwareVersion: String, supportURL: String? = nil) {
        self.configuration = configuration
        decider = RoomDecider(parameters: configuration.decision)
        discovery = configuration.homeAssistantDiscovery
            ? HomeAssistantDiscovery(prefix: configuration.homeAssistantPrefix, topics: configuration.topics,
                                     origin: .init(softwareVersion: softwareVersion, supportURL: supportURL))
            : nil
    }

    // MARK: - Inputs

    /// Folds in a node's measurement received at `time`. A measurement from a node reported offline
    /// is ignored.
    public mutating func receive(_ measurement: ReceivedMeasurement, at time: Instant) -> [AggregatorPublication] {
        guard !decider.isOffline(node: measurement.node) else { return [] }
        var out: [AggregatorPublication] = []
        if !measurement.isSilence {
            track(measurement.beacon, name: measurement.name, heardAt: time, into: &out)
        }
        let decision = decider.update(measurement.evidence, at: time)
        guard tracked[measurement.beacon] != nil else { return out }
        if let decision {
            apply(decision, at: time, into: &out)
        } else {
            refresh(measurement.beacon, into: &out)
        }
        return out
    }

    /// A node's status (`online`/`offline`): an offline node's evidence is dropped at once.
    public mutating func nodeStatus(node: String, online: Bool, at time: Instant) -> [AggregatorPublication] {
        var out: [AggregatorPublication] = []
        for decision in decider.setNodeStatus(node: node, online: online, at: time) { apply(decision, at: time, into: &out) }
        return out
    }

    /// A retained `<root>/locations/<beacon>` message of a previous run. Used only for a beacon the
    /// aggregator has no state for yet; returns the discovery messages to (re)send for it.
    public mutating func restore(_ location: BeaconLocation, at time: Instant) -> [AggregatorPublication] {
        guard tracked[location.beacon] == nil else { return [] }
        var out: [AggregatorPublication] = []
        track(location.beacon, name: nil, heardAt: time, into: &out)
        guard var entry = tracked[location.beacon] else { return out }
        var restored = location
        restored.id = entry.id
        restored.name = entry.name
        entry.location = restored
        entry.restoredAt = time
        entry.publishedSignificantPart = restored.significantPart
        tracked[location.beacon] = entry
        if restored.room != RoomDecision.notHome { occupants[restored.room, default: []].insert(location.beacon) }
        return out
    }

    /// Lets time pass: dwell, stale evidence and away timeouts of the decider, the away timeout of
    /// restored beacons never heard since, and forgetting.
    public mutating func tick(at time: Instant) -> [AggregatorPublication] {
        var out: [AggregatorPublication] = []
        for decision in decider.tick(at: time) { apply(decision, at: time, into: &out) }
        for beacon in tracked.keys.sorted() {
            guard let entry = tracked[beacon] else { continue }
            if let restoredAt = entry.restoredAt, let location = entry.location, location.room != RoomDecision.notHome,
                decider.decision(for: beacon) == nil, time.since(restoredAt) >= configuration.decision.awayTimeout
            {
                let away = RoomDecision(beacon: beacon, room: RoomDecision.notHome, distance: nil, proximity: .unknown,
                                        node: nil, since: time, confidence: 0, candidates: [:])
                apply(away, at: time, into: &out)
            }
            if !entry.isKnown, configuration.forgetAfter > 0, time.since(entry.lastHeard) >= configuration.forgetAfter {
                forget(beacon, into: &out)
            }
        }
        return out
    }

    // MARK: - Retained state

    /// Every retained message that describes the current state (discovery, locations, rooms), for
    /// a reconnect: the broker may have lost them.
    public func retainedState() -> [AggregatorPublication] {
        var out = discoveryMessages()
        for beacon in tracked.keys.sorted() {
            guard let entry = tracked[beacon], let location = entry.location else { continue }
            out.append(.retained(topics.location(entry.id), location.json))
            out.append(.retained(topics.locationRoom(entry.id), location.room))
        }
        for room in occupants.keys.sorted() { out.append(roomMessage(room)) }
        return out
    }

    /// The discovery configs of every beacon (none when discovery is off).
    public func discoveryMessages() -> [AggregatorPublication] {
        guard let discovery else { return [] }
        return tracked.keys.sorted().flatMap { beacon -> [AggregatorPublication] in
            guard let entry = tracked[beacon] else { return [] }
            return discovery.configurations(beacon: entry.id, canonical: beacon, name: entry.name)
        }
    }

    /// The published location of a beacon, by canonical id.
    public func location(of beacon: BeaconID) -> BeaconLocation? { tracked[beacon]?.location }

    /// Beacons the aggregator currently publishes, by canonical id.
    public var trackedBeacons: [BeaconID] { tracked.keys.sorted() }

    // MARK: - Private

    /// The topic id of a beacon: its alias when known, else its canonical id.
    private func topicID(of beacon: BeaconID) -> (id: String, known: KnownBeacon?) {
        let known = configuration.knownBeacon(beacon)
        return (known?.topicID ?? beacon.rawValue, known)
    }

    private mutating func track(_ beacon: BeaconID, name: String?, heardAt time: Instant, into out: inout [AggregatorPublication]) {
        if var entry = tracked[beacon] {
            if time > entry.lastHeard { entry.lastHeard = time }
            tracked[beacon] = entry
            return
        }
        let (id, known) = topicID(of: beacon)
        let entry = Tracked(beacon: beacon, id: id, name: known?.name ?? name ?? id, isKnown: known != nil,
                            location: nil, lastHeard: time, restoredAt: nil, publishedSignificantPart: nil)
        tracked[beacon] = entry
        if let discovery { out += discovery.configurations(beacon: id, canonical: beacon, name: entry.name) }
    }

    /// A decision of the decider (or a restored beacon's away): publish location, room topics, event.
    private mutating func apply(_ decision: RoomDecision, at time: Instant, into out: inout [AggregatorPublication]) {
        guard var entry = tracked[decision.beacon] else { return }
        let previous = entry.location
        let keepsRoom = previous?.room == decision.room
        let location = BeaconLocation(
            id: entry.id, beacon: decision.beacon, name: entry.name, room: decision.room, distance: decision.distance,
            proximity: decision.proximity, node: decision.node, since: keepsRoom ? (previous?.since ?? decision.since) : decision.since,
            confidence: decision.confidence, candidates: decision.candidates)
        // Once the decider decides, the restored location has served; a synthesized away keeps it
        // (so that it is not repeated).
        if decider.decision(for: decision.beacon) != nil { entry.restoredAt = nil }
        entry.location = location
        entry.publishedSignificantPart = location.significantPart
        tracked[decision.beacon] = entry
        out.append(.retained(topics.location(entry.id), location.json))
        if keepsRoom {
            if location.room != RoomDecision.notHome { out.append(roomMessage(location.room)) }
            return
        }
        out.append(.retained(topics.locationRoom(entry.id), location.room))
        if let left = previous?.room, left != RoomDecision.notHome {
            occupants[left, default: []].remove(decision.beacon)
            out.append(roomMessage(left))
        }
        if location.room != RoomDecision.notHome {
            occupants[location.room, default: []].insert(decision.beacon)
            out.append(roomMessage(location.room))
        }
        let from = previous?.room
        // Nothing to announce for a beacon we never placed that is now away.
        if from == nil, location.room == RoomDecision.notHome { return }
        let type: String
        if location.room == RoomDecision.notHome {
            type = "departed"
        } else if from == nil || from == RoomDecision.notHome {
            type = "arrived"
        } else {
            type = "room_changed"
        }
        var event = JSONObjectWriter()
        event.add("type", type)
        event.add("id", entry.id)
        if let from { event.add("from", from) } else { event.addNull("from") }
        event.add("to", location.room)
        event.add("at", ISO8601Timestamp.string(from: time))
        out.append(AggregatorPublication(topic: topics.events, payload: event.json, retain: false))
    }

    /// Re-publishes a beacon's location (and its room) when something significant changed without
    /// a room change.
    private mutating func refresh(_ beacon: BeaconID, into out: inout [AggregatorPublication]) {
        guard var entry = tracked[beacon], let decision = decider.decision(for: beacon) else { return }
        guard let current = entry.location else {
            // Decided before we tracked it (forgotten, then heard again): publish as new once the
            // decider places it in a room; its old `not_home` is not news.
            if decision.room != RoomDecision.notHome { apply(decision, at: decision.since, into: &out) }
            return
        }
        guard current.room == decision.room else { return }
        let location = BeaconLocation(
            id: entry.id, beacon: beacon, name: entry.name, room: decision.room, distance: decision.distance,
            proximity: decision.proximity, node: decision.node, since: current.since, confidence: decision.confidence,
            candidates: decision.candidates)
        entry.location = location
        entry.restoredAt = nil
        let significant = location.significantPart
        let changed = significant != entry.publishedSignificantPart
        if changed { entry.publishedSignificantPart = significant }
        tracked[beacon] = entry
        guard changed else { return }
        out.append(.retained(topics.location(entry.id), location.json))
        if location.room != RoomDecision.notHome { out.append(roomMessage(location.room)) }
    }

    private mutating func forget(_ beacon: BeaconID, into out: inout [AggregatorPublication]) {
        guard let entry = tracked.removeValue(forKey: beacon) else { return }
        out.append(.clear(topics.location(entry.id)))
        out.append(.clear(topics.locationRoom(entry.id)))
        if let room = entry.location?.room, room != RoomDecision.notHome {
            occupants[room, default: []].remove(beacon)
            out.append(roomMessage(room))
        }
        if let discovery { out += discovery.removals(beacon: entry.id) }
    }

    /// `{"room","occupants":[{"id","name","since","distance"}],"count"}`, occupants by id.
    private func roomMessage(_ room: String) -> AggregatorPublication {
        let members = (occupants[room] ?? []).compactMap { tracked[$0] }.sorted { $0.id < $1.id }
        let list = members.map { entry -> String in
            var occupant = JSONObjectWriter()
            occupant.add("id", entry.id)
            occupant.add("name", entry.name)
            if let location = entry.location {
                occupant.add("since", ISO8601Timestamp.string(from: location.since))
                if let distance = location.distance { occupant.add("distance", distance, decimals: 2) } else { occupant.addNull("distance") }
            }
            return occupant.json
        }
        var json = JSONObjectWriter()
        json.add("room", room)
        json.addRaw("occupants", JSONObjectWriter.array(list))
        json.add("count", list.count)
        return .retained(topics.room(room), json.json)
    }
}
