import BeaconCore
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Helpers for the HCI and btsnoop suites. Names carry an `HCITest` prefix so they cannot clash with
// other suites' helpers in this target.

/// SplitMix64: a small seeded generator, so random-input tests are repeatable.
typealias HCITestRandom = SeededRandom

enum HCITestData {
    /// The horizon capture (a missing file makes the reading test fail, not skip).
    static var horizonCapturePath: String { RecordedData.expectedPath(RecordedData.horizonCapture) }

    /// An LE Meta event packet (code, length, subevent, parameters), without the H4 indicator.
    static func leMetaEvent(subevent: UInt8, _ parameters: [UInt8]) -> [UInt8] {
        [0x3E, UInt8(parameters.count + 1), subevent] + parameters
    }

    static func hex(_ text: String) -> [UInt8] {
        HexDigits.bytes(text.filter { !$0.isWhitespace }) ?? []
    }
}

/// One report of an LE Extended Advertising Report, laid out field by field as Core Vol 4 Part E
/// 7.7.65.13 lists them — written independently of the decoder so the tests check it.
struct HCITestExtendedReport {
    var eventType: UInt16
    var addressType: UInt8 = 0x01
    var address: [UInt8]  // most significant first, as people write it
    var primaryPHY: UInt8 = 0x01
    var secondaryPHY: UInt8 = 0x00
    var sid: UInt8 = 0xFF
    var txPower: UInt8 = 127
    var rssi: UInt8
    var periodicInterval: UInt16 = 0
    var directAddressType: UInt8 = 0
    var directAddress: [UInt8] = [0, 0, 0, 0, 0, 0]
    var data: [UInt8]

    var bytes: [UInt8] {
        var out: [UInt8] = [UInt8(eventType & 0xFF), UInt8(eventType >> 8), addressType]
        out += address.reversed()
        out += [primaryPHY, secondaryPHY, sid, txPower, rssi]
        out += [UInt8(periodicInterval & 0xFF), UInt8(periodicInterval >> 8)]
        out.append(directAddressType)
        out += directAddress.reversed()
        out.append(UInt8(data.count))
        out += data
        return out
    }

    /// An extended report event holding `reports`.
    static func event(_ reports: [HCITestExtendedReport]) -> [UInt8] {
        HCITestData.leMetaEvent(subevent: 0x0D, [UInt8(reports.count)] + reports.flatMap(\.bytes))
    }
}

extension HCIPacket {
    /// The packet with its H4 indicator in front, as a UART carries it.
    var h4Bytes: [UInt8] { [type.rawValue] + bytes }
}
