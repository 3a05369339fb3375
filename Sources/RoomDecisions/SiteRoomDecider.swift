import BeaconCore

/// The site's room decision: the physics rule (`RoomDecider`) always, and over it the learned site
/// model (`SiteModelDecider`) when the site has one, whose decisions are then the ones that count
/// (it falls back on physics where it cannot tell). The live aggregator and the replay both decide
/// through it, so the two can never differ in how the model and physics are combined.
public struct SiteRoomDecider: Sendable {
    /// The physics rule: every measurement reaches it, with or without a model (the model reads its
    /// room and decision), and it keeps the per-beacon slots the aggregator indexes by.
    public private(set) var physics: RoomDecider
    /// The learned model's decision; nil without a model.
    public private(set) var model: SiteModelDecider?

    /// The physics rule with `parameters`, and the model over it when there is one.
    public init(parameters: RoomDecisionParameters, model: SiteModel?) {
        physics = RoomDecider(parameters: parameters)
        self.model = model.map(SiteModelDecider.init(model:))
    }

    /// One node's evidence for a beacon: the decision when the room (or what is published of it)
    /// changes.
    public mutating func update(_ evidence: NodeEvidence, at time: Instant) -> RoomDecision? {
        let decision = physics.update(evidence, at: time)
        guard model != nil else { return decision }
        return model!.update(evidence, physicsRoom: physics.room(of: evidence.beacon),
                             physics: { physics.decision(for: evidence.beacon) }, at: time)
    }

    /// As `update(_:at:)`, for a beacon the caller already holds the physics slot of (the live
    /// aggregator: one hash per measurement). The evidence is built only for a model.
    public mutating func update(node: String, room: String, distance: Double?, proximity: Proximity,
                                in slot: RoomDecider.BeaconSlot, at time: Instant,
                                evidence: @autoclosure () -> NodeEvidence) -> RoomDecision? {
        let decision = physics.update(node: node, room: room, distance: distance, proximity: proximity, in: slot, at: time)
        guard model != nil else { return decision }
        return model!.update(evidence(), physicsRoom: physics.room(in: slot), physics: { physics.decision(in: slot) }, at: time)
    }

    /// Time passes: dwell, stale evidence and away timeouts.
    public mutating func tick(at time: Instant) -> [RoomDecision] {
        let decisions = physics.tick(at: time)
        guard model != nil else { return decisions }
        return model!.tick(at: time, physicsRoom: { physics.room(of: $0) }, physics: { physics.decision(for: $0) })
    }

    /// Whether each beacon's next change by time alone is kept, to be served when it falls
    /// (`RoomDecider.servesDueTimes`). Physics only: a site model decides at the ticks.
    public var servesDueTimes: Bool {
        get { physics.servesDueTimes }
        set { physics.servesDueTimes = newValue && model == nil }
    }

    /// The earliest time at which time alone changes a beacon (`RoomDecider.nextDueTime()`).
    public mutating func nextDueTime() -> Instant? {
        physics.nextDueTime()
    }

    /// Evaluates the beacons due by `time` (`RoomDecider.decideDue(at:)`).
    public mutating func decideDue(at time: Instant) -> [RoomDecision] {
        physics.decideDue(at: time)
    }

    /// A node goes offline (its evidence dropped at once) or comes back.
    public mutating func setNodeStatus(node: String, online: Bool, at time: Instant) -> [RoomDecision] {
        let decisions = physics.setNodeStatus(node: node, online: online, at: time)
        guard model != nil else { return decisions }
        return model!.setNodeStatus(node: node, online: online, at: time) { physics.decision(for: $0) }
    }

    /// A room's motion (`RoomDecider.setMotion(room:occupied:at:)`): evidence that someone is there.
    public mutating func setMotion(room: String, occupied: Bool?, at time: Instant) {
        physics.setMotion(room: room, occupied: occupied, at: time)
        model?.setMotion(room: room, occupied: occupied, at: time)
    }

    /// How motion weighs, in the physics decision and the model's alike.
    public var motionParameters: MotionParameters {
        get { physics.motionParameters }
        set {
            physics.motionParameters = newValue
            model?.motionParameters = newValue
        }
    }

    /// A slot for a beacon not decided yet (`RoomDecider.addSlot(for:)`).
    public mutating func addSlot(for beacon: BeaconID) -> RoomDecider.BeaconSlot {
        physics.addSlot(for: beacon)
    }

    /// A beacon's own away timeout (nil: the site's).
    public mutating func setAwayTimeout(_ timeout: Double?, for slot: RoomDecider.BeaconSlot) {
        physics.setAwayTimeout(timeout, for: slot)
    }

    /// Drops everything about a beacon.
    public mutating func forget(beacon: BeaconID) {
        physics.forget(beacon: beacon)
        model?.forget(beacon: beacon)
    }

    /// Nodes the model does not know, each returned once (for the log); none without a model.
    public mutating func takeUnknownNodes() -> [String] {
        model?.takeUnknownNodes() ?? []
    }

    /// The model's nodes neither heard from nor online when deciding started, returned once (for
    /// the log); none without a model.
    public mutating func takeAbsentNodes() -> [String] {
        model?.takeAbsentNodes() ?? []
    }
}
