/// Eddystone-URL (frame 0x10): TX power at 0 m and a compressed URL.
///
/// The URL is a scheme-prefix byte (0x00 `http://www.` … 0x03 `https://`) then 0–17 bytes of
/// printable ASCII in which 0x00–0x0d expand to `.com/`, `.org/`, … `.gov`. Any other scheme byte,
/// or a byte in the reserved ranges 0x0e–0x20 and 0x7f–0xff, makes the frame invalid (nil).
public struct EddystoneURL: Hashable, Sendable {
    /// Calibrated TX power at 0 m, dBm.
    public var txPower: Int8
    /// The expanded URL, e.g. `https://goo.gl/S6zT6P`.
    public var url: String

    public init(txPower: Int8, url: String) {
        self.txPower = txPower
        self.url = url
    }

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
        guard let url = Self.expand(scheme: Self.schemes[Int(schemeCode)], encoded: encoded) else { return nil }
        self.init(txPower: power, url: url)
    }

    /// RSSI at 1 m: TX power at 0 m minus 41 dB (see `Eddystone.measuredPower`).
    public var measuredPower: Int { Eddystone.measuredPower(txPowerAt0m: txPower) }

    private static func expand(scheme: String, encoded: ArraySlice<UInt8>) -> String? {
        var url = scheme
        for byte in encoded {
            switch byte {
            case 0x00...0x0D: url += expansions[Int(byte)]
            case 0x21...0x7E: url.unicodeScalars.append(Unicode.Scalar(byte))
            default: return nil  // reserved for future use: not a URL we can show
            }
        }
        return url
    }
}
