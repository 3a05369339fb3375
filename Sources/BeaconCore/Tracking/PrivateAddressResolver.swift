/// Tells which known device, if any, a resolvable private address belongs to (docs/Semantics.md,
/// "Phones and watches"): one AES block per new address and key, and then never again for that
/// address while it is in use.
///
/// Every answer is remembered, a match and a miss alike, so an address costs its AES blocks once
/// and a dictionary look-up at every later advertisement. The memory is bounded whatever the air
/// brings:
/// - matches: at most `addressesPerKey` addresses per key, the most recent (a device uses one
///   address at a time; a few cover the overlap of a rotation and a scan response still in flight);
/// - misses: two generations of at most `missCapacity` addresses each. When the newer is full it
///   becomes the older and the older is dropped: an address still heard moves up at its next
///   advertisement, while one heard once (a flood of one-off random addresses) falls out after two
///   generations. A dropped miss heard again is resolved again: a cost bounded by one resolution
///   per address per generation, never per advertisement.
///
/// The AES comes from outside (`IdentityKeyCrypto.addressHash`), so this stays pure.
public struct PrivateAddressResolver: Sendable {
    /// The hash function of each key, by key index.
    private let hashes: [AddressHash]
    /// The most addresses remembered per key, the most recent.
    public let addressesPerKey: Int
    /// The most addresses each of the two generations of misses holds.
    public let missCapacity: Int
    /// Address (its 48 bits) → key index.
    private var matches: [UInt64: Int32] = [:]
    /// Per key, its remembered addresses, oldest first (at most `addressesPerKey`).
    private var addressesOfKey: [[UInt64]]
    private var recentMisses: Set<UInt64> = []
    private var olderMisses: Set<UInt64> = []

    /// AES blocks computed since start (one per new address and key): what resolving cost.
    public private(set) var hashCount = 0
    /// Addresses looked up that needed no AES (remembered).
    public private(set) var rememberedCount = 0

    /// Creates a resolver for the keys whose hash functions `hashes` holds; key indices are positions in it.
    public init(hashes: [AddressHash], addressesPerKey: Int = 4, missCapacity: Int = 16_384) {
        self.hashes = hashes
        self.addressesPerKey = max(1, addressesPerKey)
        self.missCapacity = max(1, missCapacity)
        addressesOfKey = Array(repeating: [], count: hashes.count)
        // Without keys nothing is ever remembered: no memory taken (an agent with beacons only).
        if !hashes.isEmpty { recentMisses.reserveCapacity(self.missCapacity) }
    }

    /// No keys: nothing ever resolves (and nothing is looked at).
    public var isEmpty: Bool { hashes.isEmpty }
    /// The number of keys.
    public var keyCount: Int { hashes.count }
    /// Addresses remembered now, matches and misses: bounded by `keyCount × addressesPerKey + 2 × missCapacity`.
    public var rememberedAddressCount: Int { matches.count + recentMisses.count + olderMisses.count }

    /// The index of the key `address` resolves under, or nil. The caller has checked that it is a
    /// resolvable private address (`IdentityResolvingKey.isResolvablePrivateAddress`).
    public mutating func resolve(_ address: BluetoothAddress) -> Int? {
        let raw = address.rawValue
        if let index = matches[raw] {
            rememberedCount += 1
            return Int(index)
        }
        if recentMisses.contains(raw) {
            rememberedCount += 1
            return nil
        }
        if olderMisses.contains(raw) {
            rememberedCount += 1
            rememberMiss(raw)
            return nil
        }
        // prand: the upper 24 bits; hash: the lower 24 (Core Vol 6 Part B §1.3.2.2).
        let prand = UInt32(truncatingIfNeeded: raw >> 24) & 0xFF_FFFF
        let hash = UInt32(truncatingIfNeeded: raw) & 0xFF_FFFF
        for index in hashes.indices {
            hashCount += 1
            if hashes[index](prand) == hash {
                rememberMatch(raw, key: index)
                return index
            }
        }
        rememberMiss(raw)
        return nil
    }

    private mutating func rememberMatch(_ raw: UInt64, key index: Int) {
        matches[raw] = Int32(index)
        addressesOfKey[index].append(raw)
        if addressesOfKey[index].count > addressesPerKey {
            matches[addressesOfKey[index].removeFirst()] = nil
        }
    }

    private mutating func rememberMiss(_ raw: UInt64) {
        if recentMisses.count >= missCapacity {
            olderMisses = recentMisses
            recentMisses = Set(minimumCapacity: missCapacity)
        }
        recentMisses.insert(raw)
    }
}
