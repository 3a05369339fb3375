/// Eddystone-EID (frame 0x30): TX power at 0 m and an 8-byte ephemeral id that rotates.
///
/// The ephemeral id is meaningless without the resolver's key, so it is no identity here: an EID
/// beacon's canonical id is its address (`mac-…`).
public struct EddystoneEID: Hashable, Sendable, BitwiseCopyable {
    /// Calibrated TX power at 0 m, dBm.
    public var txPower: Int8
    /// The 8-byte ephemeral identifier, big-endian.
    public var ephemeralID: UInt64

    /// Creates an EID frame from its TX power at 0 m and its 8-byte ephemeral id.
    public init(txPower: Int8, ephemeralID: UInt64) {
        self.txPower = txPower
        self.ephemeralID = ephemeralID
    }

    /// Decodes Eddystone service data (frame-type byte first); nil unless exactly a 10-byte EID frame.
    public init?(frame: ArraySlice<UInt8>) {
        guard frame.count == 10 else { return nil }
        var reader = ByteReader(frame)
        guard reader.readUInt8() == Eddystone.eidFrame, let power = reader.readInt8(),
            let eid = reader.readUInt64BE()
        else { return nil }
        self.init(txPower: power, ephemeralID: eid)
    }

    /// RSSI at 1 m: TX power at 0 m minus 41 dB (see `Eddystone.measuredPower`).
    public var measuredPower: Int { Eddystone.measuredPower(txPowerAt0m: txPower) }

    /// 16 lowercase hex digits.
    public var ephemeralIDHex: String { HexDigits.string(ephemeralID, byteCount: 8) }
}

