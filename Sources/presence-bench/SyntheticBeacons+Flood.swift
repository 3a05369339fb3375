import BeaconCore
import Evaluation

extension SyntheticBeacons {
    /// A flood (issue 7): `count` advertisements, each from a distinct random address with a
    /// distinct random iBeacon id (random uuid, so none falls in a region), spread evenly over
    /// `seconds`. Seeded: the same bytes every run.
    static func floodCapture(count: Int, seconds: Double, seed: UInt64 = 7, start: Double = 1_800_000_000) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        func next() -> UInt64 { generator.next() }
        let writer = BtsnoopWriter(datalink: .hciUART)
        var out = writer.header
        out.reserveCapacity(16 + count * 70)
        for k in 0..<count {
            let high = next(), low = next(), ids = next()
            var uuid: [UInt8] = []
            for shift in stride(from: 56, through: 0, by: -8) { uuid.append(UInt8(truncatingIfNeeded: high >> UInt64(shift))) }
            for shift in stride(from: 56, through: 0, by: -8) { uuid.append(UInt8(truncatingIfNeeded: low >> UInt64(shift))) }
            let bytes = iBeaconEvent(
                address: 0xC000_0000_0000 | (ids & 0x3FFF_FFFF_FFFF), uuid: uuid, major: UInt16(truncatingIfNeeded: ids >> 46),
                minor: UInt16(truncatingIfNeeded: ids >> 30), rssi: Int8(-60 - Int(ids % 30)))
            let time = Instant(seconds: start + seconds * Double(k) / Double(max(1, count)))
            writer.append(HCIPacket(type: .event, bytes: bytes[...]), direction: .received, timestamp: time, to: &out)
        }
        return out
    }

    /// The HCI event packet of one legacy iBeacon advertisement (measured power −59 dBm).
    static func iBeaconEvent(address: UInt64, uuid: [UInt8], major: UInt16, minor: UInt16, rssi: Int8) -> [UInt8] {
        var data: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15]
        data += uuid
        data += [UInt8(major >> 8), UInt8(major & 0xFF), UInt8(minor >> 8), UInt8(minor & 0xFF), 0xC5]
        var parameters: [UInt8] = [0x02, 0x01, 0x03, 0x01]  // subevent, one report, ADV_NONCONN_IND, random address
        var value = address
        for _ in 0..<6 {
            parameters.append(UInt8(value & 0xFF))
            value >>= 8
        }
        parameters.append(UInt8(data.count))
        parameters += data
        parameters.append(UInt8(bitPattern: rssi))
        return [0x3E, UInt8(parameters.count)] + parameters
    }
}
