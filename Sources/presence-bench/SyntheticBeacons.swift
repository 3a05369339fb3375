import BeaconCore
import Evaluation

/// Simulated iBeacons as real HCI bytes: LE Advertising Report events (legacy, one report each)
/// carrying iBeacon manufacturer data, a btsnoop capture of them, and the regions config that
/// covers them. Beacon `i` has major `i % regions` and minor `i / regions`, so with one region per
/// major every beacon is in exactly one region.
struct SyntheticBeacons {
    static let uuid: [UInt8] = [0xFD, 0xA5, 0x06, 0x93, 0xA4, 0xE2, 0x4F, 0xB1, 0xAF, 0xCF, 0xC6, 0xEB, 0x07, 0x64, 0x78, 0x25]
    static let uuidText = "fda50693-a4e2-4fb1-afcf-c6eb07647825"

    var beacons: Int
    var regions: Int

    func major(_ beacon: Int) -> UInt16 { UInt16(truncatingIfNeeded: beacon % regions) }
    func minor(_ beacon: Int) -> UInt16 { UInt16(truncatingIfNeeded: beacon / regions) }

    /// The HCI event packet (code, length, parameters) of one advertisement of `beacon`.
    func event(beacon: Int, rssi: Int8) -> [UInt8] {
        var data: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15]
        data += Self.uuid
        let major = major(beacon), minor = minor(beacon)
        data += [UInt8(major >> 8), UInt8(major & 0xFF), UInt8(minor >> 8), UInt8(minor & 0xFF), 0xC5]  // -59 dBm at 1 m
        var address: [UInt8] = []
        var value = UInt64(0xC0_00_00_00_00_00) | UInt64(beacon)
        for _ in 0..<6 {
            address.append(UInt8(value & 0xFF))
            value >>= 8
        }
        var parameters: [UInt8] = [0x02, 0x01, 0x03, 0x01]  // subevent, one report, ADV_NONCONN_IND, random address
        parameters += address
        parameters.append(UInt8(data.count))
        parameters += data
        parameters.append(UInt8(bitPattern: rssi))
        return [0x3E, UInt8(parameters.count)] + parameters
    }

    /// Deterministic noise of ±4 dB, different per beacon and round.
    static func noise(beacon: Int, round: Int) -> Int {
        var x = UInt64(beacon) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(round) &* 0xBF58_476D_1CE4_E5B9
        x ^= x >> 31
        x = x &* 0x94D0_49BB_1331_11EB
        x ^= x >> 29
        return Int(x % 9) - 4
    }

    /// Each beacon at its own distance (mean RSSI −55 … −89 dBm, so a region's beacons are not
    /// all tied) with ±4 dB of noise per advertisement.
    static func rssi(beacon: Int, round: Int) -> Int8 {
        Int8(-55 - (beacon &* 37) % 35 + noise(beacon: beacon, round: round))
    }

    /// A btsnoop capture (datalink H4): `rounds` rounds in which every beacon advertises once, a
    /// round per second, the beacons spread evenly over the second.
    func capture(rounds: Int, start: Double = 1_800_000_000) -> [UInt8] {
        let writer = BtsnoopWriter(datalink: .hciUART)
        var out = writer.header
        out.reserveCapacity(16 + rounds * beacons * 70)
        for round in 0..<rounds {
            for beacon in 0..<beacons {
                let bytes = event(beacon: beacon, rssi: Self.rssi(beacon: beacon, round: round))
                let time = Instant(seconds: start + Double(round) + Double(beacon) / Double(beacons))
                writer.append(HCIPacket(type: .event, bytes: bytes[...]), direction: .received, timestamp: time, to: &out)
            }
        }
        return out
    }

    /// `presence/config/regions`: one region per major.
    var regionsConfig: String {
        let entries = (0..<regions).map { "{\"id\":\"r\($0)\",\"uuid\":\"\(Self.uuidText)\",\"major\":\($0)}" }
        return "{\"revision\":1,\"regions\":[" + entries.joined(separator: ",") + "]}"
    }

    /// `presence/config/beacons` naming every beacon.
    var beaconsConfig: String {
        let entries = (0..<beacons).map { "{\"beacon\":\"ibeacon-\(Self.uuidText)-\(major($0))-\(minor($0))\"}" }
        return "{\"revision\":2,\"beacons\":[" + entries.joined(separator: ",") + "]}"
    }
}
