/// Apple's iBeacon: manufacturer data of company 0x004C whose payload is type 0x02, length 0x15,
/// then proximity UUID, major, minor (all big-endian) and measured power.
///
/// Apple sends many other payloads under 0x004C (0x10 Nearby Info, 0x12 Find My, 0x07, 0x09, …);
/// only type 0x02 with length 0x15 and exactly 21 bytes after it is an iBeacon.
public struct IBeacon: Hashable, Sendable, BitwiseCopyable {
    /// The proximity UUID: a deployment or organisation.
    public var uuid: BeaconUUID
    /// A group of beacons (a store, a floor).
    public var major: UInt16
    /// One beacon within the group.
    public var minor: UInt16
    /// The RSSI (dBm) expected at 1 m, as the beacon advertises it.
    public var measuredPower: Int8

    /// Creates an iBeacon frame from its fields.
    public init(uuid: BeaconUUID, major: UInt16, minor: UInt16, measuredPower: Int8) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.measuredPower = measuredPower
    }

    /// The iBeacon type byte inside Apple's manufacturer data.
    public static let appleType: UInt8 = 0x02
    /// The length byte that follows the type: 21 bytes of UUID, major, minor and power.
    public static let appleLength: UInt8 = 0x15

    /// Decodes the manufacturer data payload (after the company id); nil unless it is an iBeacon.
    public init?(manufacturerData: ManufacturerData) {
        guard manufacturerData.companyID == ManufacturerData.apple else { return nil }
        self.init(applePayload: manufacturerData.payload)
    }

    /// Decodes Apple's payload (after the company id): `02 15`, UUID, major, minor, power.
    /// Nil for any other Apple type or any other length.
    public init?(applePayload payload: ArraySlice<UInt8>) {
        guard payload.count == 23 else { return nil }
        var reader = ByteReader(payload)
        guard reader.readUInt8() == Self.appleType, reader.readUInt8() == Self.appleLength,
            let high = reader.readUInt64BE(), let low = reader.readUInt64BE(),
            let major = reader.readUInt16BE(), let minor = reader.readUInt16BE(),
            let power = reader.readInt8()
        else { return nil }
        self.init(uuid: BeaconUUID(high: high, low: low), major: major, minor: minor, measuredPower: power)
    }

    /// The canonical id `ibeacon-<uuid>-<major>-<minor>` (docs/MQTT.md).
    public var id: BeaconID { BeaconID.iBeacon(uuid: uuid, major: major, minor: minor) }
}
