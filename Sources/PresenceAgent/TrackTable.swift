import BeaconCore

/// The agent's tracked beacons: a hash index over reusable slots, each beacon on one of three
/// least-recently-heard lists by what keeps it (`AgentCore.TrackClass`).
///
/// Why lists: under a flood of random ids the cap must evict at every new beacon, and a scan
/// for the longest silent would cost the whole table each time; here eviction, a hearing and a
/// removal are O(1), and the once-a-second silence check walks only the beacons actually silent
/// (each list is in order of last hearing, oldest first, as long as time does not run backwards).
/// The links live in arrays of their own, apart from the values, so moving a beacon to the end
/// of its list touches a few integers and never copies a value.
struct TrackTable: Sendable {
    typealias Key = BeaconID.Components

    private static let none: Int32 = -1
    private var values: [AgentCore.TrackedBeacon?] = []
    private var keys: [Key?] = []
    private var groups: [AgentCore.TrackClass] = []
    private var previous: [Int32] = []
    private var next: [Int32] = []
    private var freeSlots: [Int32] = []
    private var index: [Key: Int32] = [:]
    /// Oldest and newest slot of each list, by `TrackClass.rawValue`.
    private var heads: [Int32] = [none, none, none]
    private var tails: [Int32] = [none, none, none]
    private var counts: [Int] = [0, 0, 0]

    var count: Int { index.count }

    func count(of group: AgentCore.TrackClass) -> Int { counts[group.rawValue] }

    /// The slot of `key`, if tracked.
    func slot(of key: Key) -> Int? {
        index[key].map(Int.init)
    }

    /// The beacon in a slot in use (slots come from `slot(of:)`, `insert` and the list walks).
    subscript(slot: Int) -> AgentCore.TrackedBeacon {
        get { values[slot]! }
        _modify { yield &values[slot]! }
    }

    func key(at slot: Int) -> Key { keys[slot]! }
    func group(at slot: Int) -> AgentCore.TrackClass { groups[slot] }

    /// Adds a beacon as the most recently heard of its list; returns its slot.
    mutating func insert(_ key: Key, _ value: AgentCore.TrackedBeacon, group: AgentCore.TrackClass) -> Int {
        let slot: Int32
        if let reused = freeSlots.popLast() {
            slot = reused
            values[Int(reused)] = value
            keys[Int(reused)] = key
            groups[Int(reused)] = group
        } else {
            slot = Int32(values.count)
            values.append(value)
            keys.append(key)
            groups.append(group)
            previous.append(Self.none)
            next.append(Self.none)
        }
        index[key] = slot
        link(slot)
        return Int(slot)
    }

    /// Marks a beacon as just heard (moves it to the end of its list), or moves it to another list.
    mutating func touch(_ slot: Int, group: AgentCore.TrackClass? = nil) {
        let s = Int32(slot)
        if let group, group != groups[slot] {
            unlink(s)
            groups[slot] = group
            link(s)
        } else if tails[groups[slot].rawValue] != s {
            unlink(s)
            link(s)
        }
    }

    mutating func remove(_ slot: Int) {
        guard let key = keys[slot] else { return }
        unlink(Int32(slot))
        index[key] = nil
        values[slot] = nil
        keys[slot] = nil
        freeSlots.append(Int32(slot))
    }

    /// The least recently heard beacon of a list.
    func oldest(_ group: AgentCore.TrackClass) -> Int? {
        let head = heads[group.rawValue]
        return head == Self.none ? nil : Int(head)
    }

    /// The beacon heard after the one at `slot` in its list.
    func newer(than slot: Int) -> Int? {
        let after = next[slot]
        return after == Self.none ? nil : Int(after)
    }

    mutating func removeAll() {
        self = TrackTable()
    }

    private mutating func link(_ slot: Int32) {
        let list = groups[Int(slot)].rawValue
        let tail = tails[list]
        previous[Int(slot)] = tail
        next[Int(slot)] = Self.none
        if tail == Self.none { heads[list] = slot } else { next[Int(tail)] = slot }
        tails[list] = slot
        counts[list] += 1
    }

    private mutating func unlink(_ slot: Int32) {
        let list = groups[Int(slot)].rawValue
        let before = previous[Int(slot)]
        let after = next[Int(slot)]
        if before == Self.none { heads[list] = after } else { next[Int(before)] = after }
        if after == Self.none { tails[list] = before } else { previous[Int(after)] = before }
        counts[list] -= 1
    }
}
