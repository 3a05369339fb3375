/// Radius Networks' AltBeacon: manufacturer data of any company whose payload is the beacon code
/// 0xBEAC, a 20-byte beacon id, the reference RSSI at 1 m and one manufacturer-reserved byte
/// (AltBeacon Protocol Specification v1.0: AD length 0x1B, so exactly 24 bytes after the company id).
public struct AltBeacon: Hashable, Sendable, BitwiseCopyable {
    /// The advertiser's Bluetooth SIG company identifier.
    public var manufacturer: UInt16
    /// The 20-byte beacon id.
    public var beaconID: Identifier
    /// The average RSSI (dBm) at 1 m.
    public var referenceRSSI: Int8
    /// Reserved for the manufacturer's own use.
    public var manufacturerReserved: UInt8

    /// Creates an AltBeacon frame from its fields.
    public init(manufacturer: UInt16, beaconID: Identifier, referenceRSSI: Int8, manufacturerReserved: UInt8) {
        self.manufacturer = manufacturer
        self.beaconID = beaconID
        self.referenceRSSI = referenceRSSI
        self.manufacturerReserved = manufacturerReserved
    }

    /// The beacon code that marks an AltBeacon, big-endian on the air (`be ac`).
    public static let beaconCode: UInt16 = 0xBEAC

    /// Decodes manufacturer data; nil unless it is an AltBeacon of the specified length.
    public init?(manufacturerData: ManufacturerData) {
        let payload = manufacturerData.payload
        guard payload.count == 24 else { return nil }
        var reader = ByteReader(payload)
        guard reader.readUInt16BE() == Self.beaconCode,
            let high = reader.readUInt64BE(), let middle = reader.readUInt64BE(), let low = reader.readUInt32BE(),
            let reference = reader.readInt8(), let reserved = reader.readUInt8()
        else { return nil }
        self.init(
            manufacturer: manufacturerData.companyID,
            beaconID: Identifier(leading: BeaconUUID(high: high, low: middle), trailing: low),
            referenceRSSI: reference, manufacturerReserved: reserved)
    }

    /// The canonical id `altbeacon-<40 hex>` (docs/MQTT.md).
    public var id: BeaconID { BeaconID.altBeacon(beaconID) }

    /// The 20-byte AltBeacon id, held in integers so that decoding does not allocate.
    ///
    /// The spec asks that the first 16 bytes identify the organisation; most deployments (and the
    /// Android Beacon Library) read them as a UUID followed by two 16-bit values.
    public struct Identifier: Hashable, Sendable, BitwiseCopyable, CustomStringConvertible {
        /// Bytes 0–15.
        public var leading: BeaconUUID
        /// Bytes 16–19, big-endian.
        public var trailing: UInt32

        /// Creates an id from its first 16 bytes and its last 4.
        public init(leading: BeaconUUID, trailing: UInt32) {
            self.leading = leading
            self.trailing = trailing
        }

        /// Exactly 20 bytes, in order; nil for any other count.
        public init?<C: Collection>(bytes: C) where C.Element == UInt8 {
            guard bytes.count == 20, let leading = BeaconUUID(bytes: bytes.prefix(16)) else { return nil }
            var trailing: UInt32 = 0
            for byte in bytes.dropFirst(16) { trailing = trailing << 8 | UInt32(byte) }
            self.init(leading: leading, trailing: trailing)
        }

        /// Bytes 16–17 (the Android Beacon Library's "id2").
        public var id2: UInt16 { UInt16(truncatingIfNeeded: trailing >> 16) }
        /// Bytes 18–19 (the Android Beacon Library's "id3").
        public var id3: UInt16 { UInt16(truncatingIfNeeded: trailing) }

        /// The 20 bytes in order.
        public var bytes: [UInt8] {
            leading.bytes + (0..<4).map { UInt8(truncatingIfNeeded: trailing >> UInt32(24 - 8 * $0)) }
        }

        /// 40 lowercase hex digits, no separators.
        public var description: String { HexDigits.string(bytes) }
    }
}
