import BeaconCore
import Testing
@testable import PresenceAgent

@Suite struct ScanLineFormatterTests {
    /// Record 134 of the horizon capture (data/README.md): a Govee sensor's iBeacon scan response.
    static let record134 = HexDigits.bytes(
        "043e2702010400ab6fbf38c1a41b1aff4c000215494e54454c4c495f524f434b535f48575072f2ffc2cf")!

    func decode(_ h4: [UInt8], at seconds: Double) -> [DecodedAdvertisement] {
        var decoder = AdvertisementDecoder()
        var out: [DecodedAdvertisement] = []
        decoder.decode(eventPacket: h4.dropFirst(), at: Instant(seconds: seconds)) { out.append($0) }
        return out
    }

    @Test func iBeaconLineUsesMeasurementFieldNames() throws {
        let advert = try #require(decode(Self.record134, at: 1_612_150_080.181).first)
        #expect(ScanLineFormatter.json(advert) == """
            {"timestamp":"2021-02-01T03:28:00.181Z","address":"a4:c1:38:bf:6f:ab","addressType":"public",\
            "eventType":"scan_rsp","rssi":-49,"format":"ibeacon",\
            "beacon":"ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20594-62207",\
            "uuid":"494e5445-4c4c-495f-524f-434b535f4857","major":20594,"minor":62207,"measuredPower":-62}
            """)
        #expect(ScanLineFormatter.text(advert) == "2021-02-01T03:28:00.181Z a4:c1:38:bf:6f:ab public scan_rsp -49 "
            + "ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20594-62207 measuredPower=-62")
    }

    @Test func unavailableRSSIIsNullAndNonBeaconsAreNamedByAddress() throws {
        var bytes = Self.record134
        bytes[bytes.count - 1] = 0x7F  // RSSI 127: not available
        bytes[16] = 0x4D  // company 0x004D: not Apple, so not an iBeacon
        let advert = try #require(decode(bytes, at: 0).first)
        let line = ScanLineFormatter.json(advert)
        #expect(line.contains(#""rssi":null,"beacon":"mac-a4c138bf6fab"}"#))
        #expect(!line.contains("format"))
    }

    @Test func malformedEventsAreCountedNotFatal() {
        var decoder = AdvertisementDecoder()
        var count = 0
        decoder.decode(eventPacket: Self.record134.dropFirst().dropLast(5), at: Instant(seconds: 0)) { _ in count += 1 }
        decoder.decode(eventPacket: Self.record134.dropFirst(), at: Instant(seconds: 1)) { _ in count += 1 }
        #expect(count == 1)
        #expect(decoder.malformedEventCount == 1)
        #expect(decoder.lastError != nil)
    }
}
