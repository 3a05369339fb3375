import BeaconCore
import RoomDecisions

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
/// - A room's message is published at most once per call (`receive`, `tick`, `nodeStatus`,
///   `restore`), after the call's location and event messages. Membership changes publish it in
///   the call that makes them; a change of an occupant's distance alone (the room's membership
///   unchanged) is coalesced to the next `tick`, so a busy room's list, which grows with its
///   occupants, is written at most once a second rather than at every measurement.
/// - Restored locations stand until the decider has its own decision for the beacon; a restored
///   beacon that is then not heard for the longer of the away timeout and `staleAfter` turns
///   `not_home` (a still beacon is re-reported only every heartbeat).
/// - A beacon that is not a known beacon and not heard for `forgetAfter` is forgotten: its
///   retained topics and discovery entities are cleared with empty payloads.
/// - At most `maxUnknownBeacons` beacons that are not known beacons are tracked: a new one beyond
///   that evicts the least recently heard of them (forgotten as above, counted in
///   `evictedBeacons`; its room's message waits for the next tick, since under a flood every
///   measurement evicts). Known beacons are never evicted. Memory therefore stays bounded under a
///   flood of random beacon ids, while decisions for the known beacons are unaffected.
/// - The known beacons are the file's `beacons:` merged with the operator's `<root>/config/beacons`
///   (`applyPushedBeacons`, `AggregatorKnownBeacons`). When that list changes, each tracked beacon
///   follows at once: a new name re-publishes its location, its room's list and its discovery
///   configs; a new id moves its topics (the old ones cleared); its own away timeout, and whether
///   it may be evicted or forgotten, change with it.
///
/// Speed: a measurement hashes its beacon id once (the decider's slot, which also indexes this
/// type's own per-beacon array), and the location JSON is built only when published. A room keeps
/// its whole message rendered, edited in place part by part (each occupant's part rebuilt only
/// when its location is published again, so a room's list shows each occupant's distance as its
/// published location does), and a publication shares that text instead of copying it.
public struct AggregatorCore: Sendable {
    /// What a measurement touches per beacon: plain values only, so reading and writing them costs
    /// no reference counting.
    struct Hot: Sendable {
        var isTracked = false
        var isKnown = false
        var lastHeard = Instant(seconds: 0)
        /// Set while the location came from the retained topics and the decider has not decided yet.
        var restoredAt: Instant?
        /// The decider's code of the location's room, when the location came from the decider.
        var locationRoomCode: Int32?
        /// Set when the decider's current decision, in the location's room, is newer than the
        /// stored location (measurements that were not worth publishing): `location(of:)` builds it.
        var locationFollowsDecider = false
        /// The decider's summary of the published location, when it came from the decider: lets a
        /// measurement be compared with it without building a location.
        var publishedSummary: RoomDecisionSummary?
        /// Index in `rooms` of the room this beacon occupies (its location's room, not `not_home`), −1 none.
        var occupiedRoom = -1
        /// Neighbours in the least-recently-heard list of unknown beacons (slot indices, −1 none).
        var older = -1
        var newer = -1
    }

    /// The rest of a tracked beacon: names and the location.
    struct Tracked: Sendable {
        var beacon: BeaconID
        var id: String
        var name: String
        /// The alias and name its first measurement (or restored location) gave: what `id` and
        /// `name` fall back to when it is not, or no longer, a known beacon.
        var heardAlias: TopicLevelID?
        var heardName: String?
        /// The location last built: published, restored, or synthesized (away of a restored beacon).
        var location: BeaconLocation?
        /// `location?.significantPart`, once a measurement needed it: nil until then. A room change
        /// publishes a location the next measurements mostly compare by summary alone, so it is
        /// not written out at every change (a tenth of an arrival's work).
        var publishedSignificantPart: String?
    }

    /// One element of a room's `occupants` list, kept ready to join.
    struct Occupant: Sendable {
        var id: String
        var slot: Int
        /// `{"id","name","since","distance"}` of the beacon's published location.
        var json: String
        /// `json.utf8.count`: where the next occupant starts in the joined list.
        var length: Int
    }

    /// A room with occupants (or that had some): its members ordered as published.
    struct Room: Sendable {
        var name: String
        /// `<root>/rooms/<room>`.
        var topic: String
        /// Occupants by id (then slot), as the room message lists them.
        var occupants: [Occupant] = []
        /// The room's whole message, `{"room":…,"occupants":[…],"count":N}`, kept up to date part
        /// by part: an arrival moves the bytes after it once, and a publication shares this text
        /// instead of joining or copying the list (with 2,000 occupants, ~400 KB per arrival).
        var payload: String
        /// UTF-8 length of `{"room":…,"occupants":[`: where the first occupant's part starts.
        let headLength: Int
        /// UTF-8 length of `],"count":N}` at the end.
        var tailLength: Int
        /// Its message is due in the current call.
        var isDue = false
        /// An occupant's distance changed: its message is due at the next tick.
        var isDueAtTick = false

        init(name: String, topic: String) {
            self.name = name
            self.topic = topic
            var head = #"{"room":"#
            JSONText.appendQuoted(name, to: &head)
            head += #","occupants":["#
            let tail = Self.tail(count: 0)
            headLength = head.utf8.count
            tailLength = tail.utf8.count
            payload = head + tail
        }
    }

    public let configuration: AggregatorConfiguration
    /// Nil when discovery is off. Its `rooms` grow as rooms are met (node info, measurements,
    /// restored locations).
    public private(set) var discovery: HomeAssistantDiscovery?
    /// Nodes announced to Home Assistant as devices, with what their device shows.
    private var nodeDevices: [TopicLevelID: HomeAssistantDiscovery.NodeDevice] = [:]
    /// Node devices the broker kept from before that no node has claimed yet, with when they were
    /// seen: a node retired while the aggregator was down (its info and status cleared) left them.
    private var unclaimedNodeDevices: [TopicLevelID: Instant] = [:]
    /// How long a node device the broker kept waits for its node's info, status or a measurement
    /// before it is removed, seconds. Retained messages arrive right after each SUBSCRIBE, so this
    /// is ample, and a node that is merely down keeps its retained info and status.
    public static let unclaimedNodeDeviceGrace = 10.0
    /// Whether the aggregator's own device was announced in this run (node devices name it).
    private var aggregatorAnnounced = false
    public private(set) var decider: RoomDecider
    /// The learned site model's decision (`decision.model`), beside `decider`, its fallback; nil
    /// without a model. With one, its decisions are the ones published.
    public private(set) var model: SiteModelDecider?
    /// Per decider slot (`RoomDecider.BeaconSlot.index`): the beacons this core tracks. The decider
    /// holds a slot exactly for each tracked beacon (the core forgets both together).
    private var hot: [Hot] = []
    private var entries: [Tracked?] = []
    private var trackedCount = 0
    /// The file's known beacons merged with the pushed `<root>/config/beacons`.
    public private(set) var knownBeacons: AggregatorKnownBeacons
    private var rooms: [Room] = []
    private var roomIndex: [String: Int] = [:]
    /// Rooms whose message is due in the current call, in the order they became due.
    private var dueRooms: [Int] = []
    private var dueAtTickRooms: [Int] = []
    /// Unknown (not known) beacons tracked, and the ends of their least-recently-heard list.
    private var unknownCount = 0
    private var oldestUnknown = -1
    private var newestUnknown = -1

    /// Unknown beacons evicted since start because `configuration.maxUnknownBeacons` were already
    /// tracked: what a flood of random beacon ids cost.
    public private(set) var evictedBeacons = 0

    public var topics: TopicScheme { configuration.topics }

    public init(configuration: AggregatorConfiguration, softwareVersion: String, supportURL: String? = nil) {
        self.configuration = configuration
        decider = RoomDecider(parameters: configuration.decision)
        model = configuration.siteModel.map(SiteModelDecider.init(model:))
        discovery = configuration.homeAssistantDiscovery
            ? HomeAssistantDiscovery(prefix: configuration.homeAssistantPrefix, topics: configuration.topics,
                                     origin: .init(softwareVersion: softwareVersion, supportURL: supportURL),
                                     // A model's rooms are rooms of the site even before a node serving one is seen.
                                     rooms: configuration.siteModel?.rooms ?? [],
                                     floors: Array(Set(configuration.roomFloors.values)))
            : nil
        knownBeacons = AggregatorKnownBeacons(file: configuration.knownBeacons, forgetAfter: configuration.forgetAfter)
    }

    // MARK: - Inputs

    /// Folds in a node's measurement received at `time`. A measurement from a node reported offline
    /// is ignored.
    public mutating func receive(_ measurement: ReceivedMeasurement, at time: Instant) -> [AggregatorPublication] {
        guard !decider.isOffline(node: measurement.node) else { return [] }
        var out: [AggregatorPublication] = []
        let slot: RoomDecider.BeaconSlot
        if measurement.isSilence {
            // A silence never makes a beacon appear.
            guard let known = decider.slot(of: measurement.beacon) else { return [] }
            slot = known
        } else {
            // A new beacon's first configs then carry the room it is heard in (not a second room
            // config a moment later, while Home Assistant is still creating the entity).
            if discovery != nil, decider.slot(of: measurement.beacon) == nil {
                noteNode(measurement.node, room: measurement.room, version: nil, into: &out)
            }
            slot = track(measurement.beacon, name: measurement.name, alias: measurement.alias, heardAt: time, into: &out)
        }
        let knownNodes = decider.knownNodeCount
        let knownRooms = decider.knownRoomCount
        var decision = decider.update(node: measurement.node, room: measurement.room, distance: measurement.distance,
                                      proximity: measurement.proximity, in: slot, at: time)
        // A node or room the decider had not met: announce it before any decision names it (the
        // room sensors' options must hold a room before it is a state). Two counts compared, no
        // hashing, in the usual case.
        if discovery != nil, decider.knownNodeCount != knownNodes || decider.knownRoomCount != knownRooms {
            noteNode(measurement.node, room: measurement.isSilence ? nil : measurement.room, version: nil, into: &out)
        }
        if model != nil {
            decision = model!.update(measurement.evidence, physicsRoom: decider.room(in: slot),
                                     physics: { decider.decision(in: slot) }, at: time)
        }
        if let decision {
            apply(decision, slot: slot.index, at: time, into: &out)
        } else {
            refresh(slot.index, into: &out)
        }
        publishDueRooms(into: &out)
        return out
    }

    /// A node's status (`online`/`offline`): an offline node's evidence is dropped at once.
    public mutating func nodeStatus(node: String, online: Bool, at time: Instant) -> [AggregatorPublication] {
        var out: [AggregatorPublication] = []
        if discovery != nil, let id = TopicLevelID(node), nodeDevices[id] == nil {
            noteNode(node, room: nil, version: nil, into: &out)
        }
        var decisions = decider.setNodeStatus(node: node, online: online, at: time)
        if model != nil {
            let decider = self.decider
            decisions = model!.setNodeStatus(node: node, online: online, at: time) { decider.decision(for: $0) }
        }
        for decision in decisions {
            guard let slot = decider.slot(of: decision.beacon) else { continue }
            apply(decision, slot: slot.index, at: time, into: &out)
        }
        publishDueRooms(into: &out)
        return out
    }

    /// A retained `<root>/locations/<beacon>` message of a previous run. Used only for a beacon the
    /// aggregator has no state for yet; returns the discovery messages to (re)send for it.
    public mutating func restore(_ location: BeaconLocation, at time: Instant) -> [AggregatorPublication] {
        guard decider.slot(of: location.beacon) == nil else { return [] }
        var out: [AggregatorPublication] = []
        // Its room is a state Home Assistant already holds: the options must keep it.
        addRoom(location.room, into: &out)
        // A device known by its key keeps the alias it was published under (see `track`).
        let alias = location.beacon.rawValue.hasPrefix("irk-") ? TopicLevelID(location.id) : nil
        let slot = track(location.beacon, name: nil, alias: alias, heardAt: time, into: &out).index
        guard let entry = entries[slot] else { return out }
        var restored = location
        restored.id = entry.id
        restored.name = entry.name
        entries[slot]?.location = restored
        entries[slot]?.publishedSignificantPart = restored.significantPart
        hot[slot].restoredAt = time
        // Membership restored as it was published: no room message of its own.
        if restored.room != RoomDecision.notHome { occupy(restored.room, slot: slot, announce: false) }
        publishDueRooms(into: &out)
        return out
    }

    /// A message of the operator's retained `<root>/config/beacons` (MQTT.md), read by the agents'
    /// own parser and merged with the file's list (`AggregatorKnownBeacons`: the file wins for the
    /// beacons it names). An invalid message throws the error that names its field and changes
    /// nothing: the last good list stays in force. An empty one drops the pushed list. Every
    /// tracked beacon whose entry changed follows at once (see the type's summary); a beacon not
    /// tracked yet gets its entry when it is first heard.
    public mutating func applyPushedBeacons(_ payload: [UInt8]) throws(ConfigError) -> [AggregatorPublication] {
        let before = knownBeacons.byBeacon
        try knownBeacons.apply(payload)
        let after = knownBeacons.byBeacon
        var out: [AggregatorPublication] = []
        for slot in slotsByBeacon() {
            guard let entry = entries[slot], before[entry.beacon] != after[entry.beacon] else { continue }
            follow(after[entry.beacon], slot: slot, into: &out)
        }
        publishDueRooms(into: &out)
        return out
    }

    /// Lets time pass: dwell, stale evidence and away timeouts of the decider, the away timeout of
    /// restored beacons never heard since, forgetting, and the room messages of distance changes
    /// since the last tick.
    public mutating func tick(at time: Instant) -> [AggregatorPublication] {
        var out: [AggregatorPublication] = []
        var decisions = decider.tick(at: time)
        if model != nil {
            let decider = self.decider
            decisions = model!.tick(at: time, physicsRoom: { decider.room(of: $0) }, physics: { decider.decision(for: $0) })
        }
        for decision in decisions {
            guard let slot = decider.slot(of: decision.beacon) else { continue }
            apply(decision, slot: slot.index, at: time, into: &out)
        }
        // One pass over the tracked beacons; only the few that need something are sorted.
        // A restored beacon may simply be still: agents re-report a still beacon only every
        // heartbeat (60 s), so it gets the evidence's whole life (`staleAfter`, 150 s) before it
        // is sent away, not the away timeout alone (30 s) — else every restart or standby takeover
        // would send still beacons to `not_home` and back. A device with an away timeout of its
        // own longer than that (a phone that stays silent for minutes) gets its own.
        let staleAfter = configuration.decision.staleAfter
        func restoredAwayTimeout(_ slot: Int) -> Double {
            max(decider.awayTimeout(for: RoomDecider.BeaconSlot(index: slot)), staleAfter)
        }
        let forgetAfter = configuration.forgetAfter
        var due: [(beacon: BeaconID, slot: Int)] = []
        for slot in hot.indices where hot[slot].isTracked {
            let restoredAway = hot[slot].restoredAt.map { time.since($0) >= restoredAwayTimeout(slot) } ?? false
            let forgotten = !hot[slot].isKnown && forgetAfter > 0 && time.since(hot[slot].lastHeard) >= forgetAfter
            if restoredAway || forgotten, let beacon = entries[slot]?.beacon { due.append((beacon, slot)) }
        }
        if due.count > 1 { due.sort { $0.beacon < $1.beacon } }
        for (beacon, slot) in due {
            guard hot[slot].isTracked, let location = entries[slot]?.location else {
                if hot[slot].isTracked, isForgotten(slot, at: time) { forget(slot, into: &out) }
                continue
            }
            if let restoredAt = hot[slot].restoredAt, location.room != RoomDecision.notHome,
                !decider.summary(in: RoomDecider.BeaconSlot(index: slot)).isDecided,
                time.since(restoredAt) >= restoredAwayTimeout(slot)
            {
                let away = RoomDecision(beacon: beacon, room: RoomDecision.notHome, distance: nil, proximity: .unknown,
                                        node: nil, since: time, confidence: 0, candidates: [:])
                apply(away, slot: slot, at: time, into: &out)
            }
            if isForgotten(slot, at: time) { forget(slot, into: &out) }
        }
        for room in dueAtTickRooms where rooms[room].isDueAtTick { markDue(room) }
        dueAtTickRooms.removeAll(keepingCapacity: true)
        publishDueRooms(into: &out)
        if !unclaimedNodeDevices.isEmpty { removeUnclaimedNodeDevices(at: time, into: &out) }
        return out
    }

    private mutating func removeUnclaimedNodeDevices(at time: Instant, into out: inout [AggregatorPublication]) {
        for (node, seen) in unclaimedNodeDevices.sorted(by: { $0.key < $1.key }) {
            if nodeDevices[node] != nil {
                unclaimedNodeDevices[node] = nil
            } else if time.since(seen) >= Self.unclaimedNodeDeviceGrace, let discovery {
                unclaimedNodeDevices[node] = nil
                out += discovery.nodeRemovals(node: node)
            }
        }
    }

    private func isForgotten(_ slot: Int, at time: Instant) -> Bool {
        !hot[slot].isKnown && configuration.forgetAfter > 0 && time.since(hot[slot].lastHeard) >= configuration.forgetAfter
    }

    // MARK: - Retained state

    /// Every retained message that describes the current state (discovery, locations, rooms), for
    /// a reconnect: the broker may have lost them.
    public func retainedState() -> [AggregatorPublication] {
        var out = discoveryMessages()
        for slot in slotsByBeacon() {
            guard let entry = entries[slot], let location = currentLocation(slot) else { continue }
            out.append(.retained(topics.location(entry.id), location.json))
            out.append(.retained(topics.locationRoom(entry.id), location.room))
        }
        for room in rooms.indices.sorted(by: { rooms[$0].name < rooms[$1].name }) { out.append(roomMessage(room)) }
        return out
    }

    /// The discovery configs of the aggregator, every node and every beacon (none when discovery
    /// is off).
    public func discoveryMessages() -> [AggregatorPublication] {
        guard let discovery else { return [] }
        var out = [discovery.aggregatorConfiguration()]
        for node in nodeDevices.keys.sorted() {
            out += discovery.nodeConfigurations(node: node, device: nodeDevices[node] ?? .init())
        }
        return out + slotsByBeacon().flatMap { slot -> [AggregatorPublication] in
            guard let entry = entries[slot] else { return [] }
            return discovery.configurations(beacon: entry.id, canonical: entry.beacon, name: entry.name)
        }
    }

    /// The aggregator's own device, once per run (at the first connect): empty after that, and
    /// when discovery is off.
    public mutating func announceAggregator() -> [AggregatorPublication] {
        var out: [AggregatorPublication] = []
        announceAggregator(into: &out)
        return out
    }

    /// A node's retained info (`{"node","room","version",…}`): its device shows its room (as the
    /// suggested area) and version, and its room joins the room sensors' options. An unreadable
    /// message changes nothing: the info is a display, not evidence. A cleared info (empty
    /// payload) is how an operator retires a node, since the agent itself never clears it: the
    /// node's device leaves Home Assistant (its discovery configs cleared), and comes back if the
    /// node is heard from again.
    public mutating func nodeInfo(node: String, payload: [UInt8]) -> [AggregatorPublication] {
        if payload.isEmpty {
            guard let discovery, let id = TopicLevelID(node), nodeDevices.removeValue(forKey: id) != nil else { return [] }
            return discovery.nodeRemovals(node: id)
        }
        guard discovery != nil,
            let value = try? JSONParser.parse(payload, maximumBytes: 4096, maximumDepth: 4),
            case .object(let object) = value
        else { return [] }
        var room: String?
        if case .string(let text)? = object["room"], TopicLevelID.isValid(text), text != RoomDecision.notHome { room = text }
        var version: String?
        if case .string(let text)? = object["version"], !text.isEmpty, text.utf8.count <= 64 { version = text }
        var out: [AggregatorPublication] = []
        noteNode(node, room: room, version: version, into: &out)
        return out
    }

    /// A node device's retained connectivity config, as the broker kept it (`payload` non-empty)
    /// from an earlier run. Unless the node's info, status or a measurement of it arrives within
    /// `unclaimedNodeDeviceGrace`, a tick removes the device: its node was retired while the
    /// aggregator was down.
    public mutating func retainedNodeDevice(node: TopicLevelID, payload: [UInt8], at time: Instant) {
        guard discovery != nil, !payload.isEmpty, nodeDevices[node] == nil, unclaimedNodeDevices[node] == nil else { return }
        unclaimedNodeDevices[node] = time
    }

    /// The published location of a beacon, by canonical id, with the decider's latest distance,
    /// confidence and candidates while its room holds.
    public func location(of beacon: BeaconID) -> BeaconLocation? {
        decider.slot(of: beacon).flatMap { currentLocation($0.index) }
    }

    /// Nodes the site model does not know, each returned once (for the log); none without a model.
    public mutating func takeUnknownNodes() -> [String] {
        model?.takeUnknownNodes() ?? []
    }

    /// The site model's nodes neither heard from nor online when deciding started, returned once
    /// (for the log); none without a model.
    public mutating func takeAbsentNodes() -> [String] {
        model?.takeAbsentNodes() ?? []
    }

    /// Beacons the aggregator currently publishes, by canonical id.
    public var trackedBeacons: [BeaconID] { slotsByBeacon().compactMap { entries[$0]?.beacon } }

    /// How many beacons the aggregator tracks, known ones included.
    public var trackedBeaconCount: Int { trackedCount }

    /// How many of them are not known beacons: at most `configuration.maxUnknownBeacons`.
    public var trackedUnknownBeaconCount: Int { unknownCount }

    // MARK: - Tracking

    private func slotsByBeacon() -> [Int] {
        let slots = hot.indices.filter { hot[$0].isTracked }
        return slots.sorted { (entries[$0]?.beacon.rawValue ?? "") < (entries[$1]?.beacon.rawValue ?? "") }
    }

    /// Marks `beacon` heard at `time`, tracking it (with its discovery messages) if it is new;
    /// a new unknown beacon beyond the cap first evicts the least recently heard unknown one.
    private mutating func track(_ beacon: BeaconID, name: String?, alias: TopicLevelID? = nil, heardAt time: Instant,
                                into out: inout [AggregatorPublication]) -> RoomDecider.BeaconSlot {
        if let slot = decider.slot(of: beacon) {
            if time > hot[slot.index].lastHeard { hot[slot.index].lastHeard = time }
            if !hot[slot.index].isKnown { touchUnknown(slot.index) }
            return slot
        }
        let known = knownBeacons.byBeacon[beacon]
        if known == nil {
            // Evict rather than refuse: a beacon heard all the time is never the least recently
            // heard, so a flood of ids each heard once cannot push out the real ones.
            while unknownCount >= max(1, configuration.maxUnknownBeacons), oldestUnknown >= 0 {
                // Its room's message waits for the tick: under a flood every measurement evicts,
                // and a list rewritten per measurement would cost more than the flood itself.
                forget(oldestUnknown, roomMessageAtTick: true, into: &out)
                evictedBeacons += 1
            }
        }
        let slot = decider.addSlot(for: beacon)
        decider.setAwayTimeout(known?.awayTimeout, for: slot)
        if slot.index >= hot.count {
            let missing = slot.index - hot.count + 1
            hot.append(contentsOf: repeatElement(Hot(), count: missing))
            entries.append(contentsOf: repeatElement(nil, count: missing))
        }
        let (id, shownName) = Self.identity(beacon, known: known, heardAlias: alias, heardName: name)
        entries[slot.index] = Tracked(beacon: beacon, id: id, name: shownName, heardAlias: alias, heardName: name, location: nil)
        hot[slot.index] = Hot(isTracked: true, isKnown: known != nil, lastHeard: time)
        trackedCount += 1
        if known == nil {
            unknownCount += 1
            appendNewestUnknown(slot.index)
        }
        if let discovery { out += discovery.configurations(beacon: id, canonical: beacon, name: shownName) }
        return slot
    }

    /// The topic id and name a beacon is published under. A phone or watch known by its key always
    /// has an alias (MQTT.md): the one the agents' measurements carry names it here too, unless a
    /// known beacon's entry says otherwise.
    private static func identity(_ beacon: BeaconID, known: KnownBeacon?, heardAlias: TopicLevelID?, heardName: String?)
        -> (id: String, name: String)
    {
        let id = known?.topicID ?? heardAlias?.rawValue ?? beacon.rawValue
        return (id, known?.name ?? heardName ?? id)
    }

    /// A tracked beacon's known entry changed to `known` (nil: no longer a known beacon).
    private mutating func follow(_ known: KnownBeacon?, slot: Int, into out: inout [AggregatorPublication]) {
        guard let entry = entries[slot] else { return }
        decider.setAwayTimeout(known?.awayTimeout, for: RoomDecider.BeaconSlot(index: slot))
        if known != nil, !hot[slot].isKnown {
            // Known from now on: never evicted, never forgotten.
            removeUnknown(slot)
            unknownCount -= 1
            hot[slot].isKnown = true
        } else if known == nil, hot[slot].isKnown {
            // Counted against the cap again, as the most recently heard (it was protected until
            // now); forgotten once not heard for forgetAfter, counted from when it was last heard.
            hot[slot].isKnown = false
            unknownCount += 1
            appendNewestUnknown(slot)
        }
        let (id, name) = Self.identity(entry.beacon, known: known, heardAlias: entry.heardAlias, heardName: entry.heardName)
        guard id != entry.id || name != entry.name else { return }
        let room = hot[slot].occupiedRoom
        if id != entry.id {
            // A new topic id: the old topics and entities go (Home Assistant's unique ids carry the
            // topic id, so the device comes back under the new one), then the beacon leaves its
            // room's list, where occupants are ordered by id, to come back in its new place.
            if let discovery { out += discovery.removals(beacon: entry.id) }
            out.append(.clear(topics.location(entry.id)))
            out.append(.clear(topics.locationRoom(entry.id)))
            vacate(slot)
        }
        entries[slot]?.id = id
        entries[slot]?.name = name
        entries[slot]?.location?.id = id
        entries[slot]?.location?.name = name
        entries[slot]?.publishedSignificantPart = nil
        if let discovery { out += discovery.configurations(beacon: id, canonical: entry.beacon, name: name) }
        guard let location = currentLocation(slot) else { return }
        out.append(.retained(topics.location(id), location.json))
        if id != entry.id {
            out.append(.retained(topics.locationRoom(id), location.room))
            if room >= 0 { occupy(rooms[room].name, slot: slot, announce: true) }
        } else if room >= 0 {
            // Same place in the list, a new name in it: the room's message goes with the location.
            updateOccupant(slot)
            markDue(room)
        }
    }

    // MARK: - Discovery of rooms and nodes

    private mutating func announceAggregator(into out: inout [AggregatorPublication]) {
        guard !aggregatorAnnounced, let discovery else { return }
        aggregatorAnnounced = true
        out.append(discovery.aggregatorConfiguration())
    }

    /// A room met: if new, it joins the options and every tracked beacon's room config is sent
    /// again (a beacon tracked later gets it with its first config).
    private mutating func addRoom(_ room: String, into out: inout [AggregatorPublication]) {
        guard discovery?.addRoom(room) == true, let discovery else { return }
        for slot in slotsByBeacon() {
            guard let entry = entries[slot] else { continue }
            out.append(discovery.configuration(.room, beacon: entry.id, canonical: entry.beacon, name: entry.name))
        }
    }

    /// A node met (status, info or measurement): its device is announced, or announced again when
    /// what it shows changed; its room is added to the options.
    private mutating func noteNode(_ name: String, room: String?, version: String?, into out: inout [AggregatorPublication]) {
        guard discovery != nil else { return }
        if let room { addRoom(room, into: &out) }
        guard let node = TopicLevelID(name) else { return }
        let known = nodeDevices[node]
        var device = known ?? HomeAssistantDiscovery.NodeDevice()
        if let room { device.room = room }
        if let version { device.version = version }
        guard device != known, let discovery else { return }
        nodeDevices[node] = device
        announceAggregator(into: &out)
        out += discovery.nodeConfigurations(node: node, device: device)
    }

    /// Stops tracking the beacon in `slot`: clears its retained topics and discovery entities.
    private mutating func forget(_ slot: Int, roomMessageAtTick: Bool = false, into out: inout [AggregatorPublication]) {
        guard hot[slot].isTracked, let entry = entries[slot] else { return }
        vacate(slot, roomMessageAtTick: roomMessageAtTick)
        if !hot[slot].isKnown {
            removeUnknown(slot)
            unknownCount -= 1
        }
        hot[slot] = Hot()
        entries[slot] = nil
        trackedCount -= 1
        decider.forget(beacon: entry.beacon)
        model?.forget(beacon: entry.beacon)
        if decider.slotCapacity == 0 {
            hot.removeAll()
            entries.removeAll()
        }
        // The entities go first: an empty room payload is no option of the room sensor.
        if let discovery { out += discovery.removals(beacon: entry.id) }
        out.append(.clear(topics.location(entry.id)))
        out.append(.clear(topics.locationRoom(entry.id)))
    }

    private mutating func appendNewestUnknown(_ slot: Int) {
        hot[slot].older = newestUnknown
        hot[slot].newer = -1
        if newestUnknown >= 0 { hot[newestUnknown].newer = slot } else { oldestUnknown = slot }
        newestUnknown = slot
    }

    private mutating func removeUnknown(_ slot: Int) {
        let older = hot[slot].older
        let newer = hot[slot].newer
        if older >= 0 { hot[older].newer = newer } else { oldestUnknown = newer }
        if newer >= 0 { hot[newer].older = older } else { newestUnknown = older }
        hot[slot].older = -1
        hot[slot].newer = -1
    }

    private mutating func touchUnknown(_ slot: Int) {
        guard newestUnknown != slot else { return }
        removeUnknown(slot)
        appendNewestUnknown(slot)
    }

    // MARK: - Decisions

    /// A decision of the decider (or a restored beacon's away): publish location, room topics, event.
    private mutating func apply(_ decision: RoomDecision, slot: Int, at time: Instant,
                                into out: inout [AggregatorPublication]) {
        guard hot[slot].isTracked, let entry = entries[slot] else { return }
        let previous = entry.location
        let keepsRoom = previous?.room == decision.room
        let location = BeaconLocation(
            id: entry.id, beacon: decision.beacon, name: entry.name, room: decision.room, distance: decision.distance,
            proximity: decision.proximity, node: decision.node, since: keepsRoom ? (previous?.since ?? decision.since) : decision.since,
            confidence: decision.confidence, candidates: decision.candidates,
            floor: decision.room == RoomDecision.notHome ? nil : configuration.floor(of: decision.room))
        let summary = decider.summary(in: RoomDecider.BeaconSlot(index: slot))
        // Once the decider decides, the restored location has served; a synthesized away keeps it
        // (so that it is not repeated).
        if summary.isDecided { hot[slot].restoredAt = nil }
        let fromDecider = summary.roomCode.map { decider.roomName(code: $0) == decision.room } ?? false
        entries[slot]?.location = location
        entries[slot]?.publishedSignificantPart = nil
        hot[slot].locationFollowsDecider = false
        hot[slot].locationRoomCode = fromDecider ? summary.roomCode : nil
        hot[slot].publishedSummary = fromDecider ? summary : nil
        out.append(.retained(topics.location(entry.id), location.json))
        if keepsRoom {
            // Membership unchanged: the occupant's distance may have, which the next tick publishes.
            updateOccupant(slot)
            return
        }
        out.append(.retained(topics.locationRoom(entry.id), location.room))
        vacate(slot)
        if location.room != RoomDecision.notHome { occupy(location.room, slot: slot, announce: true) }
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

    /// Re-publishes a beacon's location when something significant changed without a room change
    /// (its room's message follows at the next tick). Called after every measurement that did not
    /// change the room: the usual case compares plain values only.
    private mutating func refresh(_ slot: Int, into out: inout [AggregatorPublication]) {
        guard hot[slot].isTracked else { return }
        let handle = RoomDecider.BeaconSlot(index: slot)
        let summary = decider.summary(in: handle)
        guard let roomCode = summary.roomCode else { return }
        let state = hot[slot]
        if let locationRoom = state.locationRoomCode {
            guard locationRoom == roomCode else { return }
        } else {
            guard let current = entries[slot]?.location else {
                // Decided before we tracked it: publish as new once the decider places it in a
                // room; its `not_home` is not news.
                if decider.roomName(code: roomCode) != RoomDecision.notHome, let decision = decider.decision(in: handle) {
                    apply(decision, slot: slot, at: decision.since, into: &out)
                }
                return
            }
            guard decider.roomName(code: roomCode) == current.room else { return }
        }
        hot[slot].restoredAt = nil
        hot[slot].locationFollowsDecider = true
        if let published = state.publishedSummary, published.candidateRoomsExact, summary.candidateRoomsExact {
            let changed = published.nodeCode != summary.nodeCode || published.proximity != summary.proximity
                || Self.tenthsDiffer(published.distance, summary.distance)
                || published.candidateRooms != summary.candidateRooms
            guard changed else { return }
        }
        guard let entry = entries[slot], let current = entry.location, let decision = decider.decision(in: handle) else {
            return
        }
        let location = Self.location(entry, current, decision)
        let significant = location.significantPart
        let published = entry.publishedSignificantPart ?? current.significantPart
        if entry.publishedSignificantPart == nil { entries[slot]?.publishedSignificantPart = published }
        guard significant != published else {
            // Nothing significant changed since the published location (restored, or with more
            // than 64 rooms): its summary stands for it from now on.
            if summary.candidateRoomsExact {
                hot[slot].locationRoomCode = roomCode
                hot[slot].publishedSummary = summary
            }
            return
        }
        entries[slot]?.location = location
        entries[slot]?.publishedSignificantPart = significant
        hot[slot].locationFollowsDecider = false
        hot[slot].locationRoomCode = roomCode
        hot[slot].publishedSummary = summary
        out.append(.retained(topics.location(entry.id), location.json))
        updateOccupant(slot)
    }

    /// Whether the distances differ to 0.1 m, as `BeaconLocation.significantPart` compares them
    /// (`(d * 10).rounded() / 10`). Below 2^49 distinct whole tenths stay distinct after the
    /// division, so it is skipped there (two divisions were 1.5 % of an update); beyond, and for
    /// NaN, the division decides as before.
    private static func tenthsDiffer(_ a: Double?, _ b: Double?) -> Bool {
        guard let a, let b else { return (a == nil) != (b == nil) }
        let tenthsA = (a * 10).rounded()
        let tenthsB = (b * 10).rounded()
        if tenthsA == tenthsB { return false }
        if abs(tenthsA) < 0x1p49, abs(tenthsB) < 0x1p49 { return true }
        return tenthsA / 10 != tenthsB / 10
    }

    /// `current` (same room) with the decision's details: the room's `since` is kept.
    private static func location(_ entry: Tracked, _ current: BeaconLocation, _ decision: RoomDecision) -> BeaconLocation {
        BeaconLocation(
            id: entry.id, beacon: entry.beacon, name: entry.name, room: decision.room, distance: decision.distance,
            proximity: decision.proximity, node: decision.node, since: current.since, confidence: decision.confidence,
            candidates: decision.candidates, floor: current.floor)
    }

    /// The location as `location(of:)` shows it: the stored one, or the decider's newer details of
    /// the same room.
    private func currentLocation(_ slot: Int) -> BeaconLocation? {
        guard let entry = entries[slot], let location = entry.location else { return nil }
        guard hot[slot].locationFollowsDecider, let decision = decider.decision(in: RoomDecider.BeaconSlot(index: slot)),
            decision.room == location.room
        else { return location }
        return Self.location(entry, location, decision)
    }

    // MARK: - Rooms

    private mutating func occupy(_ name: String, slot: Int, announce: Bool) {
        let room: Int
        if let index = roomIndex[name] {
            room = index
        } else {
            room = rooms.count
            rooms.append(Room(name: name, topic: topics.room(name)))
            roomIndex[name] = room
        }
        guard let entry = entries[slot] else { return }
        let position = insertionPoint(entry.id, slot: slot, in: rooms[room].occupants)
        let json = Self.occupantJSON(entry)
        rooms[room].insert(Occupant(id: entry.id, slot: slot, json: json, length: json.utf8.count), at: position)
        hot[slot].occupiedRoom = room
        if announce { markDue(room) }
    }

    /// Takes the beacon in `slot` out of the room it occupies, if any; the room's message is due in
    /// this call, or at the next tick.
    private mutating func vacate(_ slot: Int, roomMessageAtTick: Bool = false) {
        let room = hot[slot].occupiedRoom
        guard room >= 0, let id = entries[slot]?.id else { return }
        let position = insertionPoint(id, slot: slot, in: rooms[room].occupants)
        if rooms[room].occupants.indices.contains(position), rooms[room].occupants[position].slot == slot {
            rooms[room].remove(at: position)
        } else if let index = rooms[room].occupants.firstIndex(where: { $0.slot == slot }) {
            rooms[room].remove(at: index)
        }
        hot[slot].occupiedRoom = -1
        if roomMessageAtTick { markDueAtTick(room) } else { markDue(room) }
    }

    /// The beacon's location was published again in the same room: its part of the room's list
    /// follows, and the list is due at the next tick if that part changed.
    private mutating func updateOccupant(_ slot: Int) {
        let room = hot[slot].occupiedRoom
        guard room >= 0, let entry = entries[slot] else { return }
        let position = insertionPoint(entry.id, slot: slot, in: rooms[room].occupants)
        guard rooms[room].occupants.indices.contains(position), rooms[room].occupants[position].slot == slot else { return }
        let json = Self.occupantJSON(entry)
        guard json != rooms[room].occupants[position].json else { return }
        rooms[room].replace(at: position, with: json)
        markDueAtTick(room)
    }

    /// Where (`id`, `slot`) sits, or would sit, in occupants ordered by id then slot.
    private func insertionPoint(_ id: String, slot: Int, in occupants: [Occupant]) -> Int {
        var low = 0, high = occupants.count
        while low < high {
            let middle = (low + high) / 2
            let other = occupants[middle]
            if other.id < id || (other.id == id && other.slot < slot) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private mutating func markDue(_ room: Int) {
        guard !rooms[room].isDue else { return }
        rooms[room].isDue = true
        dueRooms.append(room)
    }

    private mutating func markDueAtTick(_ room: Int) {
        guard !rooms[room].isDueAtTick else { return }
        rooms[room].isDueAtTick = true
        dueAtTickRooms.append(room)
    }

    /// The messages of the rooms due in this call, once each.
    private mutating func publishDueRooms(into out: inout [AggregatorPublication]) {
        guard !dueRooms.isEmpty else { return }
        for room in dueRooms {
            out.append(roomMessage(room))
            rooms[room].isDue = false
            // The message carries every occupant's current distance.
            rooms[room].isDueAtTick = false
        }
        dueRooms.removeAll(keepingCapacity: true)
    }

    /// `{"room","occupants":[{"id","name","since","distance"}],"count"}`, occupants by id; each
    /// occupant's part is kept from when its location was last published. The payload is the
    /// room's own text, shared, not copied.
    private func roomMessage(_ room: Int) -> AggregatorPublication {
        .retained(rooms[room].topic, rooms[room].payload)
    }

    /// An occupant as its published location shows it (a restored one: as restored).
    private static func occupantJSON(_ entry: Tracked) -> String {
        var occupant = JSONObjectWriter()
        occupant.add("id", entry.id)
        occupant.add("name", entry.name)
        if let location = entry.location {
            occupant.add("since", ISO8601Timestamp.string(from: location.since))
            if let distance = location.distance { occupant.add("distance", distance, decimals: 2) } else { occupant.addNull("distance") }
        }
        return occupant.json
    }

}

extension AggregatorCore.Room {
    /// `],"count":N}`: what follows the occupants.
    static func tail(count: Int) -> String {
        #"],"count":"# + String(count) + "}"
    }

    /// The UTF-8 offset in `payload` where the occupant at `position` starts.
    private func offset(of position: Int) -> Int {
        var offset = headLength
        for index in 0..<position { offset += occupants[index].length + 1 }
        return offset
    }

    private func index(_ offset: Int) -> String.Index {
        payload.utf8.index(payload.utf8.startIndex, offsetBy: offset)
    }

    /// Rewrites the count at the end, after the occupants changed.
    private mutating func updateTail() {
        let tail = Self.tail(count: occupants.count)
        let end = payload.utf8.count
        payload.replaceSubrange(index(end - tailLength)..<payload.endIndex, with: tail)
        tailLength = tail.utf8.count
    }

    mutating func insert(_ occupant: AggregatorCore.Occupant, at position: Int) {
        if occupants.isEmpty {
            payload.insert(contentsOf: occupant.json, at: index(headLength))
        } else if position == occupants.count {
            payload.insert(contentsOf: "," + occupant.json, at: index(payload.utf8.count - tailLength))
        } else {
            payload.insert(contentsOf: occupant.json + ",", at: index(offset(of: position)))
        }
        occupants.insert(occupant, at: position)
        updateTail()
    }

    mutating func remove(at position: Int) {
        let length = occupants[position].length
        if occupants.count == 1 {
            payload.removeSubrange(index(headLength)..<index(headLength + length))
        } else if position == occupants.count - 1 {
            // The last part and the comma before it.
            let start = offset(of: position) - 1
            payload.removeSubrange(index(start)..<index(start + length + 1))
        } else {
            let start = offset(of: position)
            payload.removeSubrange(index(start)..<index(start + length + 1))
        }
        occupants.remove(at: position)
        updateTail()
    }

    mutating func replace(at position: Int, with json: String) {
        let start = offset(of: position)
        payload.replaceSubrange(index(start)..<index(start + occupants[position].length), with: json)
        occupants[position].json = json
        occupants[position].length = json.utf8.count
    }
}
