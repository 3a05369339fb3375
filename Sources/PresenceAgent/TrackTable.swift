import BeaconCore

/// The agent's tracked beacons: a hash index over reusable slots, each beacon on one of three
/// least-recently-heard lists by what keeps it (`AgentCore.TrackClass`).
///
/// Why lists: under a flood of random ids the cap must evict at every new beacon, and a scan
/// for the longest silent would cost the whole table each time; here eviction, a hearing and a
/// removal are O(1), and the once-a-second silence check walks only the beacons actually silent
/// (each list is in order of last hearing, oldest first, as long as time does not run backwards).
struct TrackTable: Sendable {
    typealias Key = BeaconID.Components

    private struct Slot: Sendable {
        var key: Key
        var value: AgentCore.TrackedBeacon
        var group: AgentCore.TrackClass
        var previous: Int32
        var next: Int32
    }

    private static let none: Int32 = -1
    private var slots: [Slot?] = []
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

    subscript(slot: Int) -> AgentCore.TrackedBeacon {
        get { slots[slot]!.value }
        _modify { yield &slots[slot]!.value }
    }

    func key(at slot: Int) -> Key { slots[slot]!.key }
    func group(at slot: Int) -> AgentCore.TrackClass { slots[slot]!.group }

    /// Adds a beacon as the most recently heard of its list; returns its slot.
    mutating func insert(_ key: Key, _ value: AgentCore.TrackedBeacon, group: AgentCore.TrackClass) -> Int {
        let slot: Int32
        let entry = Slot(key: key, value: value, group: group, previous: Self.none, next: Self.none)
        if let reused = freeSlots.popLast() {
            slot = reused
            slots[Int(reused)] = entry
        } else {
            slot = Int32(slots.count)
            slots.append(entry)
        }
        index[key] = slot
        link(slot, group)
        return Int(slot)
    }

    /// Marks a beacon as just heard (moves it to the end of its list), or moves it to another list.
    mutating func touch(_ slot: Int, group: AgentCore.TrackClass? = nil) {
        let s = Int32(slot)
        let target = group ?? slots[slot]!.group
        unlink(s)
        slots[slot]!.group = target
        link(s, target)
    }

    mutating func remove(_ slot: Int) {
        let s = Int32(slot)
        unlink(s)
        if let key = slots[slot]?.key { index[key] = nil }
        slots[slot] = nil
        freeSlots.append(s)
    }

    /// The least recently heard beacon of a list.
    func oldest(_ group: AgentCore.TrackClass) -> Int? {
        let head = heads[group.rawValue]
        return head == Self.none ? nil : Int(head)
    }

    /// The beacon heard after the one at `slot` in its list.
    func newer(than slot: Int) -> Int? {
        let next = slots[slot]!.next
        return next == Self.none ? nil : Int(next)
    }

    /// Every slot in use, in no particular order.
    var allSlots: [Int] { index.values.map(Int.init) }

    mutating func removeAll() {
        slots.removeAll()
        freeSlots.removeAll()
        index.removeAll()
        heads = [Self.none, Self.none, Self.none]
        tails = [Self.none, Self.none, Self.none]
        counts = [0, 0, 0]
    }

    private mutating func link(_ slot: Int32, _ group: AgentCore.TrackClass) {
        let list = group.rawValue
        let tail = tails[list]
        slots[Int(slot)]!.previous = tail
        slots[Int(slot)]!.next = Self.none
        if tail == Self.none { heads[list] = slot } else { slots[Int(tail)]!.next = slot }
        tails[list] = slot
        counts[list] += 1
    }

    private mutating func unlink(_ slot: Int32) {
        guard let entry = slots[Int(slot)] else { return }
        let list = entry.group.rawValue
        if entry.previous == Self.none { heads[list] = entry.next } else { slots[Int(entry.previous)]!.next = entry.next }
        if entry.next == Self.none { tails[list] = entry.previous } else { slots[Int(entry.next)]!.previous = entry.previous }
        counts[list] -= 1
    }
}
