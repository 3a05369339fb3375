import BeaconCore
import RoomDecisions

/// Which beacons the core tracks: a new one is tracked (evicting the least recently heard unknown
/// beacon beyond the cap), follows its known entry when the pushed list changes, and is forgotten
/// with its retained topics; rooms and nodes met are announced to Home Assistant.
extension AggregatorCore {
    func slotsByBeacon() -> [Int] {
        let slots = hot.indices.filter { hot[$0].isTracked }
        return slots.sorted { (entries[$0]?.beacon.rawValue ?? "") < (entries[$1]?.beacon.rawValue ?? "") }
    }

    /// Marks `beacon` heard at `time`, tracking it (with its discovery messages) if it is new;
    /// a new unknown beacon beyond the cap first evicts the least recently heard unknown one.
    mutating func track(_ beacon: BeaconID, name: String?, alias: TopicLevelID? = nil, heardAt time: Instant,
                                into out: inout [AggregatorPublication]) -> RoomDecider.BeaconSlot {
        if let slot = decider.physics.slot(of: beacon) {
            if time > hot[slot.index].lastHeard { hot[slot.index].lastHeard = time }
            if !hot[slot.index].isKnown { unknownBeacons.moveToNewest(slot.index) }
            return slot
        }
        let known = knownBeacons.byBeacon[beacon]
        if known == nil {
            // Evict rather than refuse: a beacon heard all the time is never the least recently
            // heard, so a flood of ids each heard once cannot push out the real ones.
            while unknownBeacons.count() >= max(1, configuration.maxUnknownBeacons), let oldest = unknownBeacons.oldest() {
                // Its room's message waits for the tick: under a flood every measurement evicts,
                // and a list rewritten per measurement would cost more than the flood itself.
                forget(oldest, roomMessageAtTick: true, into: &out)
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
        timers.cancel(slot.index)
        scheduleTimer(slot.index)
        trackedCount += 1
        if known == nil {
                        unknownBeacons.append(slot.index)
        }
        if let discovery { out += discovery.configurations(beacon: id, canonical: beacon, name: shownName) }
        return slot
    }

    /// The topic id and name a beacon is published under. A phone or watch known by its key always
    /// has an alias (docs/MQTT.md): the one the agents' measurements carry names it here too, unless a
    /// known beacon's entry says otherwise.
    static func identity(_ beacon: BeaconID, known: KnownBeacon?, heardAlias: TopicLevelID?, heardName: String?)
        -> (id: String, name: String)
    {
        let id = known?.topicID ?? heardAlias?.rawValue ?? beacon.rawValue
        return (id, known?.name ?? heardName ?? id)
    }

    /// A tracked beacon's known entry changed to `known` (nil: no longer a known beacon).
    mutating func follow(_ known: KnownBeacon?, slot: Int, into out: inout [AggregatorPublication]) {
        guard let entry = entries[slot] else { return }
        decider.setAwayTimeout(known?.awayTimeout, for: RoomDecider.BeaconSlot(index: slot))
        if known != nil, !hot[slot].isKnown {
            // Known from now on: never evicted, never forgotten.
            unknownBeacons.remove(slot)
                        hot[slot].isKnown = true
        } else if known == nil, hot[slot].isKnown {
            // Counted against the cap again, as the most recently heard (it was protected until
            // now); forgotten once not heard for forgetAfter, counted from when it was last heard.
            hot[slot].isKnown = false
                        unknownBeacons.append(slot)
        }
        scheduleTimer(slot)  // forgettable now, or a new away timeout
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
            if room >= 0 { occupy(roomMessages.name(of: room), slot: slot, announce: true) }
        } else if room >= 0 {
            // Same place in the list, a new name in it: the room's message goes with the location.
            updateOccupant(slot)
            roomMessages.markDue(room)
        }
    }

    // MARK: - Discovery of rooms and nodes

    /// A room met: if new, it joins the options and every tracked beacon's room config is sent
    /// again (a beacon tracked later gets it with its first config).
    mutating func addRoom(_ room: String, into out: inout [AggregatorPublication]) {
        guard discovery?.addRoom(room) == true, let discovery else { return }
        for slot in slotsByBeacon() {
            guard let entry = entries[slot] else { continue }
            out.append(discovery.configuration(.room, beacon: entry.id, canonical: entry.beacon, name: entry.name))
        }
    }

    /// A node met (status, info or measurement): its device is announced, or announced again when
    /// what it shows changed; its room is added to the options.
    mutating func noteNode(_ name: String, room: String?, version: String?, kind: NodeKind? = nil, into out: inout [AggregatorPublication]) {
        guard discovery != nil else { return }
        if let room { addRoom(room, into: &out) }
        guard let node = TopicLevelID(name) else { return }
        discovery!.noteNode(node, room: room, version: version, kind: kind, into: &out)
    }

    /// Stops tracking the beacon in `slot`: clears its retained topics and discovery entities.
    mutating func forget(_ slot: Int, roomMessageAtTick: Bool = false, into out: inout [AggregatorPublication]) {
        guard hot[slot].isTracked, let entry = entries[slot] else { return }
        vacate(slot, roomMessageAtTick: roomMessageAtTick)
        if !hot[slot].isKnown {
            unknownBeacons.remove(slot)
                    }
        hot[slot] = Hot()
        entries[slot] = nil
        timers.cancel(slot)
        trackedCount -= 1
        decider.forget(beacon: entry.beacon)
        if decider.physics.slotCapacity == 0 {
            hot.removeAll()
            entries.removeAll()
            timers.removeAll()
        }
        // The entities go first: an empty room payload is no option of the room sensor.
        if let discovery { out += discovery.removals(beacon: entry.id) }
        out.append(.clear(topics.location(entry.id)))
        out.append(.clear(topics.locationRoom(entry.id)))
    }
}
