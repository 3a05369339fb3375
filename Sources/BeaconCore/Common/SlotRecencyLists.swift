/// Slots — small integers naming the entries of a caller's table — kept in least-recently-heard
/// order on one or more lists, oldest first. Appending, moving to the newest end and removing are
/// O(1), and eviction takes the oldest, so a table capped under a flood of random ids can evict at
/// every new entry without scanning. The links live in arrays of their own, apart from the
/// caller's values, so moving a slot touches a few integers and never copies a value. A slot is on
/// at most one list, and the caller says which (it keeps that beside its values). The agent's
/// track table and the aggregator's tracked beacons both keep their order here.
public struct SlotRecencyLists: Sendable {
    @usableFromInline static var none: Int32 { -1 }
    @usableFromInline var previous: [Int32] = []
    @usableFromInline var next: [Int32] = []
    @usableFromInline var heads: [Int32]
    @usableFromInline var tails: [Int32]
    @usableFromInline var counts: [Int]

    /// `lists` empty lists, numbered from 0.
    public init(lists: Int = 1) {
        heads = Array(repeating: Self.none, count: max(1, lists))
        tails = heads
        counts = Array(repeating: 0, count: max(1, lists))
    }

    /// How many slots `list` holds.
    @inlinable public func count(_ list: Int = 0) -> Int { counts[list] }

    /// The least recently heard slot of `list`.
    @inlinable public func oldest(_ list: Int = 0) -> Int? {
        let head = heads[list]
        return head == Self.none ? nil : Int(head)
    }

    /// The slot heard after `slot` on its list.
    @inlinable public func newer(than slot: Int) -> Int? {
        let after = next[slot]
        return after == Self.none ? nil : Int(after)
    }

    /// Adds `slot` (on no list) as the most recently heard of `list`.
    @inlinable public mutating func append(_ slot: Int, to list: Int = 0) {
        if slot >= previous.count {
            let missing = slot - previous.count + 1
            previous.append(contentsOf: repeatElement(Self.none, count: missing))
            next.append(contentsOf: repeatElement(Self.none, count: missing))
        }
        let s = Int32(slot)
        let tail = tails[list]
        previous[slot] = tail
        next[slot] = Self.none
        if tail == Self.none { heads[list] = s } else { next[Int(tail)] = s }
        tails[list] = s
        counts[list] += 1
    }

    /// Takes `slot` off `list`, the list it is on.
    @inlinable public mutating func remove(_ slot: Int, from list: Int = 0) {
        let before = previous[slot]
        let after = next[slot]
        if before == Self.none { heads[list] = after } else { next[Int(before)] = after }
        if after == Self.none { tails[list] = before } else { previous[Int(after)] = before }
        previous[slot] = Self.none
        next[slot] = Self.none
        counts[list] -= 1
    }

    /// `slot` was just heard: it becomes the newest of `list`, the list it is on. Only the links
    /// that change are written (a slot is heard again at every advertisement).
    @inlinable public mutating func moveToNewest(_ slot: Int, in list: Int = 0) {
        let s = Int32(slot)
        let tail = tails[list]
        guard tail != s else { return }
        let before = previous[slot]
        let after = next[slot]  // a slot: this one is not the tail
        if before == Self.none { heads[list] = after } else { next[Int(before)] = after }
        previous[Int(after)] = before
        previous[slot] = tail
        next[slot] = Self.none
        next[Int(tail)] = s
        tails[list] = s
    }
}
