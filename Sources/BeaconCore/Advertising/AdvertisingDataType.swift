/// The type byte of one advertising data structure (Bluetooth Core Specification Supplement,
/// Part A; numbers from the SIG's Assigned Numbers).
///
/// A struct rather than an enum: unknown types are common and must pass through untouched.
public struct AdvertisingDataType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    public static let flags = AdvertisingDataType(rawValue: 0x01)
    public static let incompleteServiceUUIDs16 = AdvertisingDataType(rawValue: 0x02)
    public static let completeServiceUUIDs16 = AdvertisingDataType(rawValue: 0x03)
    public static let incompleteServiceUUIDs32 = AdvertisingDataType(rawValue: 0x04)
    public static let completeServiceUUIDs32 = AdvertisingDataType(rawValue: 0x05)
    public static let incompleteServiceUUIDs128 = AdvertisingDataType(rawValue: 0x06)
    public static let completeServiceUUIDs128 = AdvertisingDataType(rawValue: 0x07)
    public static let shortenedLocalName = AdvertisingDataType(rawValue: 0x08)
    public static let completeLocalName = AdvertisingDataType(rawValue: 0x09)
    public static let txPowerLevel = AdvertisingDataType(rawValue: 0x0A)
    public static let serviceSolicitationUUIDs16 = AdvertisingDataType(rawValue: 0x14)
    public static let serviceData16 = AdvertisingDataType(rawValue: 0x16)
    public static let appearance = AdvertisingDataType(rawValue: 0x19)
    public static let serviceData32 = AdvertisingDataType(rawValue: 0x20)
    public static let serviceData128 = AdvertisingDataType(rawValue: 0x21)
    public static let manufacturerSpecificData = AdvertisingDataType(rawValue: 0xFF)

    /// `0xff`: two lowercase hex digits, as AD types are usually written.
    public var description: String {
        var out = "0x"
        HexDigits.append(rawValue, to: &out)
        return out
    }
}
