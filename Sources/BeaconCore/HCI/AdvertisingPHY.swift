/// The radio PHY an advertisement was received on (extended reports only; legacy is LE 1M).
public struct AdvertisingPHY: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The PHY byte as the report carried it.
    public let rawValue: UInt8

    /// Wraps any PHY byte, defined or not.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// LE 1M (0x01), the PHY of every legacy advertisement.
    public static let le1M = AdvertisingPHY(rawValue: 0x01)
    /// LE 2M (0x02).
    public static let le2M = AdvertisingPHY(rawValue: 0x02)
    /// LE Coded (0x03), the long-range PHY.
    public static let leCoded = AdvertisingPHY(rawValue: 0x03)

    /// `1m`, `2m`, `coded`, or `0x..` for values the spec reserves.
    public var description: String {
        switch rawValue {
        case 0x01: return "1m"
        case 0x02: return "2m"
        case 0x03: return "coded"
        default: return "0x" + HexDigits.string([rawValue])
        }
    }
}
