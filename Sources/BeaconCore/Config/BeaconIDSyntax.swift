/// The canonical beacon id forms of docs/MQTT.md, checked as text: a known-beacons message must name a
/// beacon exactly as the agent spells it, or the entry would silently never match.
public enum BeaconIDSyntax {
    /// The forms, for error messages.
    public static let rule =
        "ibeacon-<uuid>-<major>-<minor>, altbeacon-<40 hex>, eddystone-<20 hex>-<12 hex>, mac-<12 hex> or irk-<12 hex>"

    /// `text` in canonical form (lowercase, hyphenated uuid, decimal major/minor without leading
    /// zeros), or nil when it is none of the forms. Input in another letter case or without uuid
    /// hyphens still parses, so a caller can say what the canonical spelling would be.
    public static func canonical(_ text: String) -> String? {
        let lowered = text.lowercased()
        let utf8 = Array(lowered.utf8)
        if lowered.hasPrefix("ibeacon-") {
            // ibeacon-<uuid (32 hex, optional hyphens)>-<major>-<minor>
            let body = utf8.dropFirst(8)
            guard let minorDash = body.lastIndex(of: UInt8(ascii: "-")),
                let majorDash = body[..<minorDash].lastIndex(of: UInt8(ascii: "-")),
                let uuid = BeaconUUID(String(decoding: body[..<majorDash], as: UTF8.self)),
                let major = decimal16(body[(majorDash + 1)..<minorDash]),
                let minor = decimal16(body[(minorDash + 1)...])
            else { return nil }
            return "ibeacon-\(uuid)-\(major)-\(minor)"
        }
        if lowered.hasPrefix("altbeacon-") {
            let hex = utf8.dropFirst(10)
            guard hex.count == 40, hex.allSatisfy(isHex) else { return nil }
            return lowered
        }
        if lowered.hasPrefix("eddystone-") {
            let body = utf8.dropFirst(10)
            guard body.count == 33, body[body.startIndex + 20] == UInt8(ascii: "-"),
                body.prefix(20).allSatisfy(isHex), body.suffix(12).allSatisfy(isHex)
            else { return nil }
            return lowered
        }
        // `irk-…` names a key by its digest (a device known by its IRK to an agent): the aggregator
        // is told of such a device this way, without the key.
        if lowered.hasPrefix("mac-") || lowered.hasPrefix("irk-") {
            let hex = utf8.dropFirst(4)
            guard hex.count == 12, hex.allSatisfy(isHex) else { return nil }
            return lowered
        }
        return nil
    }

    /// Whether `text` is a canonical id as it is: `canonical(text) == text`. The iBeacon form is
    /// checked byte by byte without building the canonical text (every measurement the aggregator
    /// receives is checked: issue 38); the other forms go through `canonical`.
    public static func isCanonical(_ text: String) -> Bool {
        let iBeacon: Bool?? = text.utf8.withContiguousStorageIfAvailable { isCanonicalIBeacon($0) }
        if let known = iBeacon ?? nil { return known }
        return canonical(text) == text
    }

    /// For text that starts `ibeacon-`: whether the rest is a lowercase hyphenated uuid and a
    /// major and minor in decimal without leading zeros, as `canonical` writes them; nil for
    /// text that does not start so.
    private static func isCanonicalIBeacon(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        let prefix: StaticString = "ibeacon-"
        guard bytes.count >= 8 else { return nil }
        for index in 0..<8 where bytes[index] != prefix.utf8Start[index] { return nil }
        // "ibeacon-" + 36 (uuid) + "-" + 1…5 digits + "-" + 1…5 digits.
        guard bytes.count >= 8 + 36 + 4, bytes.count <= 8 + 36 + 12, bytes[44] == UInt8(ascii: "-") else { return false }
        for offset in 0..<36 {
            let byte = bytes[8 + offset]
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                else { return false }
            }
        }
        var start = 45
        var parts = 0
        for end in 45...bytes.count where end == bytes.count || bytes[end] == UInt8(ascii: "-") {
            parts += 1
            guard parts <= 2, isCanonicalDecimal16(UnsafeBufferPointer(rebasing: bytes[start..<end])) else { return false }
            start = end + 1
        }
        return parts == 2
    }

    /// 0…65535 in decimal as `String(UInt16)` writes it: 1…5 digits, no leading zero but for 0 itself.
    private static func isCanonicalDecimal16(_ digits: UnsafeBufferPointer<UInt8>) -> Bool {
        guard (1...5).contains(digits.count), digits[0] != UInt8(ascii: "0") || digits.count == 1 else { return false }
        var value: UInt32 = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return false }
            value = value * 10 + UInt32(byte - UInt8(ascii: "0"))
        }
        return value <= 65535
    }

    private static func isHex(_ byte: UInt8) -> Bool { HexDigits.value(of: Unicode.Scalar(byte)) != nil }

    private static func decimal16(_ digits: ArraySlice<UInt8>) -> UInt16? {
        guard (1...5).contains(digits.count) else { return nil }
        var value: UInt32 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + UInt32(byte - UInt8(ascii: "0"))
        }
        return value <= 65535 ? UInt16(value) : nil
    }
}
