/// The type byte of one advertising data structure (Bluetooth Core Specification Supplement,
/// Part A; numbers from the SIG's Assigned Numbers).
///
/// A struct rather than an enum: unknown types are common and must pass through untouched.
public struct AdvertisingDataType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The type byte of the structure.
    public let rawValue: UInt8

    /// Wraps any type byte, assigned or not.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Flags (0x01): discoverability and BR/EDR support.
    public static let flags = AdvertisingDataType(rawValue: 0x01)
    /// Incomplete list of 16-bit service UUIDs (0x02).
    public static let incompleteServiceUUIDs16 = AdvertisingDataType(rawValue: 0x02)
    /// Complete list of 16-bit service UUIDs (0x03); Eddystone lists 0xFEAA here.
    public static let completeServiceUUIDs16 = AdvertisingDataType(rawValue: 0x03)
    /// Incomplete list of 32-bit service UUIDs (0x04).
    public static let incompleteServiceUUIDs32 = AdvertisingDataType(rawValue: 0x04)
    /// Complete list of 32-bit service UUIDs (0x05).
    public static let completeServiceUUIDs32 = AdvertisingDataType(rawValue: 0x05)
    /// Incomplete list of 128-bit service UUIDs (0x06).
    public static let incompleteServiceUUIDs128 = AdvertisingDataType(rawValue: 0x06)
    /// Complete list of 128-bit service UUIDs (0x07).
    public static let completeServiceUUIDs128 = AdvertisingDataType(rawValue: 0x07)
    /// Shortened local name (0x08).
    public static let shortenedLocalName = AdvertisingDataType(rawValue: 0x08)
    /// Complete local name (0x09).
    public static let completeLocalName = AdvertisingDataType(rawValue: 0x09)
    /// TX power level (0x0A), in dBm.
    public static let txPowerLevel = AdvertisingDataType(rawValue: 0x0A)
    /// List of 16-bit service solicitation UUIDs (0x14).
    public static let serviceSolicitationUUIDs16 = AdvertisingDataType(rawValue: 0x14)
    /// Service data with a 16-bit UUID (0x16); Eddystone frames travel in it.
    public static let serviceData16 = AdvertisingDataType(rawValue: 0x16)
    /// Appearance (0x19): the device's external appearance category.
    public static let appearance = AdvertisingDataType(rawValue: 0x19)
    /// Service data with a 32-bit UUID (0x20).
    public static let serviceData32 = AdvertisingDataType(rawValue: 0x20)
    /// Service data with a 128-bit UUID (0x21).
    public static let serviceData128 = AdvertisingDataType(rawValue: 0x21)
    /// Manufacturer specific data (0xFF); iBeacon and AltBeacon frames travel in it.
    public static let manufacturerSpecificData = AdvertisingDataType(rawValue: 0xFF)

    /// `0xff`: two lowercase hex digits, as AD types are usually written.
    public var description: String {
        var out = "0x"
        HexDigits.append(rawValue, to: &out)
        return out
    }
}
