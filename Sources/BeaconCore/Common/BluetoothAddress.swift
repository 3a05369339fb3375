/// A 48-bit Bluetooth device address, stored most significant byte first (as people write it).
///
/// HCI carries addresses little-endian; `init(littleEndian:)` takes them as they come off the wire.
public struct BluetoothAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The address as an integer: `c4:a1:b2:c3:d4:e5` is `0xC4A1B2C3D4E5`.
    public let rawValue: UInt64

    /// Creates an address from an integer; only the low 48 bits count.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue & 0xFFFF_FFFF_FFFF
    }

    /// Six bytes as HCI sends them (least significant first). Returns nil unless exactly six.
    public init?<C: Collection>(littleEndian bytes: C) where C.Element == UInt8 {
        guard bytes.count == 6 else { return nil }
        var value: UInt64 = 0
        var shift: UInt64 = 0
        for byte in bytes {
            value |= UInt64(byte) << shift
            shift += 8
        }
        self.init(rawValue: value)
    }

    /// Parses `c4:a1:b2:c3:d4:e5` (or with `-`, or 12 bare hex digits), any letter case.
    public init?(_ text: String) {
        var value: UInt64 = 0
        var digits = 0
        for scalar in text.unicodeScalars {
            if scalar == ":" || scalar == "-" { continue }
            guard let nibble = HexDigits.value(of: scalar) else { return nil }
            value = value << 4 | UInt64(nibble)
            digits += 1
            if digits > 12 { return nil }
        }
        guard digits == 12 else { return nil }
        self.init(rawValue: value)
    }

    /// The six bytes, most significant first.
    public var bytes: [UInt8] {
        (0..<6).map { UInt8(truncatingIfNeeded: rawValue >> UInt64(40 - 8 * $0)) }
    }

    /// `c4:a1:b2:c3:d4:e5`: lowercase, colon separated, as docs/MQTT.md's payloads carry it.
    public var description: String {
        var out = ""
        out.reserveCapacity(17)
        for (index, byte) in bytes.enumerated() {
            if index > 0 { out.append(":") }
            HexDigits.append(byte, to: &out)
        }
        return out
    }

    /// `c4a1b2c3d4e5`: the form used in `mac-<12 hex>` beacon ids.
    public var compactHex: String {
        var out = ""
        out.reserveCapacity(12)
        for byte in bytes { HexDigits.append(byte, to: &out) }
        return out
    }

    /// Orders addresses by their value, as their text sorts.
    public static func < (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool { lhs.rawValue < rhs.rawValue }
}
