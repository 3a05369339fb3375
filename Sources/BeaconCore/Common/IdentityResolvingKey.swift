/// A device's Identity Resolving Key (IRK, Core Vol 3 Part H §2.4.2.1): 16 bytes, exchanged when a
/// phone or watch pairs, that tell its resolvable private addresses apart from everyone else's.
///
/// Stored in the Core spec's order: most significant byte first, as the spec writes its sample
/// (`ec0234a357c8ad05341010a60a397d9b`) and as `e()` takes its key (Vol 3 Part H §2.2.1). An Apple
/// keychain shows the same 16 bytes base64-encoded in the reverse order (least significant first,
/// as they travel over the air in SMP).
///
/// The key is a secret: whoever holds it can follow the device. Its `description` never shows it,
/// so it cannot leak into a log line or an error message by interpolation; `specOrderHex` is the
/// one deliberate way to write it out (enrolment prints the entry for the operator).
public struct IdentityResolvingKey: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// Bytes 0…7 (most significant first) and 8…15 of the key, in the spec's order.
    private let high: UInt64
    private let low: UInt64

    /// Sixteen bytes in the Core spec's order; nil unless exactly sixteen.
    public init?(specOrder bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        high = bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        low = bytes[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The sixteen bytes in the Core spec's order (the AES key of `ah`, and what the canonical id hashes).
    public var specOrderBytes: [UInt8] {
        (0..<16).map { index in
            let word = index < 8 ? high : low
            return UInt8(truncatingIfNeeded: word >> UInt64(56 - 8 * (index % 8)))
        }
    }

    /// The key as 32 lowercase hex digits in the spec's order: the form `config/beacons` takes.
    /// Only for writing the entry an operator asked for (`presence-agent irk import`).
    public var specOrderHex: String { HexDigits.string(specOrderBytes) }

    /// Never the key: `IdentityResolvingKey(hidden)`, so no log line or interpolation can leak it.
    public var description: String { "IdentityResolvingKey(hidden)" }
    /// Never the key, as `description`.
    public var debugDescription: String { description }
    /// A mirror with no children, so `dump` and the debugger do not show the key either.
    public var customMirror: Mirror { Mirror(self, children: []) }

    /// Why a key was not accepted. The messages describe the text (its length, which characters are
    /// wrong) and never quote it: a mistyped key is still most of a key.
    public enum ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The text is empty.
        case empty
        /// Hex digits, but not 32 of them.
        case wrongHexLength(digits: Int)
        /// 32 characters, but not all hex digits.
        case notHex
        /// Neither hex nor base64.
        case notHexOrBase64(length: Int)
        /// Base64 of a length other than 16 bytes.
        case wrongBase64Length(bytes: Int)

        /// What is wrong with the text, and the forms that are accepted; never the text itself.
        public var description: String {
            let forms = "32 hex digits in the Core spec's order, or the 24-character base64 an Apple keychain shows"
            switch self {
            case .empty:
                return "is empty; expected \(forms)"
            case .wrongHexLength(let digits):
                return "has \(digits) hex digits, not 32 (an IRK is 16 bytes); expected \(forms)"
            case .notHex:
                return "has 32 characters but not all are hex digits (0-9, a-f); expected \(forms)"
            case .notHexOrBase64(let length):
                return "is neither hex nor base64 (\(length) characters); expected \(forms)"
            case .wrongBase64Length(let bytes):
                return "is base64 of \(bytes) bytes, not 16; expected \(forms)"
            }
        }
    }

    /// Parses the key as `config/beacons` takes it: 32 hex digits in the spec's order (either case,
    /// `:`, `-` or spaces between bytes allowed, as tools print them), or base64 of the 16 bytes in
    /// reverse order (Apple's keychain, `Remote IRK`).
    public init(parsing text: String) throws(ParseError) {
        let trimmed = Array(text.unicodeScalars.filter { !$0.properties.isWhitespace })
        guard !trimmed.isEmpty else { throw .empty }
        let separators: Set<Unicode.Scalar> = [":", "-"]
        let hexCandidate = trimmed.filter { !separators.contains($0) }
        if hexCandidate.allSatisfy({ HexDigits.value(of: $0) != nil }) {
            // Base64 of 16 bytes ends in `==`, which is no hex digit: text of hex digits alone is hex.
            guard hexCandidate.count == 32 else { throw .wrongHexLength(digits: hexCandidate.count) }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(16)
            var iterator = hexCandidate.makeIterator()
            while let first = iterator.next(), let second = iterator.next() {
                bytes.append(HexDigits.value(of: first)! << 4 | HexDigits.value(of: second)!)
            }
            self.init(specOrder: bytes)!
            return
        }
        // 32 characters is the hex form with a typo, not base64 (of 24 bytes: no key is that long).
        if hexCandidate.count == 32 { throw .notHex }
        guard let decoded = Self.base64Decode(trimmed) else { throw .notHexOrBase64(length: trimmed.count) }
        guard decoded.count == 16 else { throw .wrongBase64Length(bytes: decoded.count) }
        self.init(specOrder: decoded.reversed())!
    }

    /// Standard base64 (RFC 4648 §4, `=` padding optional); nil on any other character.
    static func base64Decode(_ scalars: [Unicode.Scalar]) -> [UInt8]? {
        var body = scalars[...]
        while body.last == "=" { body.removeLast() }
        guard scalars.count - body.count <= 2, body.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for scalar in body {
            let value: UInt32
            switch scalar {
            case "A"..."Z": value = scalar.value - 65
            case "a"..."z": value = scalar.value - 97 + 26
            case "0"..."9": value = scalar.value - 48 + 52
            case "+": value = 62
            case "/": value = 63
            default: return nil
            }
            buffer = buffer << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return out
    }

    /// The canonical id, `irk-<first 12 hex of SHA-256 of the 16 bytes in the spec's order>`
    /// (docs/MQTT.md): it names the key without revealing it. `sha256` comes from the caller, which
    /// holds the crypto library (BeaconCore has none).
    public func canonicalID(sha256: ([UInt8]) -> [UInt8]) -> BeaconID.Components {
        let digest = sha256(specOrderBytes)
        return .irk(digest.prefix(6).reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }
}

extension IdentityResolvingKey {
    /// Whether an address is a resolvable private address (Core Vol 6 Part B §1.3.2.2): a random
    /// address (the report's address type says which) whose two most significant bits are `01`.
    /// Only these are worth an AES block: public, static random and non-resolvable addresses never
    /// resolve.
    @inline(__always)
    public static func isResolvablePrivateAddress(_ address: BluetoothAddress, type: AdvertisingAddressType) -> Bool {
        type == .random && address.rawValue >> 46 == 0b01
    }
}

extension IdentityResolvingKey {
    /// The resolvable private address a device with hash function `ah` makes from `prand` (its
    /// random part; the two top bits are set to `01` here): `prand` above, `ah(prand)` below. What
    /// the simulator's phones advertise from, and what tests resolve.
    public static func resolvablePrivateAddress(prand: UInt32, ah: AddressHash) -> BluetoothAddress {
        let random = prand & 0x3F_FFFF | 0x40_0000
        return BluetoothAddress(rawValue: UInt64(random) << 24 | UInt64(ah(random) & 0xFF_FFFF))
    }
}
