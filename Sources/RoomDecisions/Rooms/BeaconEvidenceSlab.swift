import BeaconCore

/// A beacon's held evidence, room scores and challengers in one allocation (`BeaconRoomState`'s
/// three lists).
///
/// Why: as three arrays they were three heap buffers, each its own cache misses when an update
/// comes back to the beacon (with 10,000 beacons nothing of a beacon stays in cache between its
/// updates). Here an update reads one block: the held entries, then the scores right after them.
/// Each list has room for `capacity` entries (a beacon's scores and challengers never outnumber
/// its held entries); the block grows, doubling, when a beacon is heard by more nodes. A value
/// type: the block is copied before a write when it is shared (so it is never written while two
/// values, or threads, see it: hence `@unchecked Sendable`).
struct BeaconEvidenceSlab: @unchecked Sendable {
    typealias Held = BeaconRoomState.Held
    typealias RoomScore = BeaconRoomState.RoomScore
    typealias Challenge = BeaconRoomState.Challenge

    struct Counts: Sendable {
        var capacity: Int
        var held = 0
        var scores = 0
        var challenges = 0
    }

    /// The lists as typed memory in the tail (8-byte words): held, scores, challenges.
    final class Storage: ManagedBuffer<Counts, UInt64> {
        /// The counts, read through the header's address: `header` is a stored property of a
        /// class, so reading it would check exclusivity at run time on every access.
        var counts: Counts { withUnsafeMutablePointerToHeader { $0.pointee } }
    }

    /// Nil while every list is empty and nothing was ever held (no allocation, as an empty array).
    private var storage: Storage?

    init() {}

    // MARK: - Layout

    private static func scoresOffset(_ capacity: Int) -> Int { capacity * MemoryLayout<Held>.stride }

    private static func challengesOffset(_ capacity: Int) -> Int {
        scoresOffset(capacity) + capacity * MemoryLayout<RoomScore>.stride
    }

    private static func words(_ capacity: Int) -> Int {
        (challengesOffset(capacity) + capacity * MemoryLayout<Challenge>.stride + 7) / 8
    }

    /// A block for `capacity` entries per list, its regions bound to their types, holding `old`'s lists.
    private static func make(capacity: Int, copying old: Storage?) -> Storage {
        let block = unsafeDowncast(
            Storage.create(minimumCapacity: words(capacity)) { _ in Counts(capacity: capacity) }, to: Storage.self)
        block.withUnsafeMutablePointers { counts, words in
            let raw = UnsafeMutableRawPointer(words)
            let held = raw.bindMemory(to: Held.self, capacity: capacity)
            let scores = (raw + scoresOffset(capacity)).bindMemory(to: RoomScore.self, capacity: capacity)
            let challenges = (raw + challengesOffset(capacity)).bindMemory(to: Challenge.self, capacity: capacity)
            guard let old else { return }
            old.withUnsafeMutablePointers { oldCounts, oldWords in
                let oldRaw = UnsafeMutableRawPointer(oldWords)
                let oldCapacity = oldCounts.pointee.capacity
                held.initialize(from: oldRaw.assumingMemoryBound(to: Held.self), count: oldCounts.pointee.held)
                scores.initialize(from: (oldRaw + scoresOffset(oldCapacity)).assumingMemoryBound(to: RoomScore.self),
                                  count: oldCounts.pointee.scores)
                challenges.initialize(
                    from: (oldRaw + challengesOffset(oldCapacity)).assumingMemoryBound(to: Challenge.self),
                    count: oldCounts.pointee.challenges)
                counts.pointee.held = oldCounts.pointee.held
                counts.pointee.scores = oldCounts.pointee.scores
                counts.pointee.challenges = oldCounts.pointee.challenges
            }
        }
        return block
    }

    /// Makes the block this value's own, with room for at least `needed` entries per list.
    private mutating func reserve(_ needed: Int, hint: Int = 0) {
        // No local reference to the block before the check: it would make the block look shared.
        guard storage != nil else {
            storage = Self.make(capacity: max(needed, min(max(hint, 4), 16)), copying: nil)
            return
        }
        let capacity = storage!.counts.capacity
        if capacity >= needed, isKnownUniquelyReferenced(&storage) { return }
        storage = Self.make(capacity: capacity >= needed ? capacity : max(needed, 2 * capacity), copying: storage)
    }

    /// Makes the block this value's own before a write in place (it exists: something is held).
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = Self.make(capacity: storage!.counts.capacity, copying: storage) }
    }

    // MARK: - Reading

    var heldCount: Int { storage?.counts.held ?? 0 }
    var scoreCount: Int { storage?.counts.scores ?? 0 }
    var challengeCount: Int { storage?.counts.challenges ?? 0 }

    /// The held entries, for reading during `body`.
    func withHeld<R>(_ body: (UnsafeBufferPointer<Held>) -> R) -> R {
        guard let storage else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        return storage.withUnsafeMutablePointers { counts, words in
            body(UnsafeBufferPointer(start: UnsafeRawPointer(words).assumingMemoryBound(to: Held.self),
                                     count: counts.pointee.held))
        }
    }

    /// The room scores, for reading during `body`.
    func withScores<R>(_ body: (UnsafeBufferPointer<RoomScore>) -> R) -> R {
        guard let storage else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        return storage.withUnsafeMutablePointers { counts, words in
            let start = (UnsafeRawPointer(words) + Self.scoresOffset(counts.pointee.capacity))
                .assumingMemoryBound(to: RoomScore.self)
            return body(UnsafeBufferPointer(start: start, count: counts.pointee.scores))
        }
    }

    /// The challengers, for reading during `body`.
    func withChallenges<R>(_ body: (UnsafeBufferPointer<Challenge>) -> R) -> R {
        guard let storage else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        return storage.withUnsafeMutablePointers { counts, words in
            let start = (UnsafeRawPointer(words) + Self.challengesOffset(counts.pointee.capacity))
                .assumingMemoryBound(to: Challenge.self)
            return body(UnsafeBufferPointer(start: start, count: counts.pointee.challenges))
        }
    }

    // MARK: - Writing

    /// The three lists and their counts, for writing during `body`; the block is this value's own.
    private mutating func withLists<R>(
        _ body: (inout Counts, UnsafeMutablePointer<Held>, UnsafeMutablePointer<RoomScore>,
                 UnsafeMutablePointer<Challenge>) -> R
    ) -> R {
        storage!.withUnsafeMutablePointers { counts, words in
            let raw = UnsafeMutableRawPointer(words)
            let capacity = counts.pointee.capacity
            return body(&counts.pointee, raw.assumingMemoryBound(to: Held.self),
                        (raw + Self.scoresOffset(capacity)).assumingMemoryBound(to: RoomScore.self),
                        (raw + Self.challengesOffset(capacity)).assumingMemoryBound(to: Challenge.self))
        }
    }

    /// Appends a held entry; `capacityHint` sizes a first block (the number of nodes a beacon may
    /// be heard by, so that it need not grow).
    mutating func appendHeld(_ entry: Held, capacityHint: Int) {
        reserve(heldCount + 1, hint: capacityHint)
        withLists { counts, held, _, _ in
            (held + counts.held).initialize(to: entry)
            counts.held += 1
        }
    }

    /// Stores `entry` as its node's evidence: in place of the node's entry, or appended (a first
    /// block sized by `capacityHint`). Returns the room of the entry it replaced, nil when appended.
    mutating func put(_ entry: Held, capacityHint: Int) -> BeaconRoomState.Code? {
        let node = entry.node
        if storage != nil, isKnownUniquelyReferenced(&storage) {
            // The usual case, in one pass: the node's entry found and replaced.
            let replaced: BeaconRoomState.Code? = storage!.withUnsafeMutablePointers { counts, words in
                let held = UnsafeMutableRawPointer(words).assumingMemoryBound(to: Held.self)
                for index in 0..<counts.pointee.held where held[index].node == node {
                    let room = held[index].room
                    held[index] = entry
                    return room
                }
                return nil
            }
            if replaced != nil { return replaced }
        } else if let index = withHeld({ $0.firstIndex { $0.node == node } }) {
            let room = withHeld { $0[index].room }
            setHeld(entry, at: index)
            return room
        }
        appendHeld(entry, capacityHint: capacityHint)
        return nil
    }

    mutating func setHeld(_ entry: Held, at index: Int) {
        makeUnique()
        withLists { _, held, _, _ in held[index] = entry }
    }

    /// Removes the entry at `index`, keeping the order of the others.
    mutating func removeHeld(at index: Int) {
        makeUnique()
        withLists { counts, held, _, _ in
            (held + index).update(from: held + index + 1, count: counts.held - index - 1)
            counts.held -= 1
        }
    }

    /// Removes the entries for which `isRemoved` is true, keeping the order of the others.
    mutating func removeHeld(where isRemoved: (Held) -> Bool) {
        guard heldCount > 0 else { return }
        makeUnique()
        withLists { counts, held, _, _ in
            var kept = 0
            for index in 0..<counts.held where !isRemoved(held[index]) {
                held[kept] = held[index]
                kept += 1
            }
            counts.held = kept
        }
    }

    mutating func removeAllHeld() {
        guard heldCount > 0 else { return }
        makeUnique()
        withLists { counts, _, _, _ in counts.held = 0 }
    }

    /// Room for as many scores (and challengers) as entries are held, in a block of this value's own.
    private mutating func reserveScores() {
        reserve(max(heldCount, 1))
    }

    /// Re-sums `room`'s score from the held entries, in place; false when `room` has no score.
    mutating func refreshScore(of room: BeaconRoomState.Code) -> Bool {
        guard scoreCount > 0 else { return false }
        makeUnique()
        return withLists { counts, held, scores, _ in
            for index in 0..<counts.scores where scores[index].room == room {
                scores[index] = BeaconRoomState.roomScore(of: room, in: UnsafeBufferPointer(start: held, count: counts.held))
                return true
            }
            return false
        }
    }

    /// Every room's score from the held entries, in the order the rooms first appear in them.
    mutating func rebuildScores() {
        removeAllScores()
        guard heldCount > 0 else { return }
        reserveScores()
        withLists { counts, held, scores, _ in
            let entries = UnsafeBufferPointer(start: held, count: counts.held)
            for entry in entries {
                var known = false
                for index in 0..<counts.scores where scores[index].room == entry.room { known = true }
                guard !known else { continue }
                (scores + counts.scores).initialize(to: BeaconRoomState.roomScore(of: entry.room, in: entries))
                counts.scores += 1
            }
        }
    }

    mutating func removeAllScores() {
        guard scoreCount > 0 else { return }
        makeUnique()
        withLists { counts, _, _, _ in counts.scores = 0 }
    }

    mutating func setChallenge(_ challenge: Challenge, at index: Int) {
        makeUnique()
        withLists { _, _, _, challenges in challenges[index] = challenge }
    }

    /// Replaces the challengers with `list` (never more than the scores).
    mutating func replaceChallenges(with list: [Challenge]) {
        reserve(max(heldCount, scoreCount, list.count, 1))
        withLists { counts, _, _, challenges in
            precondition(list.count <= counts.capacity, "more challengers than entries")
            for (index, challenge) in list.enumerated() { challenges[index] = challenge }
            counts.challenges = list.count
        }
    }

    mutating func removeAllChallenges() {
        guard challengeCount > 0 else { return }
        makeUnique()
        withLists { counts, _, _, _ in counts.challenges = 0 }
    }
}
