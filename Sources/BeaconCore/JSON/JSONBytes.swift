/// JSON text appended as UTF-8 bytes to a caller's buffer: the per-measurement writer.
///
/// Byte for byte what `JSONObjectWriter` and `JSONText` write, but into a `[UInt8]` the caller
/// reuses, with numbers, ids, addresses and timestamps formatted in place: the agent publishes a
/// measurement or a ranging entry thousands of times a second, and building each from `String`
/// pieces was a quarter of its CPU (presence-bench speed).
public enum JSONBytes {
    /// Appends ASCII text as it is (keys, punctuation: no escaping).
    @inline(__always)
    public static func append(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `text` as a JSON string literal, quotes included, escaped (`appendEscaped`; `JSONText` is built on it).
    public static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        var text = text
        let needsNoEscape = text.withUTF8 { utf8 -> Bool in
            if !needsEscape(utf8) {
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: utf8)
                out.append(UInt8(ascii: "\""))
                return true
            }
            return false
        }
        if !needsNoEscape { out.append(contentsOf: JSONText.quoted(text).utf8) }
    }

    /// Whether `utf8` holds a byte that a JSON string escapes (a control character, `"` or `\`).
    /// Eight bytes at a time: ids are ~56 bytes and two are quoted per measurement and ranging entry.
    @inline(__always)
    static func needsEscape(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var index = 0
        if let base = utf8.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= utf8.count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                // Exact per word (the classic "has a byte less than n" and "has a zero byte" tests).
                let control = (word &- ones &* 0x20) & ~word & highs
                let quoteXor = word ^ (ones &* 0x22), backslashXor = word ^ (ones &* 0x5C)
                let quote = (quoteXor &- ones) & ~quoteXor & highs
                let backslash = (backslashXor &- ones) & ~backslashXor & highs
                if control | quote | backslash != 0 { return true }
                index += 8
            }
        }
        while index < utf8.count {
            let byte = utf8[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return true }
            index += 1
        }
        return false
    }

    /// Appends a decimal integer.
    public static func append(_ value: Int, to out: inout [UInt8]) {
        append(to: &out, fixedCapacity: 24) { $0.append(value) }
    }

    /// Appends `value` rounded to `decimals` places without trailing zeros, `null` when not finite:
    /// the one number formatting (`JSONObjectWriter.number(_:decimals:)` is built on it).
    public static func append(_ value: Double, decimals: Int, to out: inout [UInt8]) {
        append(to: &out, fixedCapacity: JSONByteCursor.numberCapacity) { $0.append(value, decimals: decimals) }
    }

    /// Appends `"c4:a1:b2:c3:d4:e5"`, quotes included (`BluetoothAddress.description`).
    public static func appendQuoted(_ address: BluetoothAddress, to out: inout [UInt8]) {
        append(to: &out, fixedCapacity: 19) { $0.appendQuoted(address) }
    }

    /// Appends `"fda50693-a4e2-4fb1-afcf-c6eb07647825"`, quotes included (`BeaconUUID.description`).
    public static func appendQuoted(_ uuid: BeaconUUID, to out: inout [UInt8]) {
        append(to: &out, fixedCapacity: 38) { $0.appendQuoted(uuid) }
    }

    /// Appends a beacon's canonical id as a JSON string, formatting the common iBeacon form from its
    /// parts (no `String` built); other forms are copied from their text.
    public static func appendQuoted(_ components: BeaconID.Components, to out: inout [UInt8]) {
        guard case .iBeacon = components else { return appendQuoted(BeaconID(components).rawValue, to: &out) }
        // "ibeacon-", the UUID, two numbers of at most 5 digits, dashes and quotes: 58 bytes.
        append(to: &out, fixedCapacity: 64) { $0.appendQuoted(components) }
    }

    /// Appends `"2026-11-22T08:15:02.123Z"`, quotes included (`ISO8601Timestamp.string(from:)`).
    public static func appendQuotedTimestamp(_ instant: Instant, to out: inout [UInt8]) {
        append(to: &out, fixedCapacity: 26) { $0.appendQuotedTimestamp(instant) }
    }

    /// Writes a piece of at most `fixedCapacity` bytes (a small constant) through a cursor on the
    /// stack and appends it to `out` at once.
    @inlinable
    static func append(to out: inout [UInt8], fixedCapacity: Int, _ write: (inout JSONByteCursor) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: fixedCapacity) { buffer in
            var cursor = JSONByteCursor(buffer.baseAddress!, capacity: fixedCapacity)
            write(&cursor)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<cursor.end]))
        }
    }

    /// Writes an entry (a measurement, a ranging entry) of at most `capacity` bytes through a cursor
    /// into `scratch`, grown when short, and appends it to `out` at once: one array append per
    /// entry, not one per piece. `capacity` must cover the entry (the cursor traps past it).
    @inlinable
    public static func append(
        to out: inout [UInt8], capacity: Int, scratch: inout [UInt8], _ write: (inout JSONByteCursor) -> Void
    ) {
        if scratch.count < capacity { scratch = [UInt8](repeating: 0, count: max(capacity, 2 * scratch.count)) }
        scratch.withUnsafeMutableBufferPointer { buffer in
            var cursor = JSONByteCursor(buffer.baseAddress!, capacity: capacity)
            write(&cursor)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<cursor.end]))
        }
    }

    /// A new array of at most `capacity` bytes written through a cursor: a payload of several
    /// entries (a ranging list) sized once at worst and written straight into the array it is
    /// published with, with no per-entry scratch copy or array append.
    @inlinable
    public static func bytes(capacity: Int, _ write: (inout JSONByteCursor) -> Void) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: max(capacity, 1)) { buffer, count in
            var cursor = JSONByteCursor(buffer.baseAddress!, capacity: capacity)
            write(&cursor)
            count = cursor.end
        }
    }

    /// Whether `text` needs escaping as a JSON string (`appendQuoted` would write more than its
    /// bytes and quotes).
    public static func needsEscape(_ text: String) -> Bool {
        if let answer = text.utf8.withContiguousStorageIfAvailable({ needsEscape($0) }) { return answer }
        var text = text
        return text.withUTF8 { needsEscape($0) }
    }

    /// The most `JSONByteCursor.appendQuoted(_:)` writes for `text`: `\u00XX` per byte, and quotes.
    @inlinable
    public static func quotedCapacity(_ text: String) -> Int { 6 * text.utf8.count + 2 }
}
