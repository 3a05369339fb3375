/// The Flags AD structure's first byte (Core Specification Supplement, Part A, 1.3).
public struct AdvertisingFlags: OptionSet, Hashable, Sendable {
    /// The flags byte.
    public let rawValue: UInt8

    /// Wraps a flags byte.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// LE Limited Discoverable Mode (bit 0).
    public static let leLimitedDiscoverable = AdvertisingFlags(rawValue: 0x01)
    /// LE General Discoverable Mode (bit 1).
    public static let leGeneralDiscoverable = AdvertisingFlags(rawValue: 0x02)
    /// BR/EDR not supported (bit 2): an LE-only device, as beacons are.
    public static let brEdrNotSupported = AdvertisingFlags(rawValue: 0x04)
    /// Simultaneous LE and BR/EDR, controller (bit 3).
    public static let simultaneousLEAndBrEdrController = AdvertisingFlags(rawValue: 0x08)
    /// Simultaneous LE and BR/EDR, host (bit 4).
    public static let simultaneousLEAndBrEdrHost = AdvertisingFlags(rawValue: 0x10)
}
