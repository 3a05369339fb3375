/// The Flags AD structure's first byte (Core Specification Supplement, Part A, 1.3).
public struct AdvertisingFlags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    public static let leLimitedDiscoverable = AdvertisingFlags(rawValue: 0x01)
    public static let leGeneralDiscoverable = AdvertisingFlags(rawValue: 0x02)
    public static let brEdrNotSupported = AdvertisingFlags(rawValue: 0x04)
    public static let simultaneousLEAndBrEdrController = AdvertisingFlags(rawValue: 0x08)
    public static let simultaneousLEAndBrEdrHost = AdvertisingFlags(rawValue: 0x10)
}
