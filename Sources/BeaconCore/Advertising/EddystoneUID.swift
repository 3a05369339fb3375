/// Eddystone-UID (frame 0x00): TX power at 0 m, a 10-byte namespace and a 6-byte instance.
///
/// The spec lays out 20 bytes ending in two reserved bytes; many beacons omit those, so 18 bytes
/// (no RFU) are accepted too. Any other length is not a UID frame.
public struct EddystoneUID: Hashable, Sendable, BitwiseCopyable {
    /// Calibrated TX power at 0 m, dBm.
    public var txPower: Int8
    /// The 10-byte namespace, held as bytes 0–7 and 8–9 so decoding does not allocate.
    public var namespace: Namespace
    /// The 6-byte instance, in the low 48 bits.
    public var instance: UInt64

    /// Creates a UID frame from its TX power at 0 m, its namespace and its 6-byte instance.
    public init(txPower: Int8, namespace: Namespace, instance: UInt64) {
        self.txPower = txPower
        self.namespace = namespace
        self.instance = instance & 0xFFFF_FFFF_FFFF
    }

    /// Decodes Eddystone service data (frame-type byte first); nil unless a UID frame.
    public init?(frame: ArraySlice<UInt8>) {
        guard frame.count == 18 || frame.count == 20 else { return nil }
        var reader = ByteReader(frame)
        guard reader.readUInt8() == Eddystone.uidFrame, let power = reader.readInt8(),
            let high = reader.readUInt64BE(), let low = reader.readUInt16BE(),
            let instanceHigh = reader.readUInt16BE(), let instanceLow = reader.readUInt32BE()
        else { return nil }
        self.init(
            txPower: power, namespace: Namespace(high: high, low: low),
            instance: UInt64(instanceHigh) << 32 | UInt64(instanceLow))
    }

    /// RSSI at 1 m: TX power at 0 m minus 41 dB (see `Eddystone.measuredPower`).
    public var measuredPower: Int { Eddystone.measuredPower(txPowerAt0m: txPower) }

    /// 12 lowercase hex digits.
    public var instanceHex: String { HexDigits.string(instance, byteCount: 6) }

    /// The canonical id `eddystone-<20 hex namespace>-<12 hex instance>` (docs/MQTT.md).
    public var id: BeaconID { BeaconID.eddystone(namespace: namespace, instance: instance) }

    /// A 10-byte Eddystone namespace.
    public struct Namespace: Hashable, Sendable, BitwiseCopyable, CustomStringConvertible {
        /// Bytes 0–7, big-endian.
        public var high: UInt64
        /// Bytes 8–9, big-endian.
        public var low: UInt16

        /// Creates a namespace from its first 8 bytes and its last 2.
        public init(high: UInt64, low: UInt16) {
            self.high = high
            self.low = low
        }

        /// Exactly 10 bytes; nil for any other count.
        public init?<C: Collection>(bytes: C) where C.Element == UInt8 {
            guard bytes.count == 10 else { return nil }
            var high: UInt64 = 0
            var low: UInt16 = 0
            for (index, byte) in bytes.enumerated() {
                if index < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt16(byte) }
            }
            self.init(high: high, low: low)
        }

        /// The 10 bytes in order.
        public var bytes: [UInt8] {
            (0..<8).map { UInt8(truncatingIfNeeded: high >> UInt64(56 - 8 * $0)) }
                + [UInt8(truncatingIfNeeded: low >> 8), UInt8(truncatingIfNeeded: low)]
        }

        /// 20 lowercase hex digits.
        public var description: String { HexDigits.string(bytes) }
    }
}
