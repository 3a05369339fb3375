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
