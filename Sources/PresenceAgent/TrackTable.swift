import BeaconCore

/// The agent's tracked beacons: a hash index over reusable slots, each beacon on one of three
/// least-recently-heard lists by what keeps it (`AgentCore.TrackClass`).
///
/// Why lists: under a flood of random ids the cap must evict at every new beacon, and a scan
/// for the longest silent would cost the whole table each time; here eviction, a hearing and a
/// removal are O(1), and the once-a-second silence check walks only the beacons actually silent
/// (each list is in order of last hearing, oldest first, as long as time does not run backwards).
/// The lists are `SlotRecencyLists`, the aggregator's too.
///
/// Why an index of its own: the lookup runs at every advertisement, and `Dictionary` hashes the
/// id enum with SipHash each time. Here each id is packed into three words (`FixedKey`) and the
/// index is open addressing over slot numbers with a seeded multiply-xor hash: a lookup is a few
/// multiplications and, usually, one comparison of three words.
struct TrackTable: Sendable {
    typealias Key = BeaconID.Components

    /// Not optional, so a read or change of one field projects straight into the array (an
    /// optional's force unwrap copied the whole value); a removed
    /// beacon's value stays until its slot is reused, `inUse` says which slots hold one.
    private var values: [AgentCore.TrackedBeacon] = []
    private var inUse: [Bool] = []
    private var keys: [FixedKey] = []
    private var groups: [AgentCore.TrackClass] = []
    private var freeSlots: [Int32] = []
    private var index = SlotIndex()
    /// One list per `TrackClass.rawValue`.
    private var recency = SlotRecencyLists(lists: 3)

    var count: Int { index.count }

    func count(of group: AgentCore.TrackClass) -> Int { recency.count(group.rawValue) }

    /// The slot of `key`, if tracked.
    func slot(of key: Key) -> Int? {
        let fixed = FixedKey(key)
        return index.find(fixed, in: keys).map(Int.init)
    }

    /// The beacon in a slot in use (slots come from `slot(of:)`, `insert` and the list walks).
    subscript(slot: Int) -> AgentCore.TrackedBeacon {
        _read { yield values[slot] }
        _modify { yield &values[slot] }
    }

    func key(at slot: Int) -> Key { keys[slot].components }
    func group(at slot: Int) -> AgentCore.TrackClass { groups[slot] }

    /// Adds a beacon (not tracked yet) as the most recently heard of its list; returns its slot.
    mutating func insert(_ key: Key, _ value: AgentCore.TrackedBeacon, group: AgentCore.TrackClass) -> Int {
        let fixed = FixedKey(key)
        let slot: Int32
        if let reused = freeSlots.popLast() {
            slot = reused
            values[Int(reused)] = value
            inUse[Int(reused)] = true
            keys[Int(reused)] = fixed
            groups[Int(reused)] = group
        } else {
            slot = Int32(values.count)
            values.append(value)
            inUse.append(true)
            keys.append(fixed)
            groups.append(group)
        }
        index.insert(slot, key: fixed, keys: keys)
        recency.append(Int(slot), to: group.rawValue)
        return Int(slot)
    }

    /// Marks a beacon as just heard (moves it to the end of its list), or moves it to another list.
    mutating func touch(_ slot: Int, group: AgentCore.TrackClass? = nil) {
        if let group, group != groups[slot] {
            recency.remove(slot, from: groups[slot].rawValue)
            groups[slot] = group
            recency.append(slot, to: group.rawValue)
        } else {
            recency.moveToNewest(slot, in: groups[slot].rawValue)
        }
    }

    mutating func remove(_ slot: Int) {
        guard inUse[slot] else { return }
        recency.remove(slot, from: groups[slot].rawValue)
        index.remove(Int32(slot), keys: keys)
        inUse[slot] = false
        freeSlots.append(Int32(slot))
    }

    /// The least recently heard beacon of a list.
    func oldest(_ group: AgentCore.TrackClass) -> Int? { recency.oldest(group.rawValue) }

    /// The beacon heard after the one at `slot` in its list.
    func newer(than slot: Int) -> Int? { recency.newer(than: slot) }

    mutating func removeAll() {
        self = TrackTable()
    }
}

/// A beacon id packed into three words, one-to-one with `BeaconID.Components`: the kind in the
/// top two bits of `c`, the numbers in the rest.
struct FixedKey: Hashable, Sendable {
    var a: UInt64
    var b: UInt64
    var c: UInt64

    private static let iBeacon: UInt64 = 0 << 62
    private static let altBeacon: UInt64 = 1 << 62
    private static let eddystone: UInt64 = 2 << 62
    private static let mac: UInt64 = 3 << 62

    init(_ components: BeaconID.Components) {
        switch components {
        case .iBeacon(let uuid, let major, let minor):
            (a, b, c) = (uuid.high, uuid.low, Self.iBeacon | UInt64(major) << 16 | UInt64(minor))
        case .altBeacon(let identifier):
            (a, b, c) = (identifier.leading.high, identifier.leading.low, Self.altBeacon | UInt64(identifier.trailing))
        case .eddystone(let namespace, let instance):
            (a, b, c) = (namespace.high, instance, Self.eddystone | UInt64(namespace.low))
        case .mac(let address):
            (a, b, c) = (address.rawValue, 0, Self.mac)
        case .irk(let fingerprint):
            // Shares the fourth kind with addresses (both 48 bits); `b` tells them apart.
            (a, b, c) = (fingerprint, 1, Self.mac)
        }
    }

    var components: BeaconID.Components {
        switch c & (3 << 62) {
        case Self.iBeacon:
            return .iBeacon(uuid: BeaconUUID(high: a, low: b), major: UInt16(truncatingIfNeeded: c >> 16), minor: UInt16(truncatingIfNeeded: c))
        case Self.altBeacon:
            return .altBeacon(AltBeacon.Identifier(leading: BeaconUUID(high: a, low: b), trailing: UInt32(truncatingIfNeeded: c)))
        case Self.eddystone:
            return .eddystone(namespace: EddystoneUID.Namespace(high: a, low: UInt16(truncatingIfNeeded: c)), instance: b)
        default:
            return b == 1 ? .irk(a) : .mac(BluetoothAddress(rawValue: a))
        }
    }
}

/// Open addressing (linear probing, backward-shift deletion) from `FixedKey` to slot numbers;
/// the keys themselves stay in the caller's array, by slot. At most half full.
///
/// The ids come from the air, so the hash is seeded per table with random bits: nobody can
/// choose ids that collide here without knowing the seed.
struct SlotIndex: Sendable {
    private static let empty: Int32 = -1
    private var buckets: [Int32] = Array(repeating: empty, count: 16)
    private var mask = 15
    private let seed = UInt64.random(in: .min ... .max)
    private(set) var count = 0

    @inline(__always)
    private func bucket(of key: FixedKey) -> Int {
        // Three rounds of a multiply-xorshift mix (murmur3's finalizer), one word each.
        var h = seed
        h = Self.mix(h ^ key.a)
        h = Self.mix(h ^ key.b)
        h = Self.mix(h ^ key.c)
        return Int(truncatingIfNeeded: h) & mask
    }

    @inline(__always)
    private static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 33
        x &*= 0xFF51_AFD7_ED55_8CCD
        x ^= x >> 33
        x &*= 0xC4CE_B9FE_1A85_EC53
        x ^= x >> 33
        return x
    }

    func find(_ key: FixedKey, in keys: [FixedKey]) -> Int32? {
        var position = bucket(of: key)
        while true {
            let slot = buckets[position]
            if slot == Self.empty { return nil }
            if keys[Int(slot)] == key { return slot }
            position = (position + 1) & mask
        }
    }

    /// Adds `slot`, whose key (`keys[slot]`, equal to `key`) is not in the index yet.
    mutating func insert(_ slot: Int32, key: FixedKey, keys: [FixedKey]) {
        if (count + 1) * 2 > buckets.count { grow(keys: keys) }
        var position = bucket(of: key)
        while buckets[position] != Self.empty { position = (position + 1) & mask }
        buckets[position] = slot
        count += 1
    }

    /// Takes `slot` (in the index, its key still in `keys`) out.
    mutating func remove(_ slot: Int32, keys: [FixedKey]) {
        var position = bucket(of: keys[Int(slot)])
        while buckets[position] != slot {
            guard buckets[position] != Self.empty else { return }
            position = (position + 1) & mask
        }
        // Backward shift: move later entries of the run into the hole if their home allows it.
        var hole = position
        var probe = (position + 1) & mask
        while buckets[probe] != Self.empty {
            let home = bucket(of: keys[Int(buckets[probe])])
            // The entry at `probe` may move to `hole` unless its home lies cyclically in (hole, probe].
            let distanceToProbe = (probe - home) & mask
            let distanceToHole = (hole - home) & mask
            if distanceToHole < distanceToProbe {
                buckets[hole] = buckets[probe]
                hole = probe
            }
            probe = (probe + 1) & mask
        }
        buckets[hole] = Self.empty
        count -= 1
    }

    private mutating func grow(keys: [FixedKey]) {
        let old = buckets
        buckets = Array(repeating: Self.empty, count: old.count * 2)
        mask = buckets.count - 1
        for slot in old where slot != Self.empty {
            var position = bucket(of: keys[Int(slot)])
            while buckets[position] != Self.empty { position = (position + 1) & mask }
            buckets[position] = slot
        }
    }
}
