import Testing
@testable import BeaconCore
import Evaluation

/// Random and truncated bytes must never crash a decoder: they give a value or a typed error.
@Suite struct HCIFuzzTests {
    /// Decodes `bytes` every way the HCI layer can; returns how many reports came out.
    @discardableResult
    static func decodeEverything(_ bytes: ArraySlice<UInt8>, _ reassembler: inout ExtendedAdvertisingReassembler) -> Int {
        _ = try? HCIEvent(decoding: bytes)
        var reports = 0
        _ = try? HCIEvent.forEachAdvertisingReport(inEvent: bytes) { report in
            reports += 1
            _ = report.eventType.name
            _ = reassembler.accept(report)
        }
        return reports
    }

    @Test func randomEventsNeverCrash() {
        var random = HCITestRandom(seed: 0xBEAC0)
        var reassembler = ExtendedAdvertisingReassembler(maximumPendingCount: 4)
        var decodedReports = 0
        for round in 0..<10_000 {
            var bytes: [UInt8]
            switch round % 4 {
            case 0:  // anything at all
                bytes = random.bytes(Int.random(in: 0...300, using: &random))
            default:  // an LE Meta advertising event with a consistent length, so the inner decoders run
                let subevent: UInt8 = round % 4 == 1 ? 0x02 : 0x0D
                let count = UInt8.random(in: 0...4, using: &random)
                let body = random.bytes(Int.random(in: 0...250, using: &random))
                bytes = HCITestData.leMetaEvent(subevent: subevent, [count] + body)
                if bytes.count > 257 { bytes = Array(bytes.prefix(257)); bytes[1] = 255 }
                if round % 4 == 3, !body.isEmpty {
                    // Make the declared data length fit sometimes, to get past the first report.
                    let fit = HCITestExtendedReport(
                        eventType: UInt16.random(in: 0...0x7F, using: &random), address: random.bytes(6),
                        rssi: UInt8.random(in: 0...255, using: &random),
                        data: random.bytes(Int.random(in: 0...40, using: &random)))
                    bytes = HCITestExtendedReport.event([fit, fit])
                    bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &random)))
                }
            }
            decodedReports += Self.decodeEverything(bytes[...], &reassembler)
        }
        #expect(decodedReports > 0)
        #expect(reassembler.pendingCount <= 4)
    }

    @Test func everyTruncationOfRealEventsIsAnErrorNotACrash() {
        var reassembler = ExtendedAdvertisingReassembler()
        let report = HCITestExtendedReport(
            eventType: 0x21, address: [1, 2, 3, 4, 5, 6], sid: 1, rssi: 0xC0, data: Array(repeating: 0x55, count: 31))
        for packet in [HCIEventTests.record134, HCITestExtendedReport.event([report, report])] {
            for length in 0..<packet.count {
                let cut = packet.prefix(length)
                #expect(throws: HCIEventError.self) { try HCIEvent(decoding: cut) }
                Self.decodeEverything(cut, &reassembler)
                // With the length byte adjusted to match, the reports themselves are cut short.
                if length >= 2 {
                    var consistent = Array(cut)
                    consistent[1] = UInt8(length - 2)
                    Self.decodeEverything(consistent[...], &reassembler)
                }
            }
        }
    }

    @Test func randomStreamsThroughTheH4DeframerStayBounded() {
        var random = HCITestRandom(seed: 99)
        var deframer = H4Deframer(maximumPayloadLength: 512)
        var reassembler = ExtendedAdvertisingReassembler()
        var packets = 0
        for _ in 0..<3_000 {
            let chunk = random.bytes(Int.random(in: 0...200, using: &random))
            deframer.feed(chunk) { packet in
                packets += 1
                if packet.type == .event { Self.decodeEverything(packet.bytes, &reassembler) }
            }
            #expect(deframer.bufferedByteCount <= deframer.capacity)
        }
        #expect(packets > 0)
        #expect(deframer.skippedByteCount > 0)
    }

    @Test func randomAndDamagedBtsnoopFilesNeverCrash() throws {
        let original = try BtsnoopCaptureTests.horizonBytes()
        var random = HCITestRandom(seed: 2001)
        var reassembler = ExtendedAdvertisingReassembler()
        var errors = 0
        for round in 0..<1_200 {
            var bytes: [UInt8]
            switch round % 4 {
            case 0:  // a valid header for some datalink, then noise
                let datalink = BtsnoopDatalink.allCases.randomElement(using: &random)!
                bytes = BtsnoopWriter(datalink: datalink).header + random.bytes(Int.random(in: 0...400, using: &random))
            case 1:  // the real file cut anywhere
                bytes = Array(original.prefix(Int.random(in: 0...original.count, using: &random)))
            case 2:  // the first records of the real file with bytes flipped
                bytes = Array(original.prefix(3_000))
                for _ in 0..<Int.random(in: 1...8, using: &random) {
                    let index = Int.random(in: 0..<bytes.count, using: &random)
                    bytes[index] = UInt8.random(in: 0...255, using: &random)
                }
            default:  // pure noise
                bytes = random.bytes(Int.random(in: 0...100, using: &random))
            }
            var parser = BtsnoopParser()
            var position = 0
            do {
                while position < bytes.count {
                    let end = min(bytes.count, position + Int.random(in: 1...512, using: &random))
                    parser.append(contentsOf: bytes[position..<end])
                    position = end
                    while let record = try parser.nextRecord() {
                        if record.packetType == .event { Self.decodeEverything(record.packet, &reassembler) }
                    }
                }
                try parser.finish()
            } catch {
                errors += 1
                #expect(!error.description.isEmpty)
            }
        }
        #expect(errors > 0)
    }
}
