import BeaconCore

/// Decides rooms with a `SiteModel`, beside the physics decision (`RoomDecider`) its owner keeps
/// running on the same measurements, so that the outputs keep their form (`RoomDecision`).
///
/// Per beacon a `SiteModelFilter` follows the measurements of the model's nodes. The decided room is:
/// - `not_home` when the physics decision is `not_home` (the away timeout: no node hears the
///   beacon any more); the filter then starts afresh;
/// - once a node of the model has heard the beacon, the filter's room where the model serves it, and
///   the physics room where physics does (`combined(modelRoom:physicsRoom:held:model:)`);
/// - the physics room for a beacon heard only by nodes the model does not know.
/// Deciding starts when the physics decision starts (its settle time). Measurements of nodes the
/// model does not know are left to the physics decision; each such node is reported once
/// (`takeUnknownNodes()`), for the owner's log. Pure value type: time is always a parameter.
public struct SiteModelDecider: Sendable {
    struct Held: Sendable {
        var room: String
        var distance: Double?
        var proximity: Proximity
        var time: Instant
    }

    struct BeaconState: Sendable {
        var filter: SiteModelFilter
        /// A node of the model has heard the beacon since the filter started.
        var modelHeard = false
        var room: String?
        var since = Instant(seconds: 0)
        /// The filter's decided room and since when (for the dwell before physics hands a room over).
        var modelRoom: Int?
        var modelSince = Instant(seconds: 0)
        /// The latest measurement of every node (model or not), for the decision's details.
        var held: [String: Held] = [:]
    }

    /// The model rooms are decided with.
    public let model: SiteModel
    private var beacons: [BeaconID: BeaconState] = [:]
    private var offline: Set<String> = []
    private var reportedUnknown: Set<String> = []
    private var unreportedUnknown: [String] = []
    /// Per model node: it has published something (or said it is online) since the decider started.
    /// Until then it is no evidence either way, as in learning, where a node counts only in the
    /// recordings it published in: a receiver that is off, or was never set up, must not read as
    /// "the beacon is nowhere near it" in every room the model learned it in.
    private var present: [Bool]
    /// Model rooms' motion (by room index), nil until the first report: without it the filter runs as before.
    private var motion: RoomMotionTable?
    /// How motion weighs in the model's filter (`MotionParameters`; motion of rooms the model does
    /// not have is left to physics).
    public var motionParameters = MotionParameters.default {
        didSet {
            motion?.parameters = motionParameters
            motionWeights = MotionWeights(motionParameters, levels: model.levels)
            motionEvidence.removeAll()
        }
    }
    private var motionWeights: MotionWeights
    /// The motion evidence per model room for a beacon decided in each model room (the last entry:
    /// in none), built when first asked for and kept while it holds: until a sensor reports, a
    /// beacon moves, or `motionEvidenceUntil` (an onset window, hold or quiet period runs out).
    /// Building it for every measurement made the model markedly slower with motion.
    private var motionEvidence: [[Double]?] = []
    private var motionEvidenceFrom = Instant(seconds: 0)
    private var motionEvidenceUntil = Instant(seconds: 0)
    /// Model nodes still absent when deciding first started, reported once (`takeAbsentNodes()`).
    private var absentChecked = false
    private var unreportedAbsent: [String] = []

    /// Creates a decider with no beacons yet.
    public init(model: SiteModel) {
        self.model = model
        present = Array(repeating: false, count: model.nodes.count)
        motionWeights = MotionWeights(.default, levels: model.levels)
    }

    /// Which model nodes count as evidence now: present and not offline.
    private var availability: [Bool] {
        model.nodes.indices.map { present[$0] && !offline.contains(model.nodes[$0]) }
    }

    /// Marks a model node present, making it evidence for every beacon followed.
    private mutating func markPresent(_ node: Int, at time: Instant) {
        guard !present[node] else { return }
        present[node] = true
        for index in beacons.values.indices where !offline.contains(model.nodes[node]) {
            beacons.values[index].filter.setAvailable(node: node, true, at: time)
        }
    }

    /// Folds in a measurement received at `time`; `physics` is the physics decision for its beacon
    /// after the same measurement. Returns the decision when the beacon's room changed or deciding
    /// started for it.
    public mutating func update(_ evidence: NodeEvidence, physics: RoomDecision?, at time: Instant) -> RoomDecision? {
        update(evidence, physicsRoom: physics?.room, physics: { physics }, at: time)
    }

    /// `update(_:physics:at:)` for a caller whose physics decision costs to build: `physicsRoom` is
    /// its room (nil before deciding started), and `physics` is asked for the whole decision only
    /// when the decided room changes (building one per measurement, with every room's candidate
    /// distance, took about a quarter of the live aggregator's time with a model).
    public mutating func update(_ evidence: NodeEvidence, physicsRoom: String?, physics: () -> RoomDecision?,
                                at time: Instant) -> RoomDecision? {
        guard time.seconds.isFinite, !offline.contains(evidence.node) else { return nil }
        let node = model.nodeIndex(evidence.node)
        if node == nil, !reportedUnknown.contains(evidence.node) {
            reportedUnknown.insert(evidence.node)
            unreportedUnknown.append(evidence.node)
        }
        if let node { markPresent(node, at: time) }
        if !beacons.keys.contains(evidence.beacon) {
            beacons[evidence.beacon] = BeaconState(filter: SiteModelFilter(model: model, available: availability))
        }
        guard let index = beacons.index(forKey: evidence.beacon) else { return nil }
        // Changed in place: a copy taken out would share the filter's arrays, and every write would
        // copy them again.
        let before = beacons.values[index].room
        let motionNow = motionLogLikelihood(decidedIn: before, at: time)
        let decision = Self.update(&beacons.values[index], evidence: evidence, node: node, model: model,
                                   motionLogLikelihood: motionNow,
                                   physicsRoom: physicsRoom, physics: physics, at: time)
        if decision != nil { noteMoved(from: before, to: beacons.values[index].room) }
        if decision != nil { noteAbsentNodes() }
        return decision
    }

    /// At the first decision: the model's nodes that have neither published nor said they are online
    /// (a receiver switched off or not set up), to be reported once; the model decides with the others.
    private mutating func noteAbsentNodes() {
        guard !absentChecked else { return }
        absentChecked = true
        unreportedAbsent = model.nodes.indices.filter { !present[$0] }.map { model.nodes[$0] }
    }

    /// The model's nodes that had neither published nor said they were online when deciding first
    /// started, returned once (for the owner's log): the model decides with its other nodes, and
    /// takes each of these in as soon as it is heard.
    public mutating func takeAbsentNodes() -> [String] {
        defer { unreportedAbsent.removeAll() }
        return unreportedAbsent
    }

    private static func update(_ state: inout BeaconState, evidence: NodeEvidence, node: Int?, model: SiteModel,
                               motionLogLikelihood: [Double]?,
                               physicsRoom: String?, physics: () -> RoomDecision?, at time: Instant) -> RoomDecision? {
        if evidence.isSilence {
            state.held[evidence.node] = nil
        } else {
            state.held[evidence.node] = Held(room: evidence.room, distance: evidence.distance,
                                             proximity: evidence.proximity, time: time)
        }
        state.filter.motionLogLikelihood = motionLogLikelihood
        if let node {
            let rssi: Double? = evidence.isSilence ? nil : evidence.rssiFiltered
            state.filter.observe(node: node, rssi: rssi, at: time)
            if rssi != nil { state.modelHeard = true }
        } else {
            state.filter.advance(to: time)
        }
        return evaluate(&state, model: model, beacon: evidence.beacon, physicsRoom: physicsRoom, physics: physics, at: time)
    }

    /// Lets time pass for every beacon; `physics` gives each beacon's physics decision after its own
    /// tick. Returns the changed decisions, ordered by beacon.
    public mutating func tick(at time: Instant, physics: (BeaconID) -> RoomDecision?) -> [RoomDecision] {
        tick(at: time, physicsRoom: { physics($0)?.room }, physics: physics)
    }

    /// `tick(at:physics:)` with each beacon's physics room apart from its whole decision, which is
    /// asked for only when the beacon's decided room changes (as `update(_:physicsRoom:physics:at:)`).
    public mutating func tick(at time: Instant, physicsRoom: (BeaconID) -> String?,
                              physics: (BeaconID) -> RoomDecision?) -> [RoomDecision] {
        guard time.seconds.isFinite else { return [] }
        var changed: [RoomDecision] = []
        for beacon in beacons.keys.sorted() {
            guard var state = beacons.removeValue(forKey: beacon) else { continue }
            let before = state.room
            if motion != nil {
                state.filter.motionLogLikelihood = motionLogLikelihood(decidedIn: before, at: time)
            }
            state.filter.advance(to: time)
            if let decision = Self.evaluate(&state, model: model, beacon: beacon, physicsRoom: physicsRoom(beacon),
                                            physics: { physics(beacon) }, at: time) {
                changed.append(decision)
                noteMoved(from: before, to: state.room)
            }
            beacons[beacon] = state
        }
        if !changed.isEmpty { noteAbsentNodes() }
        return changed
    }

    /// A node's status: an offline node's measurements stop counting, for the model and the details.
    public mutating func setNodeStatus(node: String, online: Bool, at time: Instant,
                                       physics: (BeaconID) -> RoomDecision?) -> [RoomDecision] {
        if online { offline.remove(node) } else { offline.insert(node) }
        let index = model.nodeIndex(node)
        if online, let index { present[index] = true }
        var changed: [RoomDecision] = []
        for beacon in beacons.keys.sorted() {
            guard var state = beacons.removeValue(forKey: beacon) else { continue }
            if !online { state.held[node] = nil }
            if let index { state.filter.setAvailable(node: index, online, at: time) }
            let current = physics(beacon)
            let before = state.room
            if let decision = Self.evaluate(&state, model: model, beacon: beacon, physicsRoom: current?.room,
                                            physics: { current }, at: time) {
                changed.append(decision)
                noteMoved(from: before, to: state.room)
            }
            beacons[beacon] = state
        }
        return changed
    }

    /// Forgets a beacon, as `RoomDecider.forget(beacon:)`.
    public mutating func forget(beacon: BeaconID) {
        if let room = beacons[beacon]?.room, let index = model.roomIndex(room) {
            motion?.moved(from: RoomDecider.NameCode(index), to: nil)
            motionEvidence.removeAll()
        }
        beacons[beacon] = nil
    }

    /// A room's motion (`RoomDecider.setMotion(room:occupied:at:)`): per second, evidence for the
    /// room in every beacon's filter (`MotionParameters.modelMotion` and `modelQuiet`), shared as the physics rule
    /// shares it — motion explained by a beacon decided in the room speaks for that beacon only.
    public mutating func setMotion(room: String, occupied: Bool?, at time: Instant) {
        guard let index = model.roomIndex(room) else { return }
        if motion == nil {
            var table = RoomMotionTable(parameters: motionParameters)
            for state in beacons.values {
                if let room = state.room, let index = model.roomIndex(room) { table.moved(from: nil, to: RoomDecider.NameCode(index)) }
            }
            motion = table
        }
        motion!.set(room: RoomDecider.NameCode(index), occupied: occupied, at: time)
        motionEvidence.removeAll()
    }

    /// The motion evidence for a beacon decided in `room`, per model room; nil without motion.
    private mutating func motionLogLikelihood(decidedIn room: String?, at time: Instant) -> [Double]? {
        guard let motion else { return nil }
        if motionEvidence.isEmpty || time >= motionEvidenceUntil || time < motionEvidenceFrom {
            motionEvidence = Array(repeating: nil, count: model.rooms.count + 1)
            motionEvidenceFrom = time
            motionEvidenceUntil = motion.steadyUntil(time)
        }
        let here = room.flatMap { model.roomIndex($0) }
        if let cached = motionEvidence[here ?? model.rooms.count] { return cached }
        let weights = motionWeights
        let code = here.map { RoomDecider.NameCode($0) }
        let evidence = model.rooms.indices.map {
            motion.logLikelihood(RoomDecider.NameCode($0), here: code, weights: weights, at: time)
        }
        motionEvidence[here ?? model.rooms.count] = evidence
        return evidence
    }

    /// Keeps the motion table's count of beacons per room.
    private mutating func noteMoved(from old: String?, to new: String?) {
        guard motion != nil else { return }
        motionEvidence.removeAll()
        motion!.moved(from: old.flatMap { model.roomIndex($0) }.map { RoomDecider.NameCode($0) },
                      to: new.flatMap { model.roomIndex($0) }.map { RoomDecider.NameCode($0) })
    }

    /// The decided room of `beacon`, nil before deciding started.
    public func room(of beacon: BeaconID) -> String? { beacons[beacon]?.room }

    /// The posterior over `model.rooms` for `beacon`, nil for a beacon not followed.
    public func posterior(of beacon: BeaconID) -> [Double]? { beacons[beacon]?.filter.posterior }

    /// Nodes the model does not know, each returned once, in the order they were first heard.
    public mutating func takeUnknownNodes() -> [String] {
        defer { unreportedUnknown.removeAll() }
        return unreportedUnknown
    }

    private static func evaluate(_ state: inout BeaconState, model: SiteModel, beacon: BeaconID, physicsRoom: String?,
                                 physics: () -> RoomDecision?, at time: Instant) -> RoomDecision? {
        guard let physicsRoom else { return nil }
        let room: String
        var confidence: Double?
        if physicsRoom == RoomDecision.notHome {
            room = RoomDecision.notHome
            state.filter.reset()
            state.filter.advance(to: time)
            state.modelHeard = false
            state.held.removeAll()
        } else if model.decision == .model, state.modelHeard, let index = state.filter.decidedRoom() {
            if state.modelRoom != index {
                state.modelRoom = index
                state.modelSince = time
            }
            let settled = time.since(state.modelSince) >= model.parameters.handOverDwell
                && state.filter.posterior[index] >= model.parameters.handOverPosterior
            room = combined(modelRoom: index, physicsRoom: physicsRoom, held: state.room, settled: settled, model: model)
            if room == model.rooms[index] { confidence = state.filter.posterior[index] }
        } else {
            room = physicsRoom
        }
        guard room != state.room, let physics = physics() else { return nil }
        state.room = room
        state.since = time
        return decision(state, model: model, beacon: beacon, room: room, confidence: confidence ?? physics.confidence,
                        physics: physics, at: time)
    }

    /// One room from the two decisions, each in the rooms it serves (`SiteModel.roomDecisions`):
    /// - the model's room when the model serves it (a room no receiver stands in, or one the model
    ///   was found better at) — but while physics serves the room decided, only once the model has
    ///   held its room `handOverDwell` seconds with a posterior of `handOverPosterior` (`settled`):
    ///   physics is steady where it serves, and a model's brief guess must not break that;
    /// - otherwise physics' room, when physics serves it or the model does not know it;
    /// - when each names a room the other serves, the room already decided if it is one of the two
    ///   (no switching back and forth while they disagree), else the model's.
    /// With every room the model's (a file written before rooms were judged one by one) this is
    /// the model's room, as it was.
    static func combined(modelRoom index: Int, physicsRoom: String, held: String?, settled: Bool, model: SiteModel) -> String {
        let modelRoom = model.rooms[index]
        if model.roomDecisions[index] == .model {
            let heldByPhysics = held.flatMap { model.roomIndex($0) }.map { model.roomDecisions[$0] == .physics } ?? (held != nil)
            return held == modelRoom || !heldByPhysics || settled ? modelRoom : physicsRoom
        }
        guard let physicsIndex = model.roomIndex(physicsRoom), model.roomDecisions[physicsIndex] == .model else { return physicsRoom }
        if let held, held == modelRoom || held == physicsRoom { return held }
        return modelRoom
    }

    /// The decision with the physics decision's details when it agrees on the room; otherwise the
    /// nearest node heard in the room, and every room's nearest distance, from the latest measurements.
    private static func decision(_ state: BeaconState, model: SiteModel, beacon: BeaconID, room: String, confidence: Double,
                                 physics: RoomDecision, at time: Instant) -> RoomDecision {
        if physics.room == room {
            var decision = physics
            decision.since = state.since
            decision.confidence = confidence
            return decision
        }
        var candidates: [String: Double] = [:]
        var nearest: (node: String, distance: Double, proximity: Proximity)?
        for (node, held) in state.held.sorted(by: { $0.key < $1.key }) {
            guard let distance = held.distance, time.since(held.time) <= model.parameters.staleAfter else { continue }
            if candidates[held.room].map({ distance < $0 }) ?? true { candidates[held.room] = distance }
            if held.room == room, nearest.map({ distance < $0.distance }) ?? true {
                nearest = (node, distance, held.proximity)
            }
        }
        return RoomDecision(beacon: beacon, room: room, distance: nearest?.distance,
                            proximity: nearest?.proximity ?? .unknown, node: nearest?.node, since: state.since,
                            confidence: confidence, candidates: candidates)
    }
}
