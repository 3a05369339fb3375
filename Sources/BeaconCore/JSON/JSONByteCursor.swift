/// JSON text written through a pointer into room the caller sized for the whole entry: each piece
/// is a store, not an `Array.append` (which checks uniqueness and capacity each time: the ~20 of
/// them per ranging entry were half the cost of writing it, presence-bench speed). Byte for byte
/// what `JSONBytes`'s appends write; they are built on it.
public struct JSONByteCursor {
    @usableFromInline let base: UnsafeMutablePointer<UInt8>
    @usableFromInline let capacity: Int
    @usableFromInline var end = 0
    /// The day of the last timestamp written and its `YYYY-MM-DD` bytes: the entries of a ranging
    /// list (one cursor) were heard the same day, and the calendar arithmetic was a third of a
    /// timestamp's cost.
    @usableFromInline var cachedDay = Int64.min
    @usableFromInline var cachedDate: (UInt64, UInt16) = (0, 0)

    @inlinable
    init(_ base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// The bytes written so far.
    @inlinable
    public var count: Int { end }

    /// Writes one byte; the writer reserved the room for the whole entry beforehand.
    @inlinable
    public mutating func append(_ byte: UInt8) {
        precondition(end < capacity, "JSONByteCursor: the entry outgrew the room its writer reserved")
        base[end] = byte
        end += 1
    }

    /// Keys, ids and the like are short: up to 64 bytes are copied a word at a time (the last word
    /// overlapping the one before), a call to `memcpy` per piece cost more than the copy.
    @inlinable
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        let count = bytes.count
        precondition(end + count <= capacity, "JSONByteCursor: the entry outgrew the room its writer reserved")
        let target = UnsafeMutableRawPointer(base + end)
        let from = UnsafeRawPointer(source)
        if count < 8 {
            for offset in 0..<count {
                target.storeBytes(of: from.load(fromByteOffset: offset, as: UInt8.self), toByteOffset: offset, as: UInt8.self)
            }
        } else if count <= 64 {
            var offset = 0
            while offset + 8 < count {
                target.storeBytes(of: from.loadUnaligned(fromByteOffset: offset, as: UInt64.self), toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            target.storeBytes(of: from.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self), toByteOffset: count - 8, as: UInt64.self)
        } else {
            (base + end).update(from: source, count: count)
        }
        end += count
    }

    /// Appends ASCII text as it is (keys, punctuation: no escaping).
    @inlinable
    public mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends bytes written earlier (e.g. the `,"node":…,"room":…` an agent writes once).
    @inlinable
    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    /// Appends `text` as a JSON string literal, quotes included, escaped (`appendEscaped`; `JSONText` is built on it).
    /// At most `6 * text.utf8.count + 2` bytes (`\u00XX` per control character).
    public mutating func appendQuoted(_ text: String) {
        // Native strings lend their bytes as they are; copying `text` to call `withUTF8` cost a
        // retain and a release per string.
        let lent = text.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            if JSONBytes.needsEscape(utf8) { return false }
            append(UInt8(ascii: "\""))
            append(utf8)
            append(UInt8(ascii: "\""))
            return true
        }
        if lent == true { return }
        var text = text
        let written = text.withUTF8 { utf8 -> Bool in
            if JSONBytes.needsEscape(utf8) { return false }
            append(UInt8(ascii: "\""))
            append(utf8)
            append(UInt8(ascii: "\""))
            return true
        }
        if !written { text.withUTF8 { appendEscaped($0) } }
    }

    /// Appends UTF-8 bytes as a JSON string literal, quotes included: `"`, `\` and control
    /// characters escaped (`\n`, `\u001f`, …), every other byte as it is. JSON escapes only ASCII,
    /// so byte by byte is character by character. At most `6 * utf8.count + 2` bytes.
    mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        append(UInt8(ascii: "\""))
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            case ..<0x20:
                append("\\u00")
                // 0x57 + 10 is "a": lowercase, as `HexDigits` writes.
                let high = byte >> 4, low = byte & 0x0F
                append(high < 10 ? 0x30 + high : 0x57 + high)
                append(low < 10 ? 0x30 + low : 0x57 + low)
            default: append(byte)
            }
        }
        append(UInt8(ascii: "\""))
    }

    /// Appends `text` quoted as it is, for a caller that checked it needs no escape
    /// (`JSONBytes.needsEscape`): a ranging list checks each id once, then writes it twice.
    /// At most `text.utf8.count + 2` bytes.
    public mutating func appendQuotedVerbatim(_ text: String) {
        let lent = text.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            appendQuotedVerbatim(utf8)
            return true
        }
        if lent == true { return }
        var text = text
        text.withUTF8 { appendQuotedVerbatim($0) }
    }

    /// `{"id":"…","beacon":"…"` with one checked `id` for both (a beacon without an alias), lent
    /// once: the opening of a ranging entry. At most `2 * id.utf8.count + 22` bytes.
    public mutating func appendOpeningVerbatim(id: String) {
        let lent = id.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            appendOpeningVerbatim(utf8)
            return true
        }
        if lent == true { return }
        var id = id
        id.withUTF8 { appendOpeningVerbatim($0) }
    }

    @inline(__always)
    mutating func appendOpeningVerbatim(_ utf8: UnsafeBufferPointer<UInt8>) {
        append("{\"id\":")
        appendQuotedVerbatim(utf8)
        append(",\"beacon\":")
        appendQuotedVerbatim(utf8)
    }

    @inline(__always)
    mutating func appendQuotedVerbatim(_ utf8: UnsafeBufferPointer<UInt8>) {
        precondition(end + utf8.count + 2 <= capacity, "JSONByteCursor: the entry outgrew the room its writer reserved")
        base[end] = UInt8(ascii: "\"")
        end += 1
        append(utf8)
        base[end] = UInt8(ascii: "\"")
        end += 1
    }

    /// The most a number takes (`append(_:decimals:)`: `String(Double)` at worst, 24 bytes).
    static let numberCapacity = 32

    /// Appends a decimal integer (at most 20 bytes).
    public mutating func append(_ value: Int) {
        if value < 0 { append(UInt8(ascii: "-")) }
        appendDigits(value.magnitude, minimumDigits: 1)
    }

    /// Appends `value` with at least `minimumDigits` digits (zero padded; at most 24 bytes).
    @inline(__always)
    mutating func appendDigits(_ value: UInt, minimumDigits: Int) {
        // Most numbers of a payload are one or two digits on each side of the point (RSSI,
        // distances in metres): those without counting, and without a call.
        guard value < 100 && minimumDigits <= 2 else { return appendManyDigits(value, minimumDigits: minimumDigits) }
        precondition(end + 2 <= capacity, "JSONByteCursor: the entry outgrew the room its writer reserved")
        if value < 10 && minimumDigits <= 1 {
            base[end] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value)
            end += 1
        } else {
            let tens = value / 10
            base[end] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: tens)
            base[end + 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value &- 10 &* tens)
            end += 2
        }
    }

    /// `appendDigits` for any value and width.
    @inline(never)
    mutating func appendManyDigits(_ value: UInt, minimumDigits: Int) {
        // Counted first, then written from the last digit back into place (no reversing pass).
        var count = 1
        var threshold: UInt = 10
        while value >= threshold {
            count += 1
            if count == 20 { break }  // UInt's largest has 20 digits; 10^20 does not fit
            threshold &*= 10
        }
        let width = max(count, min(minimumDigits, 24))
        precondition(end + width <= capacity, "JSONByteCursor: the entry outgrew the room its writer reserved")
        var rest = value
        var position = end + width
        while position > end {
            position -= 1
            base[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
        end += width
    }

    /// Appends `value` rounded to `decimals` places without trailing zeros, `null` when not finite:
    /// the one number formatting (`JSONObjectWriter.number(_:decimals:)` is built on it) (at most 32 bytes).
    public mutating func append(_ value: Double, decimals: Int) {
        // The payloads' precisions as constants, so the divisions below are multiplications.
        switch decimals {
        case 1: appendRounded(value, decimals: 1, scale: 10)
        case 2: appendRounded(value, decimals: 2, scale: 100)
        default:
            var scale = 1.0
            for _ in 0..<max(0, min(decimals, 9)) { scale *= 10 }
            appendRounded(value, decimals: decimals, scale: scale)
        }
    }

    /// `append(_:decimals:)` with `scale` = 10^`max(0, min(decimals, 9))`.
    @inline(__always)
    private mutating func appendRounded(_ value: Double, decimals: Int, scale: Double) {
        guard value.isFinite else { return append("null") }
        let scaled = (value * scale).rounded()
        guard abs(scaled) < 9.0e15 else {
            var text = String(value)
            return text.withUTF8 { append($0) }
        }
        let whole = Int64(scaled)
        let unit = Int64(scale)
        if decimals <= 0 || whole % unit == 0 { return append(Int(whole / unit)) }
        if whole < 0 { append(UInt8(ascii: "-")) }
        let magnitude = whole.magnitude
        appendDigits(UInt(magnitude / UInt64(unit)), minimumDigits: 1)
        append(UInt8(ascii: "."))
        var fraction = magnitude % UInt64(unit)
        var digits = max(0, min(decimals, 9))
        while fraction % 10 == 0 && digits > 0 {
            fraction /= 10
            digits -= 1
        }
        appendDigits(UInt(fraction), minimumDigits: digits)
    }

    /// Appends `"c4:a1:b2:c3:d4:e5"`, quotes included (`BluetoothAddress.description`; 19 bytes).
    public mutating func appendQuoted(_ address: BluetoothAddress) {
        precondition(end + 19 <= capacity, "JSONByteCursor: the entry outgrew the room its writer reserved")
        let text = UnsafeMutableRawPointer(base + end)
        // The first four bytes' digits, then the last two's (the first half of that word is "0000").
        let first = Self.hexDigits(UInt32(truncatingIfNeeded: address.rawValue >> 16))
        let last = Self.hexDigits(UInt32(truncatingIfNeeded: address.rawValue & 0xFFFF)) >> 32
        text.storeBytes(of: UInt8(ascii: "\""), as: UInt8.self)
        for pair in 0..<6 {
            let digits = pair < 4 ? first >> (16 * pair) : last >> (16 * (pair - 4))
            text.storeBytes(of: UInt16(truncatingIfNeeded: digits).littleEndian, toByteOffset: 1 + 3 * pair, as: UInt16.self)
            text.storeBytes(of: pair < 5 ? UInt8(ascii: ":") : UInt8(ascii: "\""), toByteOffset: 3 + 3 * pair, as: UInt8.self)
        }
        end += 19
    }

    /// The eight lowercase hex digits of `value`, the most significant in the lowest byte (store
    /// it `littleEndian`): all eight at once instead of a table lookup per digit.
    @inline(__always)
    static func hexDigits(_ value: UInt32) -> UInt64 {
        // Each nibble into a byte of its own, then the most significant first.
        var x = UInt64(value)
        x = (x | x << 16) & 0x0000_FFFF_0000_FFFF
        x = (x | x << 8) & 0x00FF_00FF_00FF_00FF
        x = (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0F
        x = x.byteSwapped
        // '0' + n, and 'a' − '0' − 10 more where n ≥ 10 (n + 6 carries into the byte's bit 4).
        let letters = ((x &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        return x &+ 0x3030_3030_3030_3030 &+ letters &* 0x27
    }

    /// Appends `"fda50693-a4e2-4fb1-afcf-c6eb07647825"`, quotes included (`BeaconUUID.description`).
    public mutating func appendQuoted(_ uuid: BeaconUUID) {
        appendUUID(uuid, quoted: true)
    }

    /// The UUID's 36 characters, 38 with the quotes.
    mutating func appendUUID(_ uuid: BeaconUUID, quoted: Bool = false) {
        if quoted { append(UInt8(ascii: "\"")) }
        precondition(end + 36 <= capacity, "JSONByteCursor: the entry outgrew the room its writer reserved")
        let text = UnsafeMutableRawPointer(base + end)
        // 8-4-4-4-12: eight digits per store; where a store spans a dash, its last four digits are
        // stored again one place on, then the dash.
        let a = Self.hexDigits(UInt32(truncatingIfNeeded: uuid.high >> 32))
        let b = Self.hexDigits(UInt32(truncatingIfNeeded: uuid.high))
        let c = Self.hexDigits(UInt32(truncatingIfNeeded: uuid.low >> 32))
        let d = Self.hexDigits(UInt32(truncatingIfNeeded: uuid.low))
        text.storeBytes(of: a.littleEndian, as: UInt64.self)
        text.storeBytes(of: b.littleEndian, toByteOffset: 9, as: UInt64.self)
        text.storeBytes(of: UInt32(truncatingIfNeeded: b >> 32).littleEndian, toByteOffset: 14, as: UInt32.self)
        text.storeBytes(of: c.littleEndian, toByteOffset: 19, as: UInt64.self)
        text.storeBytes(of: UInt32(truncatingIfNeeded: c >> 32).littleEndian, toByteOffset: 24, as: UInt32.self)
        text.storeBytes(of: d.littleEndian, toByteOffset: 28, as: UInt64.self)
        text.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 8, as: UInt8.self)
        text.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 13, as: UInt8.self)
        text.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 18, as: UInt8.self)
        text.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 23, as: UInt8.self)
        end += 36
        if quoted { append(UInt8(ascii: "\"")) }
    }

    /// Appends a beacon's canonical id as a JSON string, formatting the common iBeacon form from its
    /// parts (no `String` built); other forms are copied from their text.
    public mutating func appendQuoted(_ components: BeaconID.Components) {
        guard case .iBeacon(let uuid, let major, let minor) = components else {
            return appendQuoted(BeaconID(components).rawValue)
        }
        append("\"ibeacon-")
        appendUUID(uuid)
        append(UInt8(ascii: "-"))
        appendDigits(UInt(major), minimumDigits: 1)
        append(UInt8(ascii: "-"))
        appendDigits(UInt(minor), minimumDigits: 1)
        append(UInt8(ascii: "\""))
    }

    /// Appends `"2026-11-22T08:15:02.123Z"`, quotes included (`ISO8601Timestamp.string(from:)`; 26 bytes).
    public mutating func appendQuotedTimestamp(_ instant: Instant) {
        let milliseconds = ISO8601Timestamp.clampedMilliseconds(instant)
        let (days, millisecondOfDay) = ISO8601Timestamp.floorDivide(milliseconds, 86_400_000)
        // Years are clamped to 0000…9999, so every field has a fixed width.
        precondition(end + 26 <= capacity, "JSONByteCursor: the entry outgrew the room its writer reserved")
        let text = base + end
        // Two digits at a time (every field is non-negative and fits, so no loop: the stride the
        // digits were written with was not specialized, a generic iterator per field).
        func pair(_ value: Int, at position: Int) {
            let tens = value / 10
            text[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: tens)
            text[position + 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value - 10 * tens)
        }
        text[0] = UInt8(ascii: "\"")
        let date = UnsafeMutableRawPointer(text + 1)
        if days == cachedDay {
            date.storeBytes(of: cachedDate.0, as: UInt64.self)
            date.storeBytes(of: cachedDate.1, toByteOffset: 8, as: UInt16.self)
        } else {
            let (year, month, day) = ISO8601Timestamp.civil(fromDays: days)
            pair(Int(year) / 100, at: 1)
            pair(Int(year) % 100, at: 3)
            text[5] = UInt8(ascii: "-")
            pair(Int(month), at: 6)
            text[8] = UInt8(ascii: "-")
            pair(Int(day), at: 9)
            cachedDay = days
            cachedDate = (date.loadUnaligned(as: UInt64.self), date.loadUnaligned(fromByteOffset: 8, as: UInt16.self))
        }
        text[11] = UInt8(ascii: "T")
        pair(Int(millisecondOfDay / 3_600_000), at: 12)
        text[14] = UInt8(ascii: ":")
        pair(Int(millisecondOfDay / 60_000 % 60), at: 15)
        text[17] = UInt8(ascii: ":")
        pair(Int(millisecondOfDay / 1000 % 60), at: 18)
        text[20] = UInt8(ascii: ".")
        let millisecond = Int(millisecondOfDay % 1000)
        text[21] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: millisecond / 100)
        pair(millisecond % 100, at: 22)
        text[24] = UInt8(ascii: "Z")
        text[25] = UInt8(ascii: "\"")
        end += 26
    }
}
