/// A 128-bit proximity UUID as beacons advertise it (iBeacon, and AltBeacon ids that start with one).
///
/// Our own type rather than Foundation's `UUID`: it is built straight from advertisement bytes on the
/// hot path and formats lowercase, which is what beacon ids and topics use (docs/MQTT.md).
public struct BeaconUUID: Hashable, Sendable, BitwiseCopyable, Comparable, CustomStringConvertible {
    /// The first eight bytes, big-endian.
    public let high: UInt64
    /// The last eight bytes, big-endian.
    public let low: UInt64

    /// Creates a UUID from its first and last eight bytes, big-endian.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Sixteen bytes in network (big-endian) order, as iBeacon carries them. Nil unless exactly 16.
    public init?<C: Collection>(bytes: C) where C.Element == UInt8 {
        guard bytes.count == 16 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (index, byte) in bytes.enumerated() {
            if index < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.init(high: high, low: low)
    }

    /// Parses `fda50693-a4e2-4fb1-afcf-c6eb07647825` (hyphens optional, any case).
    public init?(_ text: String) {
        var digits: [UInt8] = []
        digits.reserveCapacity(32)
        var index = 0
        for scalar in text.unicodeScalars {
            if scalar == "-" {
                // Hyphens only where the canonical form has them, each once, or none at all.
                guard index < 4, digits.count == [8, 12, 16, 20][index] else { return nil }
                index += 1
                continue
            }
            guard let nibble = HexDigits.value(of: scalar) else { return nil }
            digits.append(nibble)
            if digits.count > 32 { return nil }
        }
        guard digits.count == 32, index == 0 || index == 4 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (position, nibble) in digits.enumerated() {
            if position < 16 { high = high << 4 | UInt64(nibble) } else { low = low << 4 | UInt64(nibble) }
        }
        self.init(high: high, low: low)
    }

    /// The sixteen bytes, big-endian.
    public var bytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> UInt64(56 - 8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> UInt64(56 - 8 * $0)) }
    }

    /// Lowercase 8-4-4-4-12 form.
    public var description: String {
        // Written as ASCII bytes into the string's own storage: this runs for every measurement
        // and ranging entry the agent publishes (presence-bench speed).
        String(unsafeUninitializedCapacity: 36) { buffer in
            let digits: StaticString = "0123456789abcdef"
            var position = 0
            for nibble in 0..<32 {
                if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
                    buffer[position] = UInt8(ascii: "-")
                    position += 1
                }
                let word = nibble < 16 ? high : low
                let value = Int((word >> UInt64(60 - 4 * (nibble % 16))) & 0xF)
                buffer[position] = digits.utf8Start[value]
                position += 1
            }
            return position
        }
    }

    /// Orders UUIDs by their bytes, as their text sorts.
    public static func < (lhs: BeaconUUID, rhs: BeaconUUID) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}
