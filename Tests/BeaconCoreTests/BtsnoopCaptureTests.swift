import Testing
@testable import BeaconCore
@testable import Evaluation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct BtsnoopCaptureTests {
    /// The horizon capture's bytes; fails the test (not skips) when the capture is missing.
    static func horizonBytes() throws -> [UInt8] {
        let path = HCITestData.horizonCapturePath
        guard let file = fopen(path, "rb") else {
            Issue.record("missing recorded data: \(path) (the package's data/ folder)")
            throw BtsnoopError(.io("missing \(path)"))
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 8_192)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            bytes += chunk[0..<count]
            if count < chunk.count { break }
        }
        return bytes
    }

    /// Every advertising report in `records`, data copied out so they outlive the parser.
    static func reports(in records: [BtsnoopRecord]) throws -> [AdvertisingReport] {
        var reports: [AdvertisingReport] = []
        for record in records where record.packetType == .event {
            try HCIEvent.forEachAdvertisingReport(inEvent: record.packet) { reports.append($0) }
        }
        return reports
    }

    static func temporaryPath(_ name: String) -> String {
        "/tmp/beaconcore-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).btsnoop"
    }

    static func write(_ bytes: [UInt8], to path: String) {
        guard let file = fopen(path, "wb") else {
            Issue.record("cannot write \(path)")
            return
        }
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
    }

    @Test func horizonCaptureEndToEndFromDisk() throws {
        _ = try Self.horizonBytes()  // fails loudly when missing
        let reader = try BtsnoopFileReader(path: HCITestData.horizonCapturePath, chunkSize: 4_096)
        var records = 0
        var reports = 0
        var addresses = Set<BluetoothAddress>()
        var iBeaconScanResponses = 0
        var record134: BtsnoopRecord? = nil
        var first: Instant? = nil
        var last: Instant? = nil
        var timestampsIncrease = true
        while let record = try reader.next() {
            records += 1
            #expect(record.number == records)
            if let last, record.timestamp < last { timestampsIncrease = false }
            first = first ?? record.timestamp
            last = record.timestamp
            if record.number == 134 { record134 = record }
            guard record.packetType == .event else { continue }
            try HCIEvent.forEachAdvertisingReport(inEvent: record.packet) { report in
                reports += 1
                addresses.insert(report.address)
                if report.eventType.name == "scan_rsp", report.data.starts(with: [0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15]) {
                    iBeaconScanResponses += 1
                }
            }
        }
        #expect(reader.datalink == .hciUART)
        #expect(records == 2_572)
        #expect(reports == 412)
        #expect(addresses.count == 36)
        #expect(iBeaconScanResponses == 11)
        #expect(timestampsIncrease)
        // 2021-02-01 03:27:59.092423 UTC, and the capture lasts about 147 s.
        #expect(first?.seconds == 1_612_150_079.092423)
        #expect(((last?.seconds ?? 0) - (first?.seconds ?? 0)) > 147 && ((last?.seconds ?? 0) - (first?.seconds ?? 0)) < 148)

        let record = try #require(record134)
        #expect(record.byteOffset == 6_848)
        #expect(record.direction == .received)
        #expect(record.packetType == .event)
        #expect(record.timestamp.seconds == 1_612_150_079.789349)
        #expect(HexDigits.string([record.packetType.rawValue] + record.packet)
            == "043e2702010400ab6fbf38c1a41b1aff4c000215494e54454c4c495f524f434b535f48575072f2ffc2cf")
    }

    @Test func theIncrementalParserGivesTheSameRecordsForAnyChunking() throws {
        let bytes = try Self.horizonBytes()
        let whole = try BtsnoopParser.records(in: bytes)
        var random = HCITestRandom(seed: 7)
        var parser = BtsnoopParser()
        var pieces: [BtsnoopRecord] = []
        var position = 0
        var largestBuffer = 0
        while position < bytes.count {
            let end = min(bytes.count, position + Int.random(in: 1...700, using: &random))
            parser.append(contentsOf: bytes[position..<end])
            largestBuffer = max(largestBuffer, parser.bufferedByteCount)
            position = end
            while let record = try parser.nextRecord() { pieces.append(record) }
        }
        try parser.finish()
        #expect(pieces == whole)
        // Constant memory: never more than one record plus one chunk.
        let longestRecord = whole.map { 24 + 1 + $0.packet.count }.max() ?? 0
        #expect(largestBuffer <= 700 + longestRecord)
        // A tiny read chunk through the file reader agrees too.
        let reader = try BtsnoopFileReader(path: HCITestData.horizonCapturePath, chunkSize: 64)
        var fromFile: [BtsnoopRecord] = []
        while let record = try reader.next() { fromFile.append(BtsnoopRecord(
            number: record.number, byteOffset: record.byteOffset, timestamp: record.timestamp,
            direction: record.direction, packetType: record.packetType, packet: Array(record.packet)[...],
            originalLength: record.originalLength)) }
        #expect(fromFile == whole)
    }

    @Test func rewritingAsH4ReproducesTheFileByteForByte() throws {
        let bytes = try Self.horizonBytes()
        let records = try BtsnoopParser.records(in: bytes)
        #expect(BtsnoopWriter(datalink: .hciUART).capture(records) == bytes)
    }

    @Test func rewritingAsDatalinks1001And2001DecodesToTheSameReports() throws {
        let records = try BtsnoopParser.records(in: try Self.horizonBytes())
        let expected = try Self.reports(in: records)
        #expect(expected.count == 412)
        for datalink in [BtsnoopDatalink.hciUnencapsulated, .bluezMonitor] {
            let rewritten = BtsnoopWriter(datalink: datalink).capture(records)
            let path = Self.temporaryPath("rewrite-\(datalink.rawValue)")
            Self.write(rewritten, to: path)
            defer { unlink(path) }
            let reader = try BtsnoopFileReader(path: path, chunkSize: 1_000)
            var again: [BtsnoopRecord] = []
            while let record = try reader.next() {
                var copy = record
                copy.packet = Array(record.packet)[...]
                again.append(copy)
            }
            #expect(reader.datalink == datalink)
            #expect(again.count == records.count, "datalink \(datalink)")
            #expect(again.map(\.packetType) == records.map(\.packetType), "datalink \(datalink)")
            #expect(again.map(\.direction) == records.map(\.direction), "datalink \(datalink)")
            #expect(again.map(\.timestamp) == records.map(\.timestamp), "datalink \(datalink)")
            #expect(again.map { Array($0.packet) } == records.map { Array($0.packet) }, "datalink \(datalink)")
            #expect(try Self.reports(in: again) == expected, "datalink \(datalink)")
        }
    }

    @Test func bluezMonitorRecordsWithoutHCIPacketsAreSkippedButCounted() throws {
        let writer = BtsnoopWriter(datalink: .bluezMonitor)
        var bytes = writer.header
        // A system note (opcode 12) and a new-index record (opcode 0), as btmon writes them first.
        func rawRecord(opcode: UInt32, _ payload: [UInt8]) {
            for word in [UInt32(payload.count), UInt32(payload.count), opcode, 0] {
                BtsnoopWriter.appendUInt32(word, to: &bytes)
            }
            BtsnoopWriter.appendUInt32(0x00E2_97F0, to: &bytes)
            BtsnoopWriter.appendUInt32(0xFFF9_76C7, to: &bytes)
            bytes += payload
        }
        rawRecord(opcode: 12, Array("Bluetooth monitor ver 5.66\0".utf8))
        rawRecord(opcode: 0, [0x01, 0x00] + [UInt8](repeating: 0, count: 6) + Array("hci1\0\0\0\0".utf8))
        writer.append(
            HCIPacket(type: .event, bytes: HCIEventTests.record134[...]), direction: .received,
            timestamp: Instant(seconds: 1_700_000_000.25), controllerIndex: 1, to: &bytes)
        #expect(!writer.append(
            HCIPacket(type: .event, bytes: [0x0E, 0x00][...]), direction: .sent, timestamp: Instant(seconds: 0), to: &bytes))
        let records = try BtsnoopParser.records(in: bytes)
        #expect(records.count == 1)
        #expect(records.first?.number == 3)
        #expect(records.first?.controllerIndex == 1)
        #expect(records.first?.timestamp.seconds == 1_700_000_000.25)
        #expect(records.first.map { Array($0.packet) } == HCIEventTests.record134)
    }

    @Test func anExtendedAdvertisingCaptureReassemblesFromDisk() throws {
        let addressA: [UInt8] = [0xD0, 0x5A, 0x00, 0x00, 0x00, 0x0A]
        let addressB: [UInt8] = [0xD0, 0x5A, 0x00, 0x00, 0x00, 0x0B]
        let long = (0..<420).map { UInt8(truncatingIfNeeded: $0 * 7) }
        func fragment(_ address: [UInt8], status: UInt16, _ data: ArraySlice<UInt8>, sid: UInt8 = 4) -> HCITestExtendedReport {
            HCITestExtendedReport(
                eventType: 0x0000 | status << 5, addressType: 0x01, address: address, primaryPHY: 0x03,
                secondaryPHY: 0x02, sid: sid, txPower: 0xF4, rssi: 0xB0, data: Array(data))
        }
        let events: [[UInt8]] = [
            [0x0E, 0x04, 0x01, 0x42, 0x20, 0x00],  // LE Set Extended Scan Enable complete
            HCITestExtendedReport.event([fragment(addressA, status: 0b01, long[0..<200])]),
            HCITestExtendedReport.event([fragment(addressB, status: 0b01, long[0..<100], sid: 9)]),
            HCITestExtendedReport.event([fragment(addressA, status: 0b01, long[200..<400])]),
            HCITestExtendedReport.event([
                HCITestExtendedReport(
                    eventType: 0x001B, addressType: 0x00, address: [0xA4, 0xC1, 0x38, 0xBF, 0x6F, 0xAB], rssi: 0xCF,
                    data: Array(HCIEventTests.record134[13..<40])),
                fragment(addressA, status: 0b00, long[400..<420]),
            ]),
            HCITestExtendedReport.event([fragment(addressB, status: 0b10, long[100..<150], sid: 9)]),
        ]
        for datalink in [BtsnoopDatalink.hciUART, .bluezMonitor] {
            let writer = BtsnoopWriter(datalink: datalink)
            var bytes = writer.header
            for (index, event) in events.enumerated() {
                writer.append(
                    HCIPacket(type: .event, bytes: event[...]), direction: .received,
                    timestamp: Instant(seconds: 1_700_000_000 + Double(index) * 0.01), to: &bytes)
            }
            let path = Self.temporaryPath("extended-\(datalink.rawValue)")
            Self.write(bytes, to: path)
            defer { unlink(path) }

            var reassembler = ExtendedAdvertisingReassembler()
            var out: [(Instant, AdvertisingReport)] = []
            try BtsnoopFileReader.forEachRecord(inFile: path) { record in
                guard record.packetType == .event else { return }
                try HCIEvent.forEachAdvertisingReport(inEvent: record.packet) { report in
                    if let whole = reassembler.accept(report) { out.append((record.timestamp, whole)) }
                }
            }
            #expect(out.count == 3, "datalink \(datalink)")
            guard out.count == 3 else { continue }
            let (_, scanResponse) = out[0]
            #expect(scanResponse.eventType.name == "scan_rsp")
            #expect(scanResponse.eventType.isLegacy && scanResponse.eventType.isConnectable)
            #expect(scanResponse.rssi == -49)
            #expect(scanResponse.address.description == "a4:c1:38:bf:6f:ab")
            #expect(Array(scanResponse.data) == Array(HCIEventTests.record134[13..<40]))

            let (timeA, a) = out[1]
            #expect(timeA.seconds == 1_700_000_000.04)
            #expect(a.address.description == "d0:5a:00:00:00:0a")
            #expect(Array(a.data) == long)
            #expect(a.dataStatus == .complete)
            #expect(a.eventType.name == "ext_adv")
            #expect(a.txPower == -12)
            #expect(a.primaryPHY == .leCoded)
            #expect(a.secondaryPHY == .le2M)
            #expect(a.advertisingSID == 4)

            let (_, b) = out[2]
            #expect(b.address.description == "d0:5a:00:00:00:0b")
            #expect(b.dataStatus == .truncated)
            #expect(Array(b.data) == Array(long[0..<150]))
            #expect(b.advertisingSID == 9)
        }
    }

    @Test func malformedFilesAreTypedErrorsNamingTheRecordAndOffset() throws {
        func message(_ bytes: [UInt8]) -> String {
            do {
                _ = try BtsnoopParser.records(in: bytes)
                return "parsed"
            } catch {
                return error.description
            }
        }
        let bytes = try Self.horizonBytes()
        // Record 17 starts at byte 592 and holds 6 bytes: cut it after 27 of its 30, then inside
        // its 24-byte header.
        #expect(message(Array(bytes.prefix(592 + 27))) == "record 17 at byte 592: truncated (needs 30 bytes, 27 left)")
        #expect(message(Array(bytes.prefix(592 + 12))) == "record 17 at byte 592: truncated (needs 24 bytes, 12 left)")
        #expect(message(Array(bytes.prefix(5))) == "not a btsnoop file (header truncated: needs 16 bytes, 5 left)")
        #expect(message([]) == "not a btsnoop file (header truncated: needs 16 bytes, 0 left)")
        #expect(message(Array("PK\u{3}\u{4} not a capture at all".utf8)) == "not a btsnoop file (bad magic)")
        var datalink = Array(bytes.prefix(16))
        datalink[15] = 0xEB  // 1003
        #expect(message(datalink) == "unsupported datalink 1003")
        var version = Array(bytes.prefix(16))
        version[11] = 2
        #expect(message(version) == "unsupported btsnoop version 2")
        var huge = bytes
        huge[592 + 4] = 0x7F  // record 17's included length becomes 0x7F000006
        #expect(message(huge) == "record 17 at byte 592: included length 2130706438 exceeds the limit 65552")
        var empty = BtsnoopWriter(datalink: .hciUART).header
        for word: UInt32 in [0, 0, 3, 0, 0, 0] { BtsnoopWriter.appendUInt32(word, to: &empty) }
        #expect(message(empty) == "record 1 at byte 16: empty H4 packet (no indicator)")

        // The same through the file reader, after the records that were whole.
        let path = Self.temporaryPath("truncated")
        Self.write(Array(bytes.prefix(592 + 27)), to: path)
        defer { unlink(path) }
        let reader = try BtsnoopFileReader(path: path, chunkSize: 100)
        var read = 0
        var failure = ""
        do {
            while try reader.next() != nil { read += 1 }
        } catch {
            failure = error.description
        }
        #expect(read == 16)
        #expect(failure == "record 17 at byte 592: truncated (needs 30 bytes, 27 left)")

        #expect(throws: BtsnoopError(.io("cannot open /nonexistent/capture.btsnoop: No such file or directory"))) {
            _ = try BtsnoopFileReader(path: "/nonexistent/capture.btsnoop")
        }
    }
}
