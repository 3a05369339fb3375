import BeaconCore
import RoomDecisions

/// What a decision publishes: the location, its room's list and the event of a change; and when a
/// location is published again without a room change.
extension AggregatorCore {
    /// Decisions the decider returned for several beacons at once (a tick, a node's status, the
    /// decisions due): each applied as below, a beacon no longer tracked skipped.
    mutating func apply(_ decisions: [RoomDecision], at time: Instant, into out: inout [AggregatorPublication]) {
        for decision in decisions {
            guard let slot = decider.physics.slot(of: decision.beacon) else { continue }
            apply(decision, slot: slot.index, at: time, into: &out)
        }
    }

    /// A decision of the decider (or a restored beacon's away): publish location, room topics, event.
    mutating func apply(_ decision: RoomDecision, slot: Int, at time: Instant,
                                into out: inout [AggregatorPublication]) {
        guard hot[slot].isTracked, let entry = entries[slot] else { return }
        let previous = entry.location
        let keepsRoom = previous?.room == decision.room
        var location = BeaconLocation(
            id: entry.id, name: entry.name, decision: decision,
            floor: decision.room == RoomDecision.notHome ? nil : configuration.floor(of: decision.room))
        if keepsRoom, let previous { location.since = previous.since }
        let summary = decider.physics.summary(in: RoomDecider.BeaconSlot(index: slot))
        // Once the decider decides, the restored location has served; a synthesized away keeps it
        // (so that it is not repeated).
        if summary.isDecided { hot[slot].published.restoredAt = nil }
        let fromDecider = summary.roomCode.map { decider.physics.roomName(code: $0) == decision.room } ?? false
        entries[slot]?.location = location
        entries[slot]?.publishedSignificantPart = nil
        hot[slot].published.published(summary, fromDecider: fromDecider, distance: location.distance, at: time)
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
    /// (its room's message follows at the next tick): node, proximity, candidate rooms or name at
    /// once, the distance as `configuration.locationRefresh` says. Called after every measurement
    /// that did not change the room, at its `time`: the usual case compares plain values only.
    mutating func refresh(_ slot: Int, at time: Instant, into out: inout [AggregatorPublication]) {
        guard hot[slot].isTracked else { return }
        let handle = RoomDecider.BeaconSlot(index: slot)
        let summary = decider.physics.summary(in: handle)
        guard let roomCode = summary.roomCode else { return }
        let state = hot[slot]
        if let locationRoom = state.published.roomCode {
            guard locationRoom == roomCode else { return }
        } else {
            guard let current = entries[slot]?.location else {
                // Decided before we tracked it: publish as new once the decider places it in a
                // room; its `not_home` is not news.
                if decider.physics.roomName(code: roomCode) != RoomDecision.notHome, let decision = decider.physics.decision(in: handle) {
                    apply(decision, slot: slot, at: decision.since, into: &out)
                }
                return
            }
            guard decider.physics.roomName(code: roomCode) == current.room else { return }
        }
        hot[slot].published.restoredAt = nil
        hot[slot].published.followsDecider = true
        guard state.published.mayDiffer(from: summary, at: time, rule: configuration.locationRefresh) else { return }
        guard let entry = entries[slot], let current = entry.location, let decision = decider.physics.decision(in: handle) else {
            return
        }
        let location = Self.location(entry, current, decision)
        let significant = location.significantPart
        let published = entry.publishedSignificantPart ?? current.significantPart
        if entry.publishedSignificantPart == nil { entries[slot]?.publishedSignificantPart = published }
        guard significant != published
            || state.published.distanceWorthPublishing(location.distance, at: time, rule: configuration.locationRefresh)
        else {
            // Nothing significant changed since the published location (restored, or with more
            // than 64 rooms): its summary stands for it from now on.
            if summary.candidateRoomsExact { hot[slot].published.stands(for: summary, roomCode: roomCode) }
            return
        }
        entries[slot]?.location = location
        entries[slot]?.publishedSignificantPart = significant
        hot[slot].published.followsDecider = false
        hot[slot].published.stands(for: summary, roomCode: roomCode)
        hot[slot].published.distance = location.distance
        hot[slot].published.at = time
        out.append(.retained(topics.location(entry.id), location.json))
        updateOccupant(slot)
    }

    /// `current` (same room) with the decision's details: the room's `since` is kept.
    static func location(_ entry: Tracked, _ current: BeaconLocation, _ decision: RoomDecision) -> BeaconLocation {
        var location = BeaconLocation(id: entry.id, name: entry.name, decision: decision, floor: current.floor)
        location.beacon = entry.beacon
        location.since = current.since
        return location
    }

    /// The location as `location(of:)` shows it: the stored one, or the decider's newer details of
    /// the same room.
    func currentLocation(_ slot: Int) -> BeaconLocation? {
        guard let entry = entries[slot], let location = entry.location else { return nil }
        guard hot[slot].published.followsDecider, let decision = decider.physics.decision(in: RoomDecider.BeaconSlot(index: slot)),
            decision.room == location.room
        else { return location }
        return Self.location(entry, location, decision)
    }

    // MARK: - Rooms

    mutating func occupy(_ name: String, slot: Int, announce: Bool) {
        guard let entry = entries[slot] else { return }
        hot[slot].occupiedRoom = roomMessages.occupy(
            name, topic: topics.room, id: entry.id, slot: slot, json: Self.occupantJSON(entry), announce: announce)
    }

    /// Takes the beacon in `slot` out of the room it occupies, if any; the room's message is due in
    /// this call, or at the next tick.
    mutating func vacate(_ slot: Int, roomMessageAtTick: Bool = false) {
        let room = hot[slot].occupiedRoom
        guard room >= 0, let id = entries[slot]?.id else { return }
        roomMessages.vacate(room, id: id, slot: slot, atTick: roomMessageAtTick)
        hot[slot].occupiedRoom = -1
    }

    /// The beacon's location was published again in the same room: its part of the room's list
    /// follows, and the list is due at the next tick if that part changed.
    mutating func updateOccupant(_ slot: Int) {
        let room = hot[slot].occupiedRoom
        guard room >= 0, let entry = entries[slot] else { return }
        roomMessages.update(room, id: entry.id, slot: slot, json: Self.occupantJSON(entry))
    }

    static func occupantJSON(_ entry: Tracked) -> String {
        RoomMessage.occupantJSON(id: entry.id, name: entry.name, location: entry.location)
    }
}
