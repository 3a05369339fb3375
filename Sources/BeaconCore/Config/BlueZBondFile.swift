/// What `presence-agent irk import` reads from BlueZ's bond store: the `info` file BlueZ writes
/// for a paired device (`/var/lib/bluetooth/<adapter>/<device>/info`, a GLib key file; BlueZ's
/// doc/settings-storage.txt).
///
/// Byte order: BlueZ writes `[IdentityResolvingKey] Key=` as the 16 bytes it got from the kernel,
/// each as `%2.2X` in array order (src/adapter.c, `store_irk`), and the kernel keeps keys as SMP
/// sends them: least significant byte first (net/bluetooth/smp.c, `smp_ah` swaps the key before
/// AES). So the file's hex is the Core spec's order reversed — the order of Apple's keychain.
public struct BlueZBondFile: Sendable {
    /// The device's key, in the spec's order.
    public var key: IdentityResolvingKey
    /// `[General] Name=`, when BlueZ stored one.
    public var name: String?

    /// Why a bond file gave no key; the text of the key is never shown.
    public enum ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The device shared no key when it paired (no `[IdentityResolvingKey]`).
        case noKey
        /// The key's text is not 32 hex digits (never shown).
        case malformedKey(String)

        /// What is wrong, and what to do about a device that shared no key.
        public var description: String {
            switch self {
            case .noKey:
                return "no [IdentityResolvingKey] section: the device shared no key when it paired (pair it over LE with bluetoothctl; see Phones and watches in the agent's documentation)"
            case .malformedKey(let reason):
                return "[IdentityResolvingKey] Key \(reason)"
            }
        }
    }

    /// Reads the key and name from the text of an `info` file; throws when it holds no usable key.
    public init(parsing text: String) throws(ParseError) {
        var section = ""
        var keyText: String?
        var name: String?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = trimmed(rawLine)
            if line.hasPrefix("#") || line.isEmpty { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast())
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = trimmed(line[..<equals])
            let value = trimmed(line[line.index(after: equals)...])
            if section == "IdentityResolvingKey", key == "Key" { keyText = value }
            if section == "General", key == "Name", !value.isEmpty { name = value }
        }
        guard let keyText else { throw .noKey }
        // Only hex is BlueZ's form; base64 here would be a hand-edited file.
        guard keyText.utf8.count == 32, let bytes = HexDigits.bytes(keyText), bytes.count == 16,
            let key = IdentityResolvingKey(specOrder: bytes.reversed())
        else {
            throw .malformedKey("is not 32 hex digits (\(keyText.utf8.count) characters)")
        }
        self.key = key
        self.name = name
    }
}

/// `text` without leading and trailing spaces and tabs (BeaconCore has no Foundation).
private func trimmed(_ text: Substring) -> String {
    var text = text
    while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
    while let last = text.last, last == " " || last == "\t" { text.removeLast() }
    return String(text)
}
