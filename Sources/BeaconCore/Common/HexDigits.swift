/// Lowercase hex formatting and parsing without Foundation (hot paths format ids per report).
public enum HexDigits {
    static let table: [Character] = Array("0123456789abcdef")

    /// Appends `byte` as two lowercase hex digits.
    public static func append(_ byte: UInt8, to string: inout String) {
        string.append(table[Int(byte >> 4)])
        string.append(table[Int(byte & 0x0F)])
    }

    /// `bytes` as lowercase hex with no separators.
    public static func string<C: Sequence>(_ bytes: C) -> String where C.Element == UInt8 {
        var out = ""
        for byte in bytes { append(byte, to: &out) }
        return out
    }

    /// The value of one hex digit, either case; nil for anything else.
    public static func value(of scalar: Unicode.Scalar) -> UInt8? {
        switch scalar.value {
        case 0x30...0x39: return UInt8(scalar.value - 0x30)
        case 0x41...0x46: return UInt8(scalar.value - 0x41 + 10)
        case 0x61...0x66: return UInt8(scalar.value - 0x61 + 10)
        default: return nil
        }
    }

    /// Parses an even number of hex digits into bytes; nil on any other character or an odd count.
    public static func bytes(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count / 2)
        var high: UInt8? = nil
        for scalar in text.unicodeScalars {
            guard let nibble = value(of: scalar) else { return nil }
            if let h = high {
                out.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return high == nil ? out : nil
    }
}
