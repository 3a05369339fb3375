import BeaconCore
import IdentityCrypto

/// Phones and watches known by their Identity Resolving Key (SEMANTICS.md, "Phones and watches"):
/// a resolvable private address that resolves under a known key is that device, tracked under the
/// key's `irk-…` id whatever address it uses, so its filter, measurement stream and room carry on
/// across an address change. Only resolvable private addresses are looked at; each once.
extension AgentCore {
    /// AES and SHA-256 from libcrypto (IdentityCrypto), the one implementation the agent uses.
    static let crypto = LibCrypto()

    /// The known devices' keys into the resolver. A new list starts afresh: what it remembered was
    /// for the old keys.
    mutating func setResolvingKeys(_ beacons: [KnownBeacon]) {
        let keyed = beacons.filter { $0.irk != nil }
        resolver = PrivateAddressResolver(hashes: keyed.map { Self.crypto.addressHash(for: $0.irk!) })
        resolverIdentities = keyed.map { $0.beacon.components! }
    }

    /// The identity a resolvable private address resolves to, or nil (any other address, or no key
    /// matches).
    @inline(__always)
    mutating func resolvedIdentity(_ address: BluetoothAddress, type: AdvertisingAddressType) -> BeaconID.Components? {
        guard IdentityResolvingKey.isResolvablePrivateAddress(address, type: type),
            let index = resolver.resolve(address)
        else { return nil }
        return resolverIdentities[index]
    }
}
