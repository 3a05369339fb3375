/// What Google's Eddystone frames share: the service UUID 0xFEAA, a frame-type byte first in the
/// service data, and "ranging data" given as the TX power at 0 m.
public enum Eddystone {
    /// The Eddystone 16-bit service UUID (service data and the 16-bit UUID list).
    public static let serviceUUID: UInt16 = 0xFEAA

    /// Frame-type bytes (the low four bits are reserved and must be 0).
    public static let uidFrame: UInt8 = 0x00
    /// The frame type byte of Eddystone-URL.
    public static let urlFrame: UInt8 = 0x10
    /// The frame type byte of Eddystone-TLM.
    public static let tlmFrame: UInt8 = 0x20
    /// The frame type byte of Eddystone-EID.
    public static let eidFrame: UInt8 = 0x30

    /// Eddystone advertises the RSSI at 0 m; the rest of the system speaks iBeacon's RSSI at 1 m.
    /// The Eddystone spec calibrates the 0 m value as "measured at 1 m plus 41 dB" (41 dB being the
    /// free-space loss over the first metre at 2.4 GHz), so the 1 m value is the 0 m value minus 41.
    public static let lossOverFirstMetre = 41

    /// The RSSI at 1 m (dBm) for a TX power at 0 m (dBm).
    public static func measuredPower(txPowerAt0m: Int8) -> Int {
        Int(txPowerAt0m) - lossOverFirstMetre
    }
}
