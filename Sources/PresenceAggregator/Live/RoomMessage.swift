import BeaconCore

/// One room's retained message, `{"room":…,"occupants":[…],"count":N}`, kept rendered and edited
/// in place part by part: an arrival moves the bytes after it once, and a publication shares this
/// text instead of joining or copying the list (with 2,000 occupants, ~400 KB per arrival).
/// Occupants are ordered by id, then by the core's slot (two beacons may share an id for a moment
/// while a pushed list renames them).
struct RoomMessage: Sendable {
    /// One element of the `occupants` list, kept ready to join.
    struct Occupant: Sendable {
        var id: String
        var slot: Int
        /// `{"id","name","since","distance"}` of the beacon's published location.
        var json: String
        /// `json.utf8.count`: where the next occupant starts in the joined list.
        var length: Int
    }

    var name: String
    /// `<root>/rooms/<room>`.
    var topic: String
    private(set) var occupants: [Occupant] = []
    /// The whole message, kept up to date part by part.
    private(set) var payload: String
    /// UTF-8 length of `{"room":…,"occupants":[`: where the first occupant's part starts.
    private let headLength: Int
    /// UTF-8 length of `],"count":N}` at the end.
    private var tailLength: Int
    /// Its message is due in the current call.
    var isDue = false
    /// An occupant's distance changed: its message is due at the next tick.
    var isDueAtTick = false
    /// When its message was last published (seconds), −∞ for never: `RoomMessages.minimumInterval`.
    var lastPublished = -Double.infinity

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

    /// The retained message as it stands.
    var publication: AggregatorPublication { .retained(topic, payload) }

    /// An occupant's part as its published location shows it (a restored one: as restored).
    static func occupantJSON(id: String, name: String, location: BeaconLocation?) -> String {
        var occupant = JSONObjectWriter()
        occupant.add("id", id)
        occupant.add("name", name)
        if let location {
            occupant.add("since", ISO8601Timestamp.string(from: location.since))
            if let distance = location.distance { occupant.add("distance", distance, decimals: 2) } else { occupant.addNull("distance") }
        }
        return occupant.json
    }

    /// Adds an occupant in its place.
    mutating func insert(id: String, slot: Int, json: String) {
        insert(Occupant(id: id, slot: slot, json: json, length: json.utf8.count), at: insertionPoint(id, slot: slot))
    }

    /// Removes the occupant in `slot` (found by `id`, or by slot alone when its id changed).
    mutating func remove(id: String, slot: Int) {
        let position = insertionPoint(id, slot: slot)
        if occupants.indices.contains(position), occupants[position].slot == slot {
            remove(at: position)
        } else if let index = occupants.firstIndex(where: { $0.slot == slot }) {
            remove(at: index)
        }
    }

    /// Replaces the part of the occupant (`id`, `slot`); false when it was not there or unchanged.
    mutating func update(id: String, slot: Int, json: String) -> Bool {
        let position = insertionPoint(id, slot: slot)
        guard occupants.indices.contains(position), occupants[position].slot == slot,
            json != occupants[position].json
        else { return false }
        replace(at: position, with: json)
        return true
    }

    /// Where (`id`, `slot`) sits, or would sit, in the occupants.
    private func insertionPoint(_ id: String, slot: Int) -> Int {
        var low = 0, high = occupants.count
        while low < high {
            let middle = (low + high) / 2
            let other = occupants[middle]
            if other.id < id || (other.id == id && other.slot < slot) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// `],"count":N}`: what follows the occupants.
    private static func tail(count: Int) -> String {
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

    private mutating func insert(_ occupant: Occupant, at position: Int) {
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

    private mutating func remove(at position: Int) {
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

    private mutating func replace(at position: Int, with json: String) {
        let start = offset(of: position)
        payload.replaceSubrange(index(start)..<index(start + occupants[position].length), with: json)
        occupants[position].json = json
        occupants[position].length = json.utf8.count
    }
}
