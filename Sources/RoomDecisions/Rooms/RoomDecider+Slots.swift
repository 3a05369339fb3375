import BeaconCore

/// A beacon's dense slot in the decider (`BeaconSlot`) and what its owner reads by slot without
/// building a `RoomDecision`: the service's path for every message.
extension RoomDecider {
    /// A beacon's place in the decider: lets its owner keep per-beacon data in a plain array indexed
    /// by `index`, and update without hashing the beacon id again. Valid until
    /// `forget(beacon:)`; the index is then reused for another beacon.
    public struct BeaconSlot: Hashable, Sendable {
        /// Dense: below `slotCapacity`.
        public let index: Int

        /// The slot at `index`, for an owner that keeps indices in its own arrays; `slot(of:)` and
        /// `addSlot(for:)` are the ways to get one for a beacon.
        public init(index: Int) {
            self.index = index
        }
    }

    /// The slot of `beacon`, nil when the decider holds nothing for it.
    @inlinable public func slot(of beacon: BeaconID) -> BeaconSlot? {
        slotByBeacon.slot(of: beacon, among: slotBeacons).map(BeaconSlot.init(index:))
    }

    /// The slot of `beacon`, taken (empty: no evidence, no decision) if it has none yet.
    public mutating func addSlot(for beacon: BeaconID) -> BeaconSlot {
        let hash = slotByBeacon.hash(beacon)
        if let slot = slotIndex(of: beacon, hash: hash) { return BeaconSlot(index: slot) }
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            slotBeacons[slot] = beacon
        } else {
            slot = states.count
            slotBeacons.append(beacon)
            states.append(BeaconRoomState())
        }
        slotByBeacon.insert(hash: hash, slot: slot)
        return BeaconSlot(index: slot)
    }

    /// The slot index of `beacon`, nil when it has none (internal: the decider's updates use it too).
    func slotIndex(of beacon: BeaconID) -> Int? {
        slotByBeacon.slot(of: beacon, among: slotBeacons)
    }

    func slotIndex(of beacon: BeaconID, hash: UInt32) -> Int? {
        slotByBeacon.find(hash: hash) { slotBeacons[$0] == beacon }
    }

    /// One more than the largest slot index in use or free: the size of a side array indexed by slot.
    public var slotCapacity: Int { states.count }

    /// The beacon in `slot`, nil for a free slot.
    public func beacon(in slot: BeaconSlot) -> BeaconID? {
        slotBeacons.indices.contains(slot.index) ? slotBeacons[slot.index] : nil
    }

    /// `decision(for:)` by slot.
    public func decision(in slot: BeaconSlot) -> RoomDecision? {
        slotBeacons.indices.contains(slot.index) ? decision(slot: slot.index) : nil
    }

    /// What a published location shows of the slot's current decision, without building it
    /// (no strings, no dictionary): cheap enough to ask after every update.
    @inlinable public func summary(in slot: BeaconSlot) -> RoomDecisionSummary {
        Self.summary(of: slot.index, states: states, beacons: slotBeacons)
    }

    /// `summary(in:)`'s work, given only the arrays it reads (see `slotByBeacon`: the whole
    /// decider is not passed from another module).
    @usableFromInline static func summary(of slot: Int, states: [BeaconRoomState], beacons: [BeaconID?]) -> RoomDecisionSummary {
        guard beacons.indices.contains(slot), beacons[slot] != nil, let room = states[slot].room
        else { return RoomDecisionSummary() }
        var summary = RoomDecisionSummary()
        summary.roomCode = room
        states[slot].withScores { scores in
            for score in scores {
                if score.room < 64 { summary.candidateRooms |= 1 << UInt64(score.room) } else { summary.candidateRoomsExact = false }
                if room != Self.notHomeCode, score.room == room {
                    summary.nodeCode = score.node
                    summary.distance = score.distance
                    summary.proximity = score.proximity
                }
            }
        }
        return summary
    }

    /// The slot's decided room, nil before deciding started: its name alone, without building the
    /// decision (`decision(in:)` builds every room's candidate distance).
    public func room(in slot: BeaconSlot) -> String? {
        guard slotBeacons.indices.contains(slot.index), slotBeacons[slot.index] != nil, let room = states[slot.index].room
        else { return nil }
        return roomNames[Int(room)]
    }

    /// The beacon's decided room, nil before deciding started or for a beacon not followed.
    public func room(of beacon: BeaconID) -> String? {
        slotIndex(of: beacon).flatMap { room(in: BeaconSlot(index: $0)) }
    }

    /// The room name of a code of `RoomDecisionSummary`.
    @inlinable public func roomName(code: Int32) -> String {
        roomNames.indices.contains(Int(code)) ? roomNames[Int(code)] : ""
    }

    /// The parameters the beacon in `slot` is decided with: the common ones, with its own away
    /// timeout when it has one.
    @inline(__always)
    func parameters(forSlot slot: Int) -> RoomDecisionParameters {
        if awayTimeouts.isEmpty { return parameters }
        var own = parameters
        if let away = awayTimeouts[slot] { own.awayTimeout = away }
        return own
    }
}
