/// The iBeacon a `presence-agent` advertises as its node beacon, so that the nodes of a site hear
/// each other (the aggregator's per-receiver calibration reads what they hear).
///
/// An iBeacon because every receiver already reads it: our agents, ESPresense nodes
/// (`iBeacon:<uuid>-<major>-<minor>`), and phones' beacon apps. Its identity is derived from the
/// node id alone, so it is stable across restarts and machines and needs no setting: the fixed
/// `uuid` says "a BeaconPresence node", and major and minor are the 32-bit FNV-1a hash of the node
/// id's UTF-8 bytes (major the high half). Two node ids share a beacon only by a hash collision;
/// the agent's retained `info` names its beacon, so the aggregator maps beacon to node from there
/// and can tell.
public struct NodeBeacon: Hashable, Sendable {
    /// The proximity UUID of every node beacon (random, fixed for this project).
    public static let uuid = BeaconUUID(high: 0x6DA7_A204_168F_4087, low: 0xA761_2873_8DAE_7C07)

    /// The usual loss from 0 to 1 m at 2.4 GHz, the gap between a transmit power and the RSSI
    /// expected at 1 m (the convention of AltBeacon and Eddystone's "power at 0 m").
    public static let lossAtOneMetre = 41

    public let major: UInt16
    public let minor: UInt16

    public init(node: String) {
        var hash: UInt32 = 0x811C_9DC5
        for byte in node.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        major = UInt16(hash >> 16)
        minor = UInt16(hash & 0xFFFF)
    }

    /// `ibeacon-6da7a204-168f-4087-a761-28738dae7c07-<major>-<minor>`, as every node and the
    /// aggregator name it.
    public var id: BeaconID { BeaconID.iBeacon(uuid: Self.uuid, major: major, minor: minor) }

    /// Whether an iBeacon identity is some node's beacon.
    public static func isNodeBeacon(uuid: BeaconUUID) -> Bool { uuid == Self.uuid }

    /// What every node beacon's canonical id begins with: `ibeacon-<uuid>-`.
    public static let idPrefix = "ibeacon-\(uuid)-"

    /// Whether a canonical beacon id is some node's beacon (this site's or another's): its uuid is
    /// `uuid`.
    public static func isNodeBeacon(_ id: BeaconID) -> Bool { id.rawValue.utf8.starts(with: idPrefix.utf8) }

    /// The iBeacon's measured power (RSSI at 1 m) for a transmit power in dBm: the power less
    /// `lossAtOneMetre`, so a receiver's distance model reads it as any beacon's, and the transmit
    /// power is the field plus 41.
    public static func measuredPower(transmitPower: Int) -> Int8 {
        Int8(clamping: transmitPower - lossAtOneMetre)
    }

    /// The advertising data to send: flags and the iBeacon (30 of the 31 bytes).
    public func advertisingData(measuredPower: Int8) -> [UInt8] {
        IBeacon(uuid: Self.uuid, major: major, minor: minor, measuredPower: measuredPower).advertisingData
    }
}

extension IBeacon {
    /// The legacy advertising data of this iBeacon as Apple specifies it: flags (LE General
    /// Discoverable, BR/EDR not supported), then manufacturer data `4C 00 02 15`, UUID, major,
    /// minor (big-endian) and measured power.
    public var advertisingData: [UInt8] {
        var data: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, Self.appleType, Self.appleLength]
        data += uuid.bytes
        data += [UInt8(major >> 8), UInt8(major & 0xFF), UInt8(minor >> 8), UInt8(minor & 0xFF)]
        data.append(UInt8(bitPattern: measuredPower))
        return data
    }
}
