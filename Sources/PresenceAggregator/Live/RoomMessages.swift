/// Every room that has (or had) occupants, and which of their messages are due: a room's message
/// is published at most once per call of the core, after the call's locations and events.
/// Membership changes make it due in the call that makes them; a change of an occupant's part
/// alone is coalesced to the next tick. And live, a room's message goes at most once a
/// second (`minimumInterval`): a change within a second of its last message waits for the first
/// tick a second after it, which sends every change since in one message. Issue 38: at 100,000
/// beacons a room lists some 700 occupants (about 90 KB), and 500 moves a second each sent two such
/// lists at once — some 90 MB/s, ahead of every location in the client's out-queue.
struct RoomMessages: Sendable {
    private var rooms: [RoomMessage] = []
    private var index: [String: Int] = [:]
    /// Rooms whose message is due in the current call, in the order they became due.
    private var due: [Int] = []
    private var dueAtTick: [Int] = []
    /// Seconds between two messages of one room, at least (calls given a time); 0: none. The live
    /// service sets 1 s (`AggregatorCore.roomMessageInterval`).
    var minimumInterval = 0.0

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
        for room in dueAtTick where rooms[room].isDueAtTick {
            rooms[room].isDueAtTick = false
            markDue(room)
        }
        dueAtTick.removeAll(keepingCapacity: true)
    }

    /// The messages of the rooms due in this call, once each; at `time` (seconds), a room whose last
    /// message is less than `minimumInterval` old waits for a tick (without a time, none waits).
    mutating func publishDue(into out: inout [AggregatorPublication], at time: Double? = nil) {
        guard !due.isEmpty else { return }
        for room in due {
            rooms[room].isDue = false
            if minimumInterval > 0, let time, time - rooms[room].lastPublished < minimumInterval {
                markDueAtTick(room)
                continue
            }
            out.append(rooms[room].publication)
            if let time { rooms[room].lastPublished = time }
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
