/// The two functions of a crypto library that devices known by their IRK need, handed in by the
/// program (PresenceAgent's and the aggregator's `LibCrypto`, OpenSSL's libcrypto wrapped once).
///
/// BeaconCore decides which addresses are resolved, remembers the answers and keeps one identity
/// per key; the AES and SHA-256 themselves come from a kept library through this protocol, so the
/// pure core links no C library and its tests can count the calls.
public protocol IdentityKeyCrypto: Sendable {
    /// SHA-256 of `bytes` (32 bytes): what the canonical `irk-…` id is cut from.
    func sha256(_ bytes: [UInt8]) -> [UInt8]
    /// `ah(k, ·)` of one key (Core Vol 3 Part H §2.2.2): the 24-bit hash of a 24-bit `prand`, the
    /// key's AES schedule prepared once here rather than at every address.
    func addressHash(for key: IdentityResolvingKey) -> AddressHash
}

/// `ah(k, prand)` of one key: `prand` in the low 24 bits in, the hash in the low 24 bits out.
public typealias AddressHash = @Sendable (UInt32) -> UInt32
