import BeaconCore

/// Beacon id → slot for `RoomDecider`, which owns the ids (`slotBeacons`) and compares them.
///
/// Why not `[BeaconID: Int]`: its lookup of a 60-byte id was a fifth of the aggregator's work —
/// SipHash over the bytes, then a full string compare for every key met along the probe sequence
/// (`Dictionary` keeps no hashes, and ids share a 45-byte prefix). Here each 8-byte bucket keeps 32
/// bits of the id's hash beside its slot, so a lookup compares one id (the one whose bits match)
/// and touches one cache line of a table half the size, and the hash reads eight bytes a step. Its key is drawn per process from Swift's own seeded
/// `Hasher`, as `Dictionary`'s is, so ids heard on the air cannot be chosen to collide.
/// Linear probing, at most three quarters full (10,000 beacons: 128 KB, which stays in cache where
/// a half-full table did not), backward-shift deletion (no tombstones).
@usableFromInline struct BeaconSlotTable: Sendable {
    private struct Bucket: Sendable {
        /// The high 32 bits of the hash; its low bits (masked) are the bucket the entry belongs in.
        var tag: UInt32 = 0
        /// −1: empty.
        var slot: Int32 = -1
    }

    private var buckets: [Bucket] = []
    private var mask = 0
    private(set) var count = 0
    private let seed: UInt64
    private let multiplier: UInt64

    init() {
        var hasher = Hasher()
        hasher.combine(0x6265_6163_6f6e as UInt64)
        let first = UInt64(UInt(bitPattern: hasher.finalize()))
        hasher = Hasher()
        hasher.combine(first)
        seed = first
        multiplier = UInt64(UInt(bitPattern: hasher.finalize())) | 1
    }

    /// The hash of `beacon`'s UTF-8 bytes under this table's key (32 bits: a table of 2³² buckets
    /// is never needed).
    func hash(_ beacon: BeaconID) -> UInt32 {
        UInt32(truncatingIfNeeded: fullHash(beacon) >> 32)
    }

    private func fullHash(_ beacon: BeaconID) -> UInt64 {
        if let hash = beacon.rawValue.utf8.withContiguousStorageIfAvailable({ hash(bytes: UnsafeRawBufferPointer($0)) }) {
            return hash
        }
        return Array(beacon.rawValue.utf8).withUnsafeBytes { hash(bytes: $0) }
    }

    private func hash(bytes: UnsafeRawBufferPointer) -> UInt64 {
        var state = seed ^ UInt64(bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            state = mix(state ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        var last: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count {
            last |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        return mix(mix(state ^ last) ^ seed)
    }

    /// 64×64 → 128-bit multiply folded: every input bit reaches every output bit.
    private func mix(_ value: UInt64) -> UInt64 {
        let product = value.multipliedFullWidth(by: multiplier)
        return product.high ^ product.low
    }

    /// The slot stored under `hash` for which `isBeacon` is true, if any.
    func find(hash: UInt32, isBeacon: (Int) -> Bool) -> Int? {
        guard count > 0 else { return nil }
        var index = Int(hash) & mask
        while true {
            let bucket = buckets[index]
            if bucket.slot < 0 { return nil }
            if bucket.tag == hash, isBeacon(Int(bucket.slot)) { return Int(bucket.slot) }
            index = (index + 1) & mask
        }
    }

    /// The slot of `beacon`, whose ids the caller keeps by slot in `beacons`; nil when it has none.
    @usableFromInline func slot(of beacon: BeaconID, among beacons: [BeaconID?]) -> Int? {
        find(hash: hash(beacon)) { beacons[$0] == beacon }
    }

    /// Stores `slot` under `hash`; the caller has checked that its beacon is not stored yet.
    mutating func insert(hash: UInt32, slot: Int) {
        precondition(slot >= 0 && slot <= Int(Int32.max), "slot out of range")
        if (count + 1) * 4 > buckets.count * 3 { grow() }
        var index = Int(hash) & mask
        while buckets[index].slot >= 0 { index = (index + 1) & mask }
        buckets[index] = Bucket(tag: hash, slot: Int32(slot))
        count += 1
    }

    /// Removes the entry of `slot` stored under `hash`, if any.
    mutating func remove(hash: UInt32, slot: Int) {
        guard count > 0 else { return }
        var index = Int(hash) & mask
        while Int(buckets[index].slot) != slot {
            if buckets[index].slot < 0 { return }
            index = (index + 1) & mask
        }
        // Backward shift: move up every later entry of the run that may sit at the freed bucket.
        var hole = index
        var next = (hole + 1) & mask
        while buckets[next].slot >= 0 {
            let home = Int(buckets[next].tag) & mask
            // `next` may fill the hole when its home is not in the cyclic range (hole, next].
            if (next - home) & mask >= (next - hole) & mask {
                buckets[hole] = buckets[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        buckets[hole] = Bucket()
        count -= 1
        if count == 0 { removeAll() }
    }

    /// Empties the table and gives its memory back.
    mutating func removeAll() {
        buckets = []
        mask = 0
        count = 0
    }

    private mutating func grow() {
        let old = buckets
        let capacity = max(16, buckets.count * 2)
        buckets = Array(repeating: Bucket(), count: capacity)
        mask = capacity - 1
        for bucket in old where bucket.slot >= 0 {
            var index = Int(bucket.tag) & mask
            while buckets[index].slot >= 0 { index = (index + 1) & mask }
            buckets[index] = bucket
        }
    }
}
