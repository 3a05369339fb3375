import BeaconCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Decides which room each beacon is in, from every node's measurements (docs/Semantics.md "Which room").
///
/// Per beacon it keeps the freshest evidence of every node. Each node's evidence scores
/// `−10·n·log₁₀(distance)` dB; a room scores the mean linear power of its nodes that hear the
/// beacon (led by its loudest node, as power is linear, but a room is not favoured for having more
/// receivers: a sum favours the side with more receivers and holds a leaving beacon there too
/// long). Deciding
/// starts `settleTime` after the first evidence, so every node that hears the beacon has spoken.
/// The current room then stays until a challenger leads it by more than `margin` dB without a
/// break for `dwell` seconds **and** its lead above the margin (capped at `leadCap`), integrated
/// over time, reaches `evidenceToSwitch` dB·s — a decisive lead switches after the dwell, a slim
/// one takes longer. A node's measurement with proximity `unknown` (no distance: the node no
/// longer hears the beacon) drops that node's evidence at once; evidence older than `staleAfter`
/// (a safety net for a lost `unknown`) is dropped too; a room left with no evidence loses to one
/// still heard after the dwell; nodes reported `offline` are ignored until `online`. When no node
/// hears the beacon any more, it keeps its room for `awayTimeout`, then goes `not_home`. Pure
/// value type: time is always a parameter, and nothing happens between calls, so the owner calls
/// `tick(at:)` periodically (the replay: at every sample and at least every second).
///
/// Speed: each beacon has a dense slot (`BeaconSlot`), node and room names are interned to small
/// integer codes, and a beacon's evidence, room scores and challengers live in one block
/// (`BeaconEvidenceSlab`), so an update hashes the beacon id once (none with `update(_:in:at:)`)
/// and the node name once, compares integers, reads one allocation of the beacon's, re-sums only
/// the room whose evidence changed and allocates nothing in the steady state; a `RoomDecision`
/// (with its candidates dictionary) is built only when one is returned. Memory: a beacon stays until
/// `forget(beacon:)`; node and room names stay for the decider's life.
public struct RoomDecider: Sendable {
    /// An interned node or room name.
    @usableFromInline typealias NameCode = Int32
    /// The room code of `RoomDecision.notHome`.
    static let notHomeCode: NameCode = 0

    @usableFromInline struct NodeRecord: Sendable {
        @usableFromInline var offline = false
        /// The room this node reported last, and its code: nodes keep their room, so an update
        /// compares the name instead of hashing it.
        var roomName: String?
        var room: NameCode = notHomeCode
    }

    /// The decision parameters this decider runs with.
    public let parameters: RoomDecisionParameters
    /// Beacon id → slot (hashed once per update). This and the slot arrays below are internal, not
    /// private, for the slot API beside this file (RoomDecider+Slots.swift).
    /// `@usableFromInline` fields serve the `@inlinable` queries made per measurement (`slot(of:)`,
    /// `summary(in:)`, …): a call from another module to a method that is not `mutating` copies the
    /// whole decider first, a large share of the aggregator's work.
    @usableFromInline var slotByBeacon = BeaconSlotTable()
    /// The beacon of each slot; nil for a free slot.
    @usableFromInline var slotBeacons: [BeaconID?] = []
    @usableFromInline var states: [BeaconRoomState] = []
    /// Away timeouts of beacons that have their own (a phone, quiet when locked; `config/beacons`
    /// `awayTimeout`), by slot. Few or none: a dictionary beside the states, not a field in each.
    var awayTimeouts: [Int: Double] = [:]
    var freeSlots: [Int] = []
    @usableFromInline var nodeCodes: [String: NameCode] = [:]
    @usableFromInline var nodeNames: [String] = []
    /// `nameSignature` of each of `nodeNames`.
    private var nodeSignatures: [UInt64] = []
    @usableFromInline var nodes: [NodeRecord] = []
    private var roomCodes: [String: NameCode] = [RoomDecision.notHome: notHomeCode]
    @usableFromInline var roomNames: [String] = [RoomDecision.notHome]
    @usableFromInline var offlineNodeCount = 0
    /// Reused by every evaluation for the new list of challengers.
    private var scratch: [BeaconRoomState.Challenge] = []
    /// Rooms' motion (`setMotion(room:occupied:at:)`), nil until the first report: a site without
    /// sensors decides exactly as before motion existed.
    private(set) var motion: RoomMotionTable?
    /// How motion weighs, once there is some.
    public var motionParameters = MotionParameters.default {
        didSet { motion?.parameters = motionParameters }
    }
    /// Motion of rooms no node has named yet, applied when one does (room codes are the nodes').
    private var pendingMotion: [String: (occupied: Bool?, time: Instant)] = [:]
    /// Which beacons a tick evaluates: the active ones and those with a timer due.
    var tickSchedule = BeaconTickSchedule()
    /// A tick evaluates every beacon, as before the schedule (a test compares the two); the
    /// decisions are the same.
    public var tickEvaluatesEveryBeacon = false
    /// Beacons the last tick evaluated (with the schedule, about the ones moving or fading).
    public private(set) var lastTickEvaluations = 0
    /// Keep each beacon's next change by time alone (`nextDueTime()`, `decideDue(at:)`): the live
    /// aggregator serves it when it falls instead of at the next tick. Off by default (the replay
    /// ticks on the recording's clock and never takes them).
    public var servesDueTimes = false {
        didSet { if !servesDueTimes { dueTimes.removeAll() } }
    }
    /// Per slot, the next change by time alone (`BeaconRoomState.nextChange`), while `servesDueTimes`.
    var dueTimes = SlotTimers()
    /// Seconds ahead within which a due time is kept (`servesDueTimes`).
    static let dueHorizon = 30.0

    /// Creates a decider with no beacons, nodes or rooms yet.
    public init(parameters: RoomDecisionParameters = .default) {
        self.parameters = parameters
    }

    /// Folds in one measurement received at `time`; returns the decision when the beacon's room
    /// changed or deciding started for it, nil when nothing changed. Silence evidence (`unknown`,
    /// no distance) drops the node's evidence. Evidence from an offline node, or with a non-finite
    /// or negative distance, is ignored.
    public mutating func update(_ evidence: NodeEvidence, at time: Instant) -> RoomDecision? {
        guard time.seconds.isFinite else { return nil }
        if let slot = slotIndex(of: evidence.beacon) {
            return update(evidence, slot: slot, at: time)
        }
        // A new beacon: silence, garbage and offline nodes must not make it take memory.
        guard !evidence.isSilence, let distance = evidence.distance, distance.isFinite, distance >= 0,
            !isOffline(node: evidence.node)
        else { return nil }
        return update(evidence, slot: addSlot(for: evidence.beacon).index, at: time)
    }

    /// `update(_:at:)` for a beacon whose slot the caller holds (`addSlot(for:)`), so the beacon
    /// id is not hashed again; `evidence.beacon` must be the slot's beacon. Nil for a free slot.
    public mutating func update(_ evidence: NodeEvidence, in slot: BeaconSlot, at time: Instant) -> RoomDecision? {
        guard time.seconds.isFinite, slotBeacons.indices.contains(slot.index), slotBeacons[slot.index] != nil else {
            return nil
        }
        assert(slotBeacons[slot.index] == evidence.beacon, "evidence for another beacon's slot")
        return update(evidence, slot: slot.index, at: time)
    }

    /// `update(_:in:at:)` from the parts of a measurement its owner already holds (the aggregator):
    /// no `NodeEvidence` to build, so no strings to retain and release per update. Silence is
    /// proximity `unknown` or no distance, as `NodeEvidence.isSilence`.
    public mutating func update(node: String, room: String, distance: Double?, proximity: Proximity,
                                in slot: BeaconSlot, at time: Instant) -> RoomDecision? {
        guard time.seconds.isFinite, slotBeacons.indices.contains(slot.index), slotBeacons[slot.index] != nil else {
            return nil
        }
        return update(node: node, room: room, distance: distance, proximity: proximity, slot: slot.index, at: time)
    }

    private mutating func update(_ evidence: NodeEvidence, slot: Int, at time: Instant) -> RoomDecision? {
        update(node: evidence.node, room: evidence.room, distance: evidence.distance,
               proximity: evidence.proximity, slot: slot, at: time)
    }

    private mutating func update(node name: String, room roomName: String, distance: Double?, proximity: Proximity,
                                 slot: Int, at time: Instant) -> RoomDecision? {
        let node = nodeCode(name)
        guard !nodes[Int(node)].offline else { return nil }
        if proximity == .unknown || distance == nil {
            states[slot].forget(node: node, at: time)
        } else {
            guard let distance, distance.isFinite, distance >= 0 else { return nil }
            let room = roomCode(roomName, reportedBy: node)
            let score = -10 * parameters.pathLossExponent * log10(max(distance, 0.01))
            states[slot].hold(node: node, room: room, proximity: proximity, distance: distance, score: score,
                              at: time, nodeCount: nodes.count)
        }
        guard evaluate(slot: slot, at: time) else { return nil }
        return decision(slot: slot)
    }

    /// Re-decides the beacon in `slot` (in place: no copy of its state); with motion, keeps the
    /// count of beacons per room that explains a room's motion.
    /// Then notes whether a tick may change it before a due time (`BeaconTickSchedule`).
    @inline(__always)
    mutating func evaluate(slot: Int, at time: Instant) -> Bool {
        // In place: `parameters(forSlot:)` (not `mutating`) would copy the whole decider first.
        let slotParameters = awayTimeouts.isEmpty ? parameters : parameters(forSlot: slot)
        tickSchedule.catchUp(&states[slot], slot: slot)
        let changed: Bool
        if motion == nil {
            changed = states[slot].evaluate(at: time, parameters: slotParameters, scratch: &scratch)
        } else {
            let before = states[slot].room
            changed = states[slot].evaluate(at: time, parameters: slotParameters, scratch: &scratch, motion: motion)
            if changed { motion!.moved(from: before, to: states[slot].room) }
        }
        // With motion, a room's motion changes with time alone: every tick evaluates every beacon.
        tickSchedule.noteEvaluated(slot, quietUntil: states[slot].quietUntil(parameters: slotParameters))
        if servesDueTimes, motion == nil {
            // Beyond the horizon it is left to the ticks (the beacon is active, so each re-computes
            // it): a slim lead's far due time would otherwise stay in the heap long after it moved.
            let next = states[slot].nextChange(parameters: slotParameters) ?? .infinity
            dueTimes.reschedule(slot, at: next - time.seconds <= Self.dueHorizon ? next : .infinity)
        }
        return changed
    }

    /// A room's motion sensors say `occupied` (motion now), not (clear), or nil: none of them counts
    /// any more (unavailable, silent). Evidence that *someone* is in the room, weighed by
    /// `motionParameters` at the next update or tick of each beacon: it never moves a beacon by
    /// itself (the Room decisions article, "Motion").
    public mutating func setMotion(room name: String, occupied: Bool?, at time: Instant) {
        guard time.seconds.isFinite else { return }
        if motion == nil {
            var table = RoomMotionTable(parameters: motionParameters)
            for slot in states.indices where slotBeacons[slot] != nil { table.moved(from: nil, to: states[slot].room) }
            motion = table
        }
        guard let code = roomCodes[name] else {
            pendingMotion[name] = (occupied, time)
            return
        }
        motion!.set(room: code, occupied: occupied, at: time)
    }

    /// The motion the decider holds for `room`: nil without a sensor that counts.
    public func motion(of room: String) -> Bool? {
        if let code = roomCodes[room] { return motion?.motion(code) }
        return pendingMotion[room]?.occupied ?? nil
    }

    /// Gives the beacon in `slot` its own away timeout (seconds), or back the common one (nil).
    public mutating func setAwayTimeout(_ seconds: Double?, for slot: BeaconSlot) {
        awayTimeouts[slot.index] = seconds
        tickSchedule.evaluateAtNextTick(slot.index)
    }

    /// The away timeout of the beacon in `slot`: its own when it has one, else the common one.
    public func awayTimeout(for slot: BeaconSlot) -> Double {
        awayTimeouts[slot.index] ?? parameters.awayTimeout
    }

    /// Lets time pass to `time` for every beacon: challengers may win their dwell, stale evidence
    /// goes, silent beacons turn `not_home`. Returns the changed decisions, ordered by beacon.
    /// Evaluates only the beacons that time alone may change now (`BeaconTickSchedule`), unless
    /// rooms' motion is known or `tickEvaluatesEveryBeacon`: the same decisions either way.
    public mutating func tick(at time: Instant) -> [RoomDecision] {
        guard time.seconds.isFinite else { return [] }
        var changed: [RoomDecision] = []
        let scheduled = tickSchedule.takeSlots(at: time.seconds)
        lastTickEvaluations = 0
        func evaluateAtTick(_ slot: Int) {
            lastTickEvaluations += 1
            // In place: no copy of the per-beacon state (this runs every tick).
            if evaluate(slot: slot, at: time),
                let decision = decision(slot: slot)
            {
                changed.append(decision)
            }
        }
        if motion != nil || tickEvaluatesEveryBeacon {
            for slot in states.indices where slotBeacons[slot] != nil { evaluateAtTick(slot) }
        } else {
            for slot in scheduled where slot < states.count && slotBeacons[slot] != nil { evaluateAtTick(slot) }
        }
        tickSchedule.ticked(at: time.seconds)
        if changed.count > 1 { changed.sort { $0.beacon < $1.beacon } }
        return changed
    }

    /// Records a node's status (`<root>/nodes/<node>/status`). Going offline drops its evidence for
    /// every beacon at once and re-decides them; returns the changed decisions, ordered by beacon.
    public mutating func setNodeStatus(node: String, online: Bool, at time: Instant) -> [RoomDecision] {
        let code = Int(nodeCode(node))
        if online {
            if nodes[code].offline {
                nodes[code].offline = false
                offlineNodeCount -= 1
            }
            return []
        }
        if !nodes[code].offline {
            nodes[code].offline = true
            offlineNodeCount += 1
        }
        var changed: [RoomDecision] = []
        for slot in states.indices where slotBeacons[slot] != nil {
            states[slot].forget(node: NameCode(code), at: time)
            if evaluate(slot: slot, at: time),
                let decision = decision(slot: slot)
            {
                changed.append(decision)
            }
        }
        if changed.count > 1 { changed.sort { $0.beacon < $1.beacon } }
        return changed
    }

    /// Forgets everything about `beacon` (its evidence and decision), freeing its slot for another
    /// beacon. Heard again, it starts afresh, as a beacon never seen. The decider's memory grows
    /// with the beacons it holds: its owner forgets the ones it no longer follows.
    public mutating func forget(beacon: BeaconID) {
        let hash = slotByBeacon.hash(beacon)
        guard let slot = slotIndex(of: beacon, hash: hash) else { return }
        slotByBeacon.remove(hash: hash, slot: slot)
        slotBeacons[slot] = nil
        motion?.moved(from: states[slot].room, to: nil)
        states[slot] = BeaconRoomState()
        awayTimeouts[slot] = nil
        tickSchedule.free(slot)
        dueTimes.cancel(slot)
        freeSlots.append(slot)
        if slotByBeacon.count == 0 {
            // Nothing left: give the memory back rather than keep the high-water mark.
            slotBeacons.removeAll()
            states.removeAll()
            freeSlots.removeAll()
            tickSchedule.removeAll()
            dueTimes.removeAll()
        }
    }

    /// The current decision for `beacon` (room, confidence and candidates as of the last update
    /// or tick), nil before deciding started.
    public func decision(for beacon: BeaconID) -> RoomDecision? {
        slotIndex(of: beacon).flatMap { decision(slot: $0) }
    }

    /// Every beacon with a decision, ordered by beacon.
    public var decidedBeacons: [BeaconID] {
        states.indices.compactMap { slot in states[slot].room == nil ? nil : slotBeacons[slot] }.sorted()
    }

    /// How many beacons the decider holds state for (its memory grows with this).
    public var beaconCount: Int { slotByBeacon.count }

    /// Nodes and rooms met so far (`not_home` counted among the rooms): each only grows, so a
    /// caller learns that an update met a new node or room by comparing counts, without hashing names.
    @inlinable public var knownNodeCount: Int { nodeNames.count }
    /// Rooms met so far, `not_home` included.
    @inlinable public var knownRoomCount: Int { roomNames.count }

    /// Whether `node` is currently reported offline.
    @inlinable public func isOffline(node: String) -> Bool {
        guard offlineNodeCount > 0, let code = nodeCodes[node] else { return false }
        return nodes[Int(code)].offline
    }

    // MARK: - Interning

    mutating func nodeCode(_ name: String) -> NameCode {
        // A site has a few nodes: comparing their names beats hashing one.
        if nodeNames.count <= 16 {
            // `==` calls into the runtime for every name that differs (Unicode equivalence), so
            // first only the names with the same bytes' length and last byte are compared. No two
            // known names are equal (each was interned after a miss): a match here is the one
            // match. A name equal to a known one in other bytes (another normalization) is found
            // by the full scan.
            let signature = Self.nameSignature(name)
            for (code, known) in nodeSignatures.enumerated() where known == signature && nodeNames[code] == name {
                return NameCode(code)
            }
            for (code, known) in nodeNames.enumerated() where known == name { return NameCode(code) }
        } else if let code = nodeCodes[name] {
            return code
        }
        // `BeaconRoomState.Held` keeps a node's code in 30 bits; each name costs this type some
        // 100 bytes, so memory runs out long before.
        precondition(nodes.count <= Int(BeaconRoomState.Held.nodeMask), "more than 2^30 node names")
        let code = NameCode(nodes.count)
        nodeCodes[name] = code
        nodeNames.append(name)
        nodeSignatures.append(Self.nameSignature(name))
        nodes.append(NodeRecord())
        return code
    }

    /// A name's UTF-8 length and last byte: read from the string itself without a call, and
    /// different for names that differ by a counter at the end (`node-1`, `node-2`).
    private static func nameSignature(_ name: String) -> UInt64 {
        // The bytes in place (a native string's, small ones included): `utf8.last` steps back
        // through an index, a call that was 1 % of an update.
        let last = name.utf8.withContiguousStorageIfAvailable { $0.last } ?? name.utf8.last
        return UInt64(name.utf8.count) << 8 | UInt64(last ?? 0)
    }

    private mutating func roomCode(_ name: String, reportedBy node: NameCode) -> NameCode {
        if nodes[Int(node)].roomName == name { return nodes[Int(node)].room }
        let code: NameCode
        if let known = roomCodes[name] {
            code = known
        } else {
            code = NameCode(roomNames.count)
            roomCodes[name] = code
            roomNames.append(name)
            if let pending = pendingMotion.removeValue(forKey: name) {
                motion?.set(room: code, occupied: pending.occupied, at: pending.time)
            }
        }
        nodes[Int(node)].roomName = name
        nodes[Int(node)].room = code
        return code
    }

    // MARK: - Decisions

    /// The decision of a slot with the candidates of its last evaluation; nil before deciding started.
    func decision(slot: Int) -> RoomDecision? {
        guard let beacon = slotBeacons[slot], let room = states[slot].room else { return nil }
        let since = states[slot].since
        return states[slot].withScores { scores in decision(beacon: beacon, room: room, since: since, scores: scores) }
    }

    private func decision(beacon: BeaconID, room: NameCode, since: Instant,
                          scores: UnsafeBufferPointer<BeaconRoomState.RoomScore>) -> RoomDecision {
        var candidates: [String: Double] = [:]
        candidates.reserveCapacity(scores.count)
        for score in scores { candidates[roomNames[Int(score.room)]] = score.distance }
        guard room != Self.notHomeCode, let mine = scores.first(where: { $0.room == room }) else {
            return RoomDecision(beacon: beacon, room: roomNames[Int(room)], distance: nil, proximity: .unknown, node: nil,
                                since: since, confidence: 0, candidates: candidates)
        }
        var runnerUp: Double?
        for score in scores where score.room != room && runnerUp.map({ $0 < score.score }) ?? true {
            runnerUp = score.score
        }
        let confidence: Double
        if let runnerUp {
            let lead = mine.score - runnerUp
            confidence = lead > 0 ? 1 - pow(10, -lead / 10) : 0
        } else {
            confidence = 1
        }
        return RoomDecision(beacon: beacon, room: roomNames[Int(room)], distance: mine.distance,
                            proximity: mine.proximity, node: nodeNames[Int(mine.node)], since: since,
                            confidence: confidence, candidates: candidates)
    }
}

// MARK: - Slots
