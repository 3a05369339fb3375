/// Writing JSON text without Foundation: string escaping and numbers, for status payloads.
public enum JSONText {
    /// `text` as a JSON string literal, quotes included: `"`, `\` and control characters escaped
    /// (`\n`, `\u0000`, …), everything else passed through as UTF-8.
    public static func quoted(_ text: String) -> String {
        var out = ""
        appendQuoted(text, to: &out)
        return out
    }

    /// Whether `text` holds a byte JSON escapes (`"`, `\` or a control character). Scans the
    /// string's own bytes when it has them contiguous (native and small strings): iterating
    /// `utf8` as a sequence costs several times as much per byte.
    public static func needsEscape(_ text: String) -> Bool {
        func isEscaped(_ byte: UInt8) -> Bool { byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") }
        return text.utf8.withContiguousStorageIfAvailable { $0.contains(where: isEscaped) }
            ?? text.utf8.contains(where: isEscaped)
    }

    /// Appends `text` as a JSON string literal to `out`.
    public static func appendQuoted(_ text: String, to out: inout String) {
        out.append("\"")
        // Almost every string (ids, topics, rooms) needs no escape: append it whole. Appending
        // scalar by scalar made this the agent's hottest function (presence-bench speed).
        if !needsEscape(text) {
            out.append(text)
            out.append("\"")
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out.append("\\\"")
            case "\\": out.append("\\\\")
            case "\n": out.append("\\n")
            case "\r": out.append("\\r")
            case "\t": out.append("\\t")
            case "\u{08}": out.append("\\b")
            case "\u{0C}": out.append("\\f")
            default:
                if scalar.value < 0x20 {
                    out.append("\\u00")
                    HexDigits.append(UInt8(scalar.value), to: &out)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out.append("\"")
    }

    /// A finite `Double` as a JSON number: integral values without a fraction (`30`, not `30.0`);
    /// `null` for NaN and infinities, which JSON cannot carry.
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
