/// A JSON number read without making it a `String` first (`JSONParser.memberNumber`): a
/// measurement's four numbers each cost a `String`, `strtod` and an integer parse (issue 38).
enum JSONDecimal {
    /// The value of the number text `bytes[range]` (its JSON grammar already checked) when it has
    /// at most 15 digits and no exponent, computed without a `String`: its digits as an integer
    /// divided by a power of ten. Both are exact doubles (below 2^53, at most 10^15) and the
    /// division rounds once, so it is the double `Double(text)` gives (Clinger's fast path).
    /// Nil otherwise.
    static func exactDouble(_ bytes: [UInt8], _ range: Range<Int>) -> Double? {
        var mantissa: Int64 = 0
        var digits = 0
        var decimals = 0
        var afterPoint = false
        for index in range {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard digits < 15 else { return nil }
                mantissa = mantissa * 10 + Int64(byte &- UInt8(ascii: "0"))
                digits += 1
                if afterPoint { decimals += 1 }
            case UInt8(ascii: "."): afterPoint = true
            case UInt8(ascii: "-"): continue
            default: return nil
            }
        }
        let magnitude = Double(mantissa) / powersOfTen[decimals]
        return bytes[range.lowerBound] == UInt8(ascii: "-") ? -magnitude : magnitude
    }

    private static let powersOfTen: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]
}
