/// When each beacon's slot next needs a tick's attention (`RoomDecider`: stale evidence, an away
/// timeout; `AggregatorCore`: a restored location's away timeout, being forgotten): a binary
/// min-heap of due times, so a tick touches only the beacons with something due, not every beacon
/// (issue 38: 100,000 beacons, four ticks a second). Lazy: a due time that moved later (a beacon heard again) is found when it comes up and
/// pushed again; one moved earlier is pushed at once. Each slot has one live entry at most, the
/// one whose time equals its `scheduled` time; older entries are skipped.
public struct SlotTimers: Sendable {
    private var heap: [(due: Double, slot: Int32)] = []
    /// Per slot: the due time of its live entry, +∞ for none.
    private var scheduled: [Double] = []

    /// Entries in the heap, live or superseded.
    public var count: Int { heap.count }

    public init() {}

    /// Makes sure `slot` is looked at by `due` (seconds): pushed when it has no entry at or before it.
    public mutating func schedule(_ slot: Int, at due: Double) {
        guard due.isFinite else { return }
        if slot >= scheduled.count { scheduled.append(contentsOf: repeatElement(.infinity, count: slot - scheduled.count + 1)) }
        guard due < scheduled[slot] else { return }
        scheduled[slot] = due
        push((due, Int32(slot)))
    }

    /// Sets `slot`'s due time to `due` (seconds), later or earlier than before; +∞ or NaN forgets it.
    /// The entry it had stays in the heap, superseded, until it comes up.
    public mutating func reschedule(_ slot: Int, at due: Double) {
        guard due.isFinite else {
            cancel(slot)
            return
        }
        if slot >= scheduled.count { scheduled.append(contentsOf: repeatElement(.infinity, count: slot - scheduled.count + 1)) }
        guard due != scheduled[slot] else { return }
        scheduled[slot] = due
        push((due, Int32(slot)))
    }

    /// The earliest live due time, nil for none (superseded entries on top are dropped on the way).
    public mutating func earliest() -> Double? {
        while let top = heap.first {
            let slot = Int(top.slot)
            if slot < scheduled.count, scheduled[slot] == top.due { return top.due }
            pop()
        }
        return nil
    }

    /// Forgets `slot`'s entry (the slot was freed; a new beacon in it schedules its own).
    public mutating func cancel(_ slot: Int) {
        if slot < scheduled.count { scheduled[slot] = .infinity }
    }

    /// Forgets every entry.
    public mutating func removeAll() {
        heap.removeAll()
        scheduled.removeAll()
    }

    /// Takes out every slot whose live entry is due by `time` (seconds), in no particular order;
    /// each has no entry afterwards: the caller schedules it again if something is still ahead.
    public mutating func takeDue(by time: Double) -> [Int] {
        var slots: [Int] = []
        while let top = heap.first, top.due <= time {
            pop()
            let slot = Int(top.slot)
            guard slot < scheduled.count, scheduled[slot] == top.due else { continue }
            scheduled[slot] = .infinity
            slots.append(slot)
        }
        return slots
    }

    private mutating func push(_ entry: (due: Double, slot: Int32)) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].due < heap[parent].due else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func pop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { break }
            var smallest = left
            if left + 1 < heap.count, heap[left + 1].due < heap[left].due { smallest = left + 1 }
            guard heap[smallest].due < heap[parent].due else { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
