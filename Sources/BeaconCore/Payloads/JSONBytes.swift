/// JSON text appended as UTF-8 bytes to a caller's buffer: the per-measurement writer.
///
/// Byte for byte what `JSONObjectWriter` and `JSONText` write, but into a `[UInt8]` the caller
/// reuses, with numbers, ids, addresses and timestamps formatted in place: the agent publishes a
/// measurement or a ranging entry thousands of times a second, and building each from `String`
/// pieces was a quarter of its CPU (presence-bench speed).
public enum JSONBytes {
    private static let hex: StaticString = "0123456789abcdef"

    /// Appends ASCII text as it is (keys, punctuation: no escaping).
    @inline(__always)
    public static func append(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `text` as a JSON string literal, quotes included (escapes as `JSONText.appendQuoted`).
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
        if value < 0 { out.append(UInt8(ascii: "-")) }
        appendDigits(value.magnitude, minimumDigits: 1, to: &out)
    }

    /// Appends `value` with at least `minimumDigits` digits (zero padded).
    static func appendDigits(_ value: UInt, minimumDigits: Int, to out: inout [UInt8]) {
        // 24 bytes: room for any UInt64; appended as one buffer (a raw slice took the generic path).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            var count = 0
            var rest = value
            repeat {
                buffer[23 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0 && count < 24
            while count < min(minimumDigits, 24) {
                buffer[23 - count] = UInt8(ascii: "0")
                count += 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[(24 - count)...]))
        }
    }

    /// Appends `value` rounded to `decimals` places without trailing zeros, `null` when not finite:
    /// exactly `JSONObjectWriter.number(_:decimals:)`.
    public static func append(_ value: Double, decimals: Int, to out: inout [UInt8]) {
        guard value.isFinite else { return append("null", to: &out) }
        var scale = 1.0
        for _ in 0..<max(0, min(decimals, 9)) { scale *= 10 }
        let scaled = (value * scale).rounded()
        guard abs(scaled) < 9.0e15 else { return out.append(contentsOf: String(value).utf8) }
        let whole = Int64(scaled)
        let unit = Int64(scale)
        if decimals <= 0 || whole % unit == 0 { return append(Int(whole / unit), to: &out) }
        if whole < 0 { out.append(UInt8(ascii: "-")) }
        let magnitude = whole.magnitude
        appendDigits(UInt(magnitude / UInt64(unit)), minimumDigits: 1, to: &out)
        out.append(UInt8(ascii: "."))
        var fraction = magnitude % UInt64(unit)
        var digits = max(0, min(decimals, 9))
        while fraction % 10 == 0 && digits > 0 {
            fraction /= 10
            digits -= 1
        }
        appendDigits(UInt(fraction), minimumDigits: digits, to: &out)
    }

    /// Appends `"c4:a1:b2:c3:d4:e5"`, quotes included (`BluetoothAddress.description`).
    public static func appendQuoted(_ address: BluetoothAddress, to out: inout [UInt8]) {
        // Formatted on the stack and appended once: an append per character was most of its cost.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 19) { text in
            text[0] = UInt8(ascii: "\"")
            for index in 0..<6 {
                let byte = UInt8(truncatingIfNeeded: address.rawValue >> UInt64(40 - 8 * index))
                text[1 + 3 * index] = hex.utf8Start[Int(byte >> 4)]
                text[2 + 3 * index] = hex.utf8Start[Int(byte & 0xF)]
                text[3 + 3 * index] = index < 5 ? UInt8(ascii: ":") : UInt8(ascii: "\"")
            }
            out.append(contentsOf: UnsafeBufferPointer(text))
        }
    }

    /// Appends `"fda50693-a4e2-4fb1-afcf-c6eb07647825"`, quotes included (`BeaconUUID.description`).
    public static func appendQuoted(_ uuid: BeaconUUID, to out: inout [UInt8]) {
        appendUUID(uuid, quoted: true, to: &out)
    }

    static func appendUUID(_ uuid: BeaconUUID, quoted: Bool = false, to out: inout [UInt8]) {
        // Formatted on the stack and appended once: an append per character was most of its cost.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 38) { text in
            var count = 0
            if quoted {
                text[0] = UInt8(ascii: "\"")
                count = 1
            }
            // A byte (two digits) at a time, the dashes after bytes 4, 6, 8 and 10.
            for byteIndex in 0..<16 {
                if byteIndex == 4 || byteIndex == 6 || byteIndex == 8 || byteIndex == 10 {
                    text[count] = UInt8(ascii: "-")
                    count += 1
                }
                let word = byteIndex < 8 ? uuid.high : uuid.low
                let byte = UInt8(truncatingIfNeeded: word >> UInt64(56 - 8 * (byteIndex % 8)))
                text[count] = hex.utf8Start[Int(byte >> 4)]
                text[count + 1] = hex.utf8Start[Int(byte & 0xF)]
                count += 2
            }
            if quoted {
                text[count] = UInt8(ascii: "\"")
                count += 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: text[..<count]))
        }
    }

    @inline(__always)
    static func appendHex(_ byte: UInt8, to out: inout [UInt8]) {
        out.append(hex.utf8Start[Int(byte >> 4)])
        out.append(hex.utf8Start[Int(byte & 0xF)])
    }

    /// Appends a beacon's canonical id as a JSON string, formatting the common iBeacon form from its
    /// parts (no `String` built); other forms are copied from their text.
    public static func appendQuoted(_ components: BeaconID.Components, to out: inout [UInt8]) {
        guard case .iBeacon(let uuid, let major, let minor) = components else {
            return appendQuoted(BeaconID(components).rawValue, to: &out)
        }
        append("\"ibeacon-", to: &out)
        appendUUID(uuid, to: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(UInt(major), minimumDigits: 1, to: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(UInt(minor), minimumDigits: 1, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `"2026-11-22T08:15:02.123Z"`, quotes included (`ISO8601Timestamp.string(from:)`).
    public static func appendQuotedTimestamp(_ instant: Instant, to out: inout [UInt8]) {
        let milliseconds = ISO8601Timestamp.clampedMilliseconds(instant)
        let (days, millisecondOfDay) = ISO8601Timestamp.floorDivide(milliseconds, 86_400_000)
        let (year, month, day) = ISO8601Timestamp.civil(fromDays: days)
        // Years are clamped to 0000…9999, so every field has a fixed width: formatted on the stack,
        // appended once.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 26) { text in
            func put(_ value: Int, at end: Int, digits: Int) {
                var rest = value
                for position in stride(from: end, to: end - digits, by: -1) {
                    text[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                }
            }
            text[0] = UInt8(ascii: "\"")
            put(Int(year), at: 4, digits: 4)
            text[5] = UInt8(ascii: "-")
            put(Int(month), at: 7, digits: 2)
            text[8] = UInt8(ascii: "-")
            put(Int(day), at: 10, digits: 2)
            text[11] = UInt8(ascii: "T")
            put(Int(millisecondOfDay / 3_600_000), at: 13, digits: 2)
            text[14] = UInt8(ascii: ":")
            put(Int(millisecondOfDay / 60_000 % 60), at: 16, digits: 2)
            text[17] = UInt8(ascii: ":")
            put(Int(millisecondOfDay / 1000 % 60), at: 19, digits: 2)
            text[20] = UInt8(ascii: ".")
            put(Int(millisecondOfDay % 1000), at: 23, digits: 3)
            text[24] = UInt8(ascii: "Z")
            text[25] = UInt8(ascii: "\"")
            out.append(contentsOf: UnsafeBufferPointer(text))
        }
    }
}
