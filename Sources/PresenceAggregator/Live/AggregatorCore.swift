import BeaconCore
import RoomDecisions

/// The live aggregator's state, without I/O: measurements, node statuses, its own retained
/// locations (restore) and the passing of time go in; the MQTT messages to send come out
/// (docs/MQTT.md's aggregator topics). `AggregatorService` feeds it from the broker and publishes what it
/// returns; tests may drive it directly. The room decision itself is `RoomDecider`'s.
///
/// - Each decision change publishes `<root>/locations/<beacon>` and `…/room` (retained), the
///   `<root>/rooms/<room>` of the room left and the room entered (retained), and one
///   `<root>/events` message: `arrived` from `not_home` or no room, `departed` to `not_home`,
///   `room_changed` otherwise.
/// - Between changes a location is re-published when its node, proximity or candidate rooms
///   change, and when its distance moved as `configuration.locationRefresh` says (25 % at once,
///   0.1 m after a minute), not at every measurement.
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
        /// What was last published of its location.
        var published = PublishedLocation()
        /// Index in `rooms` of the room this beacon occupies (its location's room, not `not_home`), −1 none.
        var occupiedRoom = -1
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
        var publishedSignificantPart: BeaconLocation.SignificantPart?
    }

    public let configuration: AggregatorConfiguration
    /// Nil when discovery is off. Its `rooms` grow as rooms are met (node info, measurements,
    /// restored locations).
    public internal(set) var discovery: HomeAssistantDiscovery?
    /// The physics rule, and the learned site model over it when the configuration names one
    /// (`decision.model`): with a model, the model's decisions are the ones published.
    public internal(set) var decider: SiteRoomDecider
    /// Per decider slot (`RoomDecider.BeaconSlot.index`): the beacons this core tracks. The decider
    /// holds a slot exactly for each tracked beacon (the core forgets both together).
    var hot: [Hot] = []
    var entries: [Tracked?] = []
    var trackedCount = 0
    /// The file's known beacons merged with the pushed `<root>/config/beacons`.
    public private(set) var knownBeacons: AggregatorKnownBeacons
    /// The rooms' messages, and which are due.
    var roomMessages = RoomMessages()
    /// Unknown (not known) beacons tracked, and the ends of their least-recently-heard list.
    var unknownBeacons = SlotRecencyLists()
    /// When each beacon next needs the tick (a restored location's away timeout, being
    /// forgotten): a tick looks at those alone, not at every beacon.
    var timers = SlotTimers()

    /// The nodes' calibration from each other's node beacons, named by the nodes' info and the
    /// configuration's `nodeBeacons`; idle (nothing solved or published) until a node beacon is
    /// named or heard.
    public internal(set) var nodeCalibration: NodeCalibrationState
    /// The last solve not yet taken by the service (`takeSolvedCalibration`), to log and keep.
    var solvedCalibration: NodeCalibration?

    /// Unknown beacons evicted since start because `configuration.maxUnknownBeacons` were already
    /// tracked: what a flood of random beacon ids cost.
    public internal(set) var evictedBeacons = 0

    public var topics: TopicScheme { configuration.topics }

    public init(configuration: AggregatorConfiguration, softwareVersion: String, supportURL: String? = nil) {
        self.configuration = configuration
        decider = SiteRoomDecider(parameters: configuration.decision, model: configuration.siteModel)
        decider.motionParameters = configuration.motionDecision
        discovery = configuration.homeAssistantDiscovery
            ? HomeAssistantDiscovery(prefix: configuration.homeAssistantPrefix, topics: configuration.topics,
                                     origin: .init(softwareVersion: softwareVersion, supportURL: supportURL),
                                     // A model's rooms are rooms of the site even before a node serving one is seen.
                                     rooms: configuration.siteModel?.rooms ?? [],
                                     floors: Array(Set(configuration.roomFloors.values)))
            : nil
        knownBeacons = AggregatorKnownBeacons(file: configuration.knownBeacons, forgetAfter: configuration.forgetAfter)
        nodeCalibration = NodeCalibrationState(configured: configuration.nodeBeacons)
    }

    // MARK: - Inputs

    /// Folds in a node's measurement received at `time`. A measurement from a node reported offline
    /// is ignored.
    public mutating func receive(_ measurement: ReceivedMeasurement, at time: Instant) -> [AggregatorPublication] {
        guard !decider.physics.isOffline(node: measurement.node) else { return [] }
        // A node beacon is calibration's, not a beacon to place; a confident offset corrects the rest.
        if nodeCalibration.receive(measurement, at: time) { return [] }
        if let offset = nodeCalibration.offset(for: measurement.node) {
            return decide(measurement.correctedForReceiverOffset(offset, pathLossExponent: configuration.decision.pathLossExponent),
                          at: time)
        }
        return decide(measurement, at: time)
    }

    /// `receive`'s room decision, once the measurement is one to decide with.
    private mutating func decide(_ measurement: ReceivedMeasurement, at time: Instant) -> [AggregatorPublication] {
        var out: [AggregatorPublication] = []
        let slot: RoomDecider.BeaconSlot
        if measurement.isSilence {
            // A silence never makes a beacon appear.
            guard let known = decider.physics.slot(of: measurement.beacon) else { return [] }
            slot = known
        } else {
            // A new beacon's first configs then carry the room it is heard in (not a second room
            // config a moment later, while Home Assistant is still creating the entity).
            if discovery != nil, decider.physics.slot(of: measurement.beacon) == nil {
                noteNode(measurement.node, room: measurement.room, version: nil, into: &out)
            }
            slot = track(measurement.beacon, name: measurement.name, alias: measurement.alias, heardAt: time, into: &out)
        }
        let knownNodes = decider.physics.knownNodeCount
        let knownRooms = decider.physics.knownRoomCount
        let decision = decider.update(node: measurement.node, room: measurement.room, distance: measurement.distance,
                                      proximity: measurement.proximity, in: slot, at: time, evidence: measurement.evidence)
        // A node or room the decider had not met: announce it before any decision names it (the
        // room sensors' options must hold a room before it is a state). Two counts compared, no
        // hashing, in the usual case.
        if discovery != nil, decider.physics.knownNodeCount != knownNodes || decider.physics.knownRoomCount != knownRooms {
            noteNode(measurement.node, room: measurement.isSilence ? nil : measurement.room, version: nil, into: &out)
        }
        if let decision {
            apply(decision, slot: slot.index, at: time, into: &out)
        } else {
            refresh(slot.index, at: time, into: &out)
        }
        roomMessages.publishDue(into: &out, at: time.seconds)
        return out
    }

    /// A node's status (`online`/`offline`): an offline node's evidence is dropped at once.
    public mutating func nodeStatus(node: String, online: Bool, at time: Instant) -> [AggregatorPublication] {
        var out: [AggregatorPublication] = []
        if let discovery, let id = TopicLevelID(node), !discovery.hasNodeDevice(id) {
            noteNode(node, room: nil, version: nil, into: &out)
        }
        apply(decider.setNodeStatus(node: node, online: online, at: time), at: time, into: &out)
        roomMessages.publishDue(into: &out, at: time.seconds)
        return out
    }

    /// A room's motion changed (`MotionSources`): occupied, clear, or nil when none of its sensors
    /// counts any more. Evidence for the next decisions; it moves no beacon by itself, so nothing
    /// is published now.
    public mutating func motion(room: String, occupied: Bool?, at time: Instant) {
        decider.setMotion(room: room, occupied: occupied, at: time)
    }

    /// A retained `<root>/locations/<beacon>` message of a previous run. Used only for a beacon the
    /// aggregator has no state for yet; returns the discovery messages to (re)send for it. A node
    /// beacon's (an older aggregator's) is not restored: node beacons are placed in no room.
    public mutating func restore(_ location: BeaconLocation, at time: Instant) -> [AggregatorPublication] {
        guard decider.physics.slot(of: location.beacon) == nil, !NodeBeacon.isNodeBeacon(location.beacon),
            nodeCalibration.nodeBeacons[location.beacon] == nil
        else { return [] }
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
        hot[slot].published.restoredAt = time
        hot[slot].published.distance = restored.distance
        scheduleTimer(slot)
        // Membership restored as it was published: no room message of its own.
        if restored.room != RoomDecision.notHome { occupy(restored.room, slot: slot, announce: false) }
        roomMessages.publishDue(into: &out, at: time.seconds)
        return out
    }

    /// A message of the operator's retained `<root>/config/beacons` (docs/MQTT.md), read by the agents'
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
        roomMessages.publishDue(into: &out)
        return out
    }

    /// Lets time pass: dwell, stale evidence and away timeouts of the decider, the away timeout of
    /// restored beacons never heard since, forgetting, and the room messages of distance changes
    /// since the last tick.
    public mutating func tick(at time: Instant) -> [AggregatorPublication] {
        var out: [AggregatorPublication] = []
        if let solved = nodeCalibration.solveIfDue(at: time) {
            solvedCalibration = solved
            out.append(.retained(topics.calibration, NodeCalibrationPayload.json(solved, applied: nodeCalibration.applications)))
            pushCalibration(into: &out)
        }
        apply(decider.tick(at: time), at: time, into: &out)
        // Only the beacons whose timer is due (within a millisecond, so that rounding of the due
        // time never delays one a tick: the exact test below decides); only those that need
        // something are sorted.
        let forgetAfter = configuration.forgetAfter
        let candidates = timers.takeDue(by: time.seconds + 0.001)
        var due: [(beacon: BeaconID, slot: Int)] = []
        for slot in candidates where slot < hot.count && hot[slot].isTracked {
            let restoredAway = hot[slot].published.restoredAt.map { time.since($0) >= restoredAwayTimeout(slot) } ?? false
            let forgotten = !hot[slot].isKnown && forgetAfter > 0 && time.since(hot[slot].lastHeard) >= forgetAfter
            if restoredAway || forgotten, let beacon = entries[slot]?.beacon { due.append((beacon, slot)) }
        }
        if due.count > 1 { due.sort { $0.beacon < $1.beacon } }
        for (beacon, slot) in due {
            guard hot[slot].isTracked, let location = entries[slot]?.location else {
                if hot[slot].isTracked, isForgotten(slot, at: time) { forget(slot, into: &out) }
                continue
            }
            if let restoredAt = hot[slot].published.restoredAt, location.room != RoomDecision.notHome,
                !decider.physics.summary(in: RoomDecider.BeaconSlot(index: slot)).isDecided,
                time.since(restoredAt) >= restoredAwayTimeout(slot)
            {
                let away = RoomDecision(beacon: beacon, room: RoomDecision.notHome, distance: nil, proximity: .unknown,
                                        node: nil, since: time, confidence: 0, candidates: [:])
                apply(away, slot: slot, at: time, into: &out)
            }
            if isForgotten(slot, at: time) { forget(slot, into: &out) }
        }
        // Still tracked: their next time (a beacon heard since, a restored one now decided).
        // (Forgetting the last beacon empties `hot`.)
        for slot in candidates where slot < hot.count && hot[slot].isTracked { scheduleTimer(slot) }
        roomMessages.tick()
        roomMessages.publishDue(into: &out, at: time.seconds)
        discovery?.removeUnclaimedNodeDevices(at: time, into: &out)
        return out
    }

    /// A restored beacon may simply be still: agents re-report a still beacon only every heartbeat
    /// (60 s), so it gets the evidence's whole life (`staleAfter`, 150 s) before it is sent away,
    /// not the away timeout alone (30 s) — else every restart or standby takeover would send still
    /// beacons to `not_home` and back. A device with an away timeout of its own longer than that
    /// (a phone that stays silent for minutes) gets its own.
    func restoredAwayTimeout(_ slot: Int) -> Double {
        max(decider.physics.awayTimeout(for: RoomDecider.BeaconSlot(index: slot)), configuration.decision.staleAfter)
    }

    /// When the beacon in `slot` next needs the tick: its restored location's away timeout, or
    /// being forgotten (an unknown beacon unheard for `forgetAfter`); +∞ for neither.
    func nextTimer(_ slot: Int) -> Double {
        let state = hot[slot]
        guard state.isTracked else { return .infinity }
        var due = Double.infinity
        if let restoredAt = state.published.restoredAt { due = restoredAt.seconds + restoredAwayTimeout(slot) }
        if !state.isKnown, configuration.forgetAfter > 0 { due = min(due, state.lastHeard.seconds + configuration.forgetAfter) }
        return due
    }

    /// After anything that may bring the beacon's next timer earlier (tracked, restored, known no
    /// more, a new away timeout). One heard again moves it later: found when it comes up.
    mutating func scheduleTimer(_ slot: Int) {
        timers.schedule(slot, at: nextTimer(slot))
    }

    func isForgotten(_ slot: Int, at time: Instant) -> Bool {
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
        out += roomMessages.allByName
        return out
    }

    /// The discovery configs of the aggregator, every node and every beacon (none when discovery
    /// is off).
    public func discoveryMessages() -> [AggregatorPublication] {
        guard let discovery else { return [] }
        return discovery.nodeDeviceConfigurations() + slotsByBeacon().flatMap { slot -> [AggregatorPublication] in
            guard let entry = entries[slot] else { return [] }
            return discovery.configurations(beacon: entry.id, canonical: entry.beacon, name: entry.name)
        }
    }

    /// The aggregator's own device, once per run (at the first connect): empty after that, and
    /// when discovery is off.
    public mutating func announceAggregator() -> [AggregatorPublication] {
        var out: [AggregatorPublication] = []
        discovery?.announceAggregator(into: &out)
        return out
    }

    /// A node's retained info (`{"node","room","version",…}`): its device shows its room (as the
    /// suggested area) and version, and its room joins the room sensors' options. An unreadable
    /// message changes nothing: the info is a display, not evidence. Its `nodeBeacon.id` names the
    /// node's beacon to the calibration (`NodeCalibrationState.learn`). A cleared info (empty
    /// payload) is how an operator retires a node, since the agent itself never clears it: the
    /// node's device leaves Home Assistant (its discovery configs cleared), and comes back if the
    /// node is heard from again; its node beacon is no longer its.
    public mutating func nodeInfo(node: String, payload: [UInt8]) -> [AggregatorPublication] {
        nodeCalibration.learn(node: node, beacon: payload.isEmpty ? nil : Self.nodeBeacon(inInfo: payload))
        nodeCalibration.learn(node: node, measuresWith: payload.isEmpty ? nil : Self.rssiOffset(inInfo: payload))
        var out: [AggregatorPublication] = []
        // A node that (re)starts without the offset it is due is pushed it now, not at the next solve.
        pushCalibration(into: &out)
        if payload.isEmpty {
            guard discovery != nil, let id = TopicLevelID(node) else { return out }
            return out + discovery!.retireNode(id)
        }
        guard discovery != nil, let info = HomeAssistantDiscovery.nodeInfo(payload) else { return out }
        noteNode(node, room: info.room, version: info.version, into: &out)
        return out
    }

    /// The calibration pushes due (`NodeCalibrationState.takePushes`), each retained on its node's
    /// `<root>/nodes/<node>/calibration`.
    private mutating func pushCalibration(into out: inout [AggregatorPublication]) {
        guard let solvedAt = nodeCalibration.calibration?.solvedAt else { return }
        for push in nodeCalibration.takePushes() {
            guard let node = TopicLevelID(push.node) else { continue }
            out.append(.retained(topics.nodeCalibration(node),
                                 PushedCalibration.json(offset: push.offset, standardError: push.standardError, solvedAt: solvedAt)))
        }
    }

    /// A node's room and version as a foreign node reports them (not as our agents' retained info):
    /// its device shows them, checked as the info's fields are, and its kind says where its
    /// connectivity is read.
    public mutating func nodeInfo(node: String, room: String, version: String?, kind: NodeKind) -> [AggregatorPublication] {
        guard discovery != nil else { return [] }
        let shown = HomeAssistantDiscovery.nodeShows(room: room, version: version)
        var out: [AggregatorPublication] = []
        noteNode(node, room: shown.room, version: shown.version, kind: kind, into: &out)
        return out
    }

    /// A node device's retained connectivity config, as the broker kept it (`payload` non-empty)
    /// from an earlier run. Unless the node's info, status or a measurement of it arrives within
    /// `HomeAssistantDiscovery.unclaimedNodeDeviceGrace`, a tick removes the device: its node was
    /// retired while the aggregator was down.
    public mutating func retainedNodeDevice(node: TopicLevelID, payload: [UInt8], at time: Instant) {
        guard discovery != nil, !payload.isEmpty else { return }
        discovery!.retainedNodeDevice(node, at: time)
    }

    /// The published location of a beacon, by canonical id, with the decider's latest distance,
    /// confidence and candidates while its room holds.
    public func location(of beacon: BeaconID) -> BeaconLocation? {
        decider.physics.slot(of: beacon).flatMap { currentLocation($0.index) }
    }

    /// The calibration solved since the last call, if any: what the service logs and keeps.
    public mutating func takeSolvedCalibration() -> NodeCalibration? {
        defer { solvedCalibration = nil }
        return solvedCalibration
    }

    /// Starts from a calibration kept across a restart (`NodeCalibrationFile`): its confident
    /// offsets apply at once.
    public mutating func restoreCalibration(_ calibration: NodeCalibration) {
        nodeCalibration.restore(calibration)
    }

    /// The offset a node's info says it measures with, and whose (`rssiOffset`, `rssiOffsetSource`);
    /// nil from an agent that says neither (older than the fields).
    static func rssiOffset(inInfo payload: [UInt8]) -> (value: Double, source: RSSIOffsetSource)? {
        guard let info = JSONFieldReader(lenient: payload, maximumBytes: 4096, maximumDepth: 4),
            let source = info.lenientString("rssiOffsetSource").flatMap(RSSIOffsetSource.init(rawValue:))
        else { return nil }
        return (info.lenientNumber("rssiOffset") ?? 0, source)
    }

    /// The canonical id of the node beacon a node's info names (`nodeBeacon.id`); nil when it
    /// names none or no canonical id.
    static func nodeBeacon(inInfo payload: [UInt8]) -> BeaconID? {
        guard let info = JSONFieldReader(lenient: payload, maximumBytes: 4096, maximumDepth: 4),
            let text = info.lenientObject("nodeBeacon")?.lenientString("id"), BeaconIDSyntax.isCanonical(text)
        else { return nil }
        return BeaconID(rawValue: text)
    }

    /// Nodes the site model does not know, each returned once (for the log); none without a model.
    public mutating func takeUnknownNodes() -> [String] {
        decider.takeUnknownNodes()
    }

    /// The site model's nodes neither heard from nor online when deciding started, returned once
    /// (for the log); none without a model.
    public mutating func takeAbsentNodes() -> [String] {
        decider.takeAbsentNodes()
    }

    /// Beacons the aggregator currently publishes, by canonical id.
    public var trackedBeacons: [BeaconID] { slotsByBeacon().compactMap { entries[$0]?.beacon } }

    /// How many beacons the aggregator tracks, known ones included.
    public var trackedBeaconCount: Int { trackedCount }

    /// How many of them are not known beacons: at most `configuration.maxUnknownBeacons`.
    public var trackedUnknownBeaconCount: Int { unknownBeacons.count() }
}
