/// The kind of address an advertising report carries (Core Vol 4 Part E 7.7.65.2 and .13).
public struct AdvertisingAddressType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The address type byte as the report carried it.
    public let rawValue: UInt8

    /// Wraps any address type byte, defined or not.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// A public device address (0x00), assigned by the manufacturer.
    public static let `public` = AdvertisingAddressType(rawValue: 0x00)
    /// A random device address (0x01): static, resolvable private or non-resolvable private.
    public static let random = AdvertisingAddressType(rawValue: 0x01)
    /// A public identity address the controller resolved from a resolvable private address.
    public static let publicIdentity = AdvertisingAddressType(rawValue: 0x02)
    /// A random static identity address the controller resolved from a resolvable private address.
    public static let randomStaticIdentity = AdvertisingAddressType(rawValue: 0x03)
    /// No address was sent (extended advertising only).
    public static let anonymous = AdvertisingAddressType(rawValue: 0xFF)

    /// `public`, `random`, `public_identity`, `random_static_identity`, `anonymous`, or `0x..`.
    public var description: String {
        switch rawValue {
        case 0x00: return "public"
        case 0x01: return "random"
        case 0x02: return "public_identity"
        case 0x03: return "random_static_identity"
        case 0xFF: return "anonymous"
        default: return "0x" + HexDigits.string([rawValue])
        }
    }
}
