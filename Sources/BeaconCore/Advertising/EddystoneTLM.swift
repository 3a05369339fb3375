/// Eddystone-TLM (frame 0x20): the beacon's telemetry, plain (version 0x00) or encrypted (0x01).
///
/// TLM carries no identity; it is interleaved with a UID/URL/EID frame from the same beacon, so on
/// its own its canonical id is the address (`mac-…`).
public enum EddystoneTLM: Hashable, Sendable, BitwiseCopyable {
    /// Unencrypted telemetry (version 0x00).
    case plain(Plain)
    /// Encrypted telemetry (version 0x01), sent by EID beacons.
    case encrypted(Encrypted)

    /// The TLM version byte for plain telemetry.
    public static let plainVersion: UInt8 = 0x00
    /// The TLM version byte for encrypted telemetry (used alongside EID).
    public static let encryptedVersion: UInt8 = 0x01

    /// Decodes Eddystone service data (frame-type byte first); nil unless a TLM frame of a known
    /// version and exactly its length (14 bytes plain, 18 encrypted).
    public init?(frame: ArraySlice<UInt8>) {
        var reader = ByteReader(frame)
        guard reader.readUInt8() == Eddystone.tlmFrame, let version = reader.readUInt8() else { return nil }
        switch version {
        case Self.plainVersion:
            guard frame.count == 14, let battery = reader.readUInt16BE(), let temperature = reader.readUInt16BE(),
                let advertisements = reader.readUInt32BE(), let tenths = reader.readUInt32BE()
            else { return nil }
            self = .plain(
                Plain(
                    batteryMillivolts: battery, rawTemperature: Int16(bitPattern: temperature),
                    advertisementCount: advertisements, uptimeTenths: tenths))
        case Self.encryptedVersion:
            guard frame.count == 18, let high = reader.readUInt64BE(), let low = reader.readUInt32BE(),
                let salt = reader.readUInt16BE(), let check = reader.readUInt16BE()
            else { return nil }
            self = .encrypted(Encrypted(encryptedHigh: high, encryptedLow: low, salt: salt, integrityCheck: check))
        default:
            return nil
        }
    }

    /// Unencrypted telemetry. All values big-endian on the air.
    public struct Plain: Hashable, Sendable, BitwiseCopyable {
        /// Battery voltage, 1 mV per bit; 0 when the beacon has no battery to report.
        public var batteryMillivolts: UInt16
        /// Temperature in signed 8.8 fixed point (°C × 256); 0x8000 (−128 °C) means not supported.
        public var rawTemperature: Int16
        /// Advertising PDUs sent since power-on or reboot.
        public var advertisementCount: UInt32
        /// Time since power-on or reboot, in 0.1 s.
        public var uptimeTenths: UInt32

        /// Creates plain telemetry from its raw fields.
        public init(batteryMillivolts: UInt16, rawTemperature: Int16, advertisementCount: UInt32, uptimeTenths: UInt32) {
            self.batteryMillivolts = batteryMillivolts
            self.rawTemperature = rawTemperature
            self.advertisementCount = advertisementCount
            self.uptimeTenths = uptimeTenths
        }

        /// The raw temperature that means "no sensor".
        public static let temperatureNotSupported = Int16(bitPattern: 0x8000)

        /// Battery voltage in mV, nil when zeroed (not supported).
        public var battery: Int? { batteryMillivolts == 0 ? nil : Int(batteryMillivolts) }

        /// Temperature in °C, nil when the beacon says it has no sensor.
        public var temperature: Double? {
            rawTemperature == Self.temperatureNotSupported ? nil : Double(rawTemperature) / 256
        }

        /// Time since power-on or reboot, in seconds.
        public var uptimeSeconds: Double { Double(uptimeTenths) / 10 }
    }

    /// Encrypted telemetry: 12 bytes of ciphertext, a 2-byte salt and a 2-byte message integrity check.
    /// Decrypting needs the beacon's identity key, which only its owner's resolver holds.
    public struct Encrypted: Hashable, Sendable, BitwiseCopyable {
        /// Ciphertext bytes 0–7.
        public var encryptedHigh: UInt64
        /// Ciphertext bytes 8–11.
        public var encryptedLow: UInt32
        /// The salt the beacon encrypted with.
        public var salt: UInt16
        /// The message integrity check (MIC).
        public var integrityCheck: UInt16

        /// Creates encrypted telemetry from its raw fields.
        public init(encryptedHigh: UInt64, encryptedLow: UInt32, salt: UInt16, integrityCheck: UInt16) {
            self.encryptedHigh = encryptedHigh
            self.encryptedLow = encryptedLow
            self.salt = salt
            self.integrityCheck = integrityCheck
        }

        /// The 12 ciphertext bytes as 24 lowercase hex digits.
        public var encryptedHex: String {
            HexDigits.string(encryptedHigh, byteCount: 8) + HexDigits.string(UInt64(encryptedLow), byteCount: 4)
        }
    }
}
