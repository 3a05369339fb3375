import BeaconCore
import Testing

/// `AdvertisementDecoder` reads the common event (one legacy report) straight from the packet's
/// bytes; these check that it gives exactly what the general path gives — the event parsed by
/// `HCIEvent.forEachAdvertisingReport`, the beacon found by walking the AD structures with
/// `BeaconDecoder.decodeAll` — on real, synthetic, random and truncated packets, and never traps.
@Suite struct AdvertisementDecoderTests {
    /// Reports and beacons the general path finds, or nil when it rejects the event.
    static func reference(_ packet: ArraySlice<UInt8>) -> [(AdvertisingReport, Beacon?)]? {
        var reports: [AdvertisingReport] = []
        do {
            try HCIEvent.forEachAdvertisingReport(inEvent: packet) { reports.append($0) }
        } catch {
            return nil
        }
        return reports.map { ($0, BeaconDecoder.decodeAll(advertisingData: $0.data).first) }
    }

    /// Decodes `packet` with a fresh decoder and checks it against `reference`.
    static func expectSameAsGeneralPath(_ packet: ArraySlice<UInt8>, _ note: String, sourceLocation: SourceLocation = #_sourceLocation) {
        var decoder = AdvertisementDecoder()
        var out: [DecodedAdvertisement] = []
        decoder.decode(eventPacket: packet, at: Instant(seconds: 5)) { out.append($0) }
        guard let expected = reference(packet) else {
            #expect(out.isEmpty && decoder.malformedEventCount == 1, "\(note)", sourceLocation: sourceLocation)
            return
        }
        #expect(decoder.malformedEventCount == 0, "\(note)", sourceLocation: sourceLocation)
        #expect(out.count == expected.count, "\(note)", sourceLocation: sourceLocation)
        for (decoded, (report, beacon)) in zip(out, expected) {
            #expect(decoded.report == report, "\(note)", sourceLocation: sourceLocation)
            #expect(decoded.beacon == beacon, "\(note)", sourceLocation: sourceLocation)
            #expect(decoded.time == Instant(seconds: 5), sourceLocation: sourceLocation)
        }
    }

    /// A legacy LE Advertising Report event with one report, slid `offset` bytes into a larger
    /// array so slice indices do not start at 0.
    static func legacyEvent(data: [UInt8], rssi: UInt8 = 0xC4, offset: Int = 7) -> ArraySlice<UInt8> {
        let report: [UInt8] = [0x00, 0x01, 0xAB, 0x6F, 0xBF, 0x38, 0xC1, 0xA4, UInt8(data.count)] + data + [rssi]
        let event = HCITestData.leMetaEvent(subevent: 0x02, [0x01] + report)
        let padded = [UInt8](repeating: 0xEE, count: offset) + event + [0xEE, 0xEE]
        return padded[offset..<(offset + event.count)]
    }

    static let iBeaconData = HCITestData.hex(
        "020106 1aff4c000215 e2c56db5dffb48d2b060d0f5a71096e0 0001 0002 c5")
    static let altBeaconData = HCITestData.hex(
        "1bff1801beac 2f234454cf6d4a0fadf2f4911ba9ffa6 00010002 c5 00")
    static let eddystoneUIDData = HCITestData.hex(
        "0303aafe 1716aafe00e8 00010203040506070809 0a0b0c0d0e0f 0000")
    static let eddystoneURLData = HCITestData.hex("0303aafe 1016aafe10eb03 676f6f2e676c2f616263")
    static let samples = [iBeaconData, altBeaconData, eddystoneUIDData, eddystoneURLData]

    @Test func everyEventOfTheHorizonCaptureDecodesAsTheGeneralPathDoes() throws {
        var events = 0
        try BtsnoopFileReader.forEachRecord(inFile: HCITestData.horizonCapturePath) { record in
            guard record.packetType == .event else { return }
            events += 1
            Self.expectSameAsGeneralPath(record.packet, "record at \(record.timestamp)")
        }
        #expect(events > 400)
    }

    @Test func eachBeaconFormatDecodesFromASliceThatDoesNotStartAtZero() {
        let expected: [String] = [
            "ibeacon-e2c56db5-dffb-48d2-b060-d0f5a71096e0-1-2",
            "altbeacon-2f234454cf6d4a0fadf2f4911ba9ffa600010002",
            "eddystone-00010203040506070809-0a0b0c0d0e0f",
            "mac-a4c138bf6fab",
        ]
        for (data, id) in zip(Self.samples, expected) {
            let packet = Self.legacyEvent(data: data)
            var decoder = AdvertisementDecoder()
            var out: [DecodedAdvertisement] = []
            decoder.decode(eventPacket: packet, at: Instant(seconds: 1)) { out.append($0) }
            #expect(out.count == 1)
            #expect(out.first?.beaconID.rawValue == id)
            #expect(out.first.map { Array($0.report.data) } == data)
            #expect(out.first?.report.rssi == -60)
            Self.expectSameAsGeneralPath(packet, id)
        }
        // The URL frame carries its text, cut from the packet at the right place.
        var decoder = AdvertisementDecoder()
        decoder.decode(eventPacket: Self.legacyEvent(data: Self.eddystoneURLData), at: Instant(seconds: 1)) {
            guard case .eddystoneURL(let url) = $0.beacon else {
                Issue.record("not an Eddystone-URL: \(String(describing: $0.beacon))")
                return
            }
            #expect(url.url == "https://goo.gl/abc")
        }
    }

    @Test func randomAndTruncatedPacketsDecodeAsTheGeneralPathDoesWithoutTrapping() {
        var random = HCITestRandom(seed: 0xDEC0DE)
        for round in 0..<20_000 {
            let sample = Self.samples[Int(random.next() % UInt64(Self.samples.count))]
            var data = sample
            switch round % 4 {
            case 0:  // a few bytes of the AD data changed, lengths included
                for _ in 0...(random.next() % 3) where !data.isEmpty {
                    data[Int(random.next() % UInt64(data.count))] = UInt8(truncatingIfNeeded: random.next())
                }
            case 1:  // the AD data cut short, the length byte agreeing
                data = Array(data.prefix(Int(random.next() % UInt64(data.count + 1))))
            case 2:  // random AD data of random length, sometimes over 31 bytes
                data = random.bytes(Int(random.next() % 40))
            default:  // the sample whole; the event's own bytes are damaged below
                break
            }
            var event = Array(Self.legacyEvent(data: data, offset: 0))
            if round % 4 == 3 {
                // Any byte but the subevent (an extended report could be held for reassembly,
                // which the general path alone does not do): the report count, a length, …
                let index = Int(random.next() % UInt64(event.count))
                if index != 2 { event[index] = UInt8(truncatingIfNeeded: random.next()) }
            }
            if round % 8 == 7 {
                event = Array(event.prefix(Int(random.next() % UInt64(event.count + 1))))
            }
            let offset = Int(random.next() % 5)
            let padded = [UInt8](repeating: 0x1A, count: offset) + event + [0xFF, 0x4C]
            Self.expectSameAsGeneralPath(padded[offset..<(offset + event.count)], "round \(round)")
        }
    }
}
