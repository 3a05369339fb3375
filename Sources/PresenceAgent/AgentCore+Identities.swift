import BeaconCore
import IdentityCrypto

/// Phones and watches known by their Identity Resolving Key (docs/Semantics.md, "Phones and watches"):
/// a resolvable private address that resolves under a known key is that device, tracked under the
/// key's `irk-…` id whatever address it uses, so its filter, measurement stream and room carry on
/// across an address change. Only resolvable private addresses are looked at; each once.
extension AgentCore {
    /// AES and SHA-256 from libcrypto (IdentityCrypto), the one implementation the agent uses.
    static let crypto = LibCrypto()

    /// The known devices' keys into the resolver. A new list starts afresh: what it remembered was
    /// for the old keys.
    mutating func setResolvingKeys(_ beacons: [KnownBeacon]) {
        let keys = Self.resolvingKeys(beacons)
        resolver = keys.resolver
        resolverIdentities = keys.devices.map { $0.beacon.components! }
    }

    /// A resolver for the keys of `beacons` that have one, and those devices in key order (a
    /// resolved key index is a position in `devices`). `scan` names devices with the same.
    static func resolvingKeys(_ beacons: [KnownBeacon]) -> (resolver: PrivateAddressResolver, devices: [KnownBeacon]) {
        let keyed = beacons.filter { $0.irk != nil }
        return (PrivateAddressResolver(hashes: keyed.map { crypto.addressHash(for: $0.irk!) }), keyed)
    }

    /// The key index a report's address resolves under: only a resolvable private address is
    /// looked at, and only when there are keys.
    @inline(__always)
    static func resolve(_ address: BluetoothAddress, type: AdvertisingAddressType, with resolver: inout PrivateAddressResolver) -> Int? {
        guard IdentityResolvingKey.isResolvablePrivateAddress(address, type: type) else { return nil }
        return resolver.resolve(address)
    }

    /// The identity a resolvable private address resolves to, or nil (any other address, or no key
    /// matches).
    @inline(__always)
    mutating func resolvedIdentity(_ address: BluetoothAddress, type: AdvertisingAddressType) -> BeaconID.Components? {
        Self.resolve(address, type: type, with: &resolver).map { resolverIdentities[$0] }
    }
}
