/// Eddystone-URL (frame 0x10): TX power at 0 m and a compressed URL.
///
/// The URL is a scheme-prefix byte (0x00 `http://www.` … 0x03 `https://`) then 0–17 bytes of
/// printable ASCII in which 0x00–0x0d expand to `.com/`, `.org/`, … `.gov`. Any other scheme byte,
/// or a byte in the reserved ranges 0x0e–0x20 and 0x7f–0xff, makes the frame invalid (nil).
///
/// The frame's bytes are kept as they came (validated) and `url` is expanded when asked: a stored
/// `String` would make every `Beacon` a reference-counted value, so each copy of a decoded
/// advertisement would switch on the beacon's case to retain or release it (presence-bench speed).
public struct EddystoneURL: Hashable, Sendable, BitwiseCopyable {
    /// Calibrated TX power at 0 m, dBm.
    public var txPower: Int8
    /// The scheme code, 0…3 (an index into `schemes`).
    public let schemeCode: UInt8
    /// The encoded bytes after the scheme, `encodedCount` of them, zero beyond.
    private let encodedHigh: UInt64, encodedLow: UInt64, encodedLast: UInt8
    private let encodedCount: UInt8

    /// Scheme prefixes by code.
    public static let schemes: [String] = ["http://www.", "https://www.", "http://", "https://"]
    /// Text expansions by code 0x00…0x0d.
    public static let expansions: [String] = [
        ".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
        ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov",
    ]
    /// The most encoded URL bytes after the scheme the spec allows.
    public static let maximumEncodedLength = 17

    /// Decodes Eddystone service data (frame-type byte first); nil unless a valid URL frame.
    public init?(frame: ArraySlice<UInt8>) {
        var reader = ByteReader(frame)
        guard reader.readUInt8() == Eddystone.urlFrame, let power = reader.readInt8(),
            let schemeCode = reader.readUInt8(), Int(schemeCode) < Self.schemes.count
        else { return nil }
        let encoded = reader.readRest()
        guard encoded.count <= Self.maximumEncodedLength else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0, last: UInt8 = 0
        for (k, byte) in encoded.enumerated() {
            // Reserved for future use: not a URL we can show.
            guard byte <= 0x0D || (0x21...0x7E).contains(byte) else { return nil }
            switch k {
            case 0..<8: high |= UInt64(byte) << UInt64(8 * k)
            case 8..<16: low |= UInt64(byte) << UInt64(8 * (k - 8))
            default: last = byte
            }
        }
        txPower = power
        self.schemeCode = schemeCode
        encodedHigh = high
        encodedLow = low
        encodedLast = last
        encodedCount = UInt8(encoded.count)
    }

    /// The encoded bytes after the scheme, as the frame carried them.
    public var encoded: [UInt8] {
        (0..<Int(encodedCount)).map { k in
            switch k {
            case 0..<8: UInt8(truncatingIfNeeded: encodedHigh >> UInt64(8 * k))
            case 8..<16: UInt8(truncatingIfNeeded: encodedLow >> UInt64(8 * (k - 8)))
            default: encodedLast
            }
        }
    }

    /// The expanded URL, e.g. `https://goo.gl/S6zT6P`.
    public var url: String {
        var url = Self.schemes[Int(schemeCode)]
        for byte in encoded {
            if byte <= 0x0D {
                url += Self.expansions[Int(byte)]
            } else {
                url.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return url
    }

    /// RSSI at 1 m: TX power at 0 m minus 41 dB (see `Eddystone.measuredPower`).
    public var measuredPower: Int { Eddystone.measuredPower(txPowerAt0m: txPower) }

    /// Equal when they say the same thing: the same power and the same expanded URL, however
    /// it was compressed (`.com/` as one code or as five letters).
    public static func == (a: EddystoneURL, b: EddystoneURL) -> Bool {
        a.txPower == b.txPower && a.url == b.url
    }

    /// Hashes the power and the expanded URL, as `==` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(txPower)
        hasher.combine(url)
    }
}
