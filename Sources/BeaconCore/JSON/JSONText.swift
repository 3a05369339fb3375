/// JSON as `String`s without Foundation, for status payloads and the aggregator's messages: built on
/// the byte writer (`JSONBytes`), so both escape alike.
public enum JSONText {
    /// `text` as a JSON string literal, quotes included: `"`, `\` and control characters escaped
    /// (`\n`, `\u0000`, …), everything else passed through as UTF-8.
    public static func quoted(_ text: String) -> String {
        var out = ""
        appendQuoted(text, to: &out)
        return out
    }

    /// Whether `text` holds a byte JSON escapes (`"`, `\` or a control character).
    public static func needsEscape(_ text: String) -> Bool { JSONBytes.needsEscape(text) }

    /// Appends `text` as a JSON string literal to `out`, escaped as the byte writer escapes it.
    public static func appendQuoted(_ text: String, to out: inout String) {
        // Almost every string (ids, topics, rooms) needs no escape: append it whole. Appending
        // scalar by scalar made this the agent's hottest function (presence-bench speed).
        guard needsEscape(text) else {
            out.append("\"")
            out.append(text)
            out.append("\"")
            return
        }
        let bytes = JSONBytes.bytes(capacity: JSONBytes.quotedCapacity(text)) { $0.appendQuoted(text) }
        out.append(String(decoding: bytes, as: UTF8.self))
    }

    /// A finite `Double` as a JSON number: integral values without a fraction (`30`, not `30.0`);
    /// `null` for NaN and infinities, which JSON cannot carry.
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
