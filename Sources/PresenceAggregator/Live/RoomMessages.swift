/// Every room that has (or had) occupants, and which of their messages are due: a room's message
/// is published at most once per call of the core, after the call's locations and events.
/// Membership changes make it due in the call that makes them; a change of an occupant's part
/// alone is coalesced to the next tick, so a busy room's list, which grows with its occupants, is
/// written at most once a second rather than at every measurement.
struct RoomMessages: Sendable {
    private var rooms: [RoomMessage] = []
    private var index: [String: Int] = [:]
    /// Rooms whose message is due in the current call, in the order they became due.
    private var due: [Int] = []
    private var dueAtTick: [Int] = []

    /// The name of the room at `room` (an index `occupy` returned).
    func name(of room: Int) -> String { rooms[room].name }

    /// Adds an occupant to the room named `name` (made on first use, its topic from `topic`);
    /// returns the room's index. With `announce`, its message is due in this call.
    mutating func occupy(_ name: String, topic: (String) -> String, id: String, slot: Int, json: String,
                         announce: Bool) -> Int {
        let room: Int
        if let existing = index[name] {
            room = existing
        } else {
            room = rooms.count
            rooms.append(RoomMessage(name: name, topic: topic(name)))
            index[name] = room
        }
        rooms[room].insert(id: id, slot: slot, json: json)
        if announce { markDue(room) }
        return room
    }

    /// Takes an occupant out of `room`; its message is due in this call, or at the next tick.
    mutating func vacate(_ room: Int, id: String, slot: Int, atTick: Bool) {
        rooms[room].remove(id: id, slot: slot)
        if atTick { markDueAtTick(room) } else { markDue(room) }
    }

    /// An occupant's part changed (its location was published again in the same room): the
    /// room's message is due at the next tick if the part changed.
    mutating func update(_ room: Int, id: String, slot: Int, json: String) {
        if rooms[room].update(id: id, slot: slot, json: json) { markDueAtTick(room) }
    }

    mutating func markDue(_ room: Int) {
        guard !rooms[room].isDue else { return }
        rooms[room].isDue = true
        due.append(room)
    }

    private mutating func markDueAtTick(_ room: Int) {
        guard !rooms[room].isDueAtTick else { return }
        rooms[room].isDueAtTick = true
        dueAtTick.append(room)
    }

    /// At a tick: the rooms whose occupants' parts changed since the last one become due.
    mutating func tick() {
        for room in dueAtTick where rooms[room].isDueAtTick { markDue(room) }
        dueAtTick.removeAll(keepingCapacity: true)
    }

    /// The messages of the rooms due in this call, once each.
    mutating func publishDue(into out: inout [AggregatorPublication]) {
        guard !due.isEmpty else { return }
        for room in due {
            out.append(rooms[room].publication)
            rooms[room].isDue = false
            // The message carries every occupant's current part.
            rooms[room].isDueAtTick = false
        }
        due.removeAll(keepingCapacity: true)
    }

    /// Every room's message, by room name (a reconnect's retained state).
    var allByName: [AggregatorPublication] {
        rooms.sorted { $0.name < $1.name }.map(\.publication)
    }
}
