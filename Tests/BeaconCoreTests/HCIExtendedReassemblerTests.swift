import Testing
@testable import BeaconCore

@Suite struct HCIExtendedReassemblerTests {
    static func fragment(
        _ address: [UInt8], sid: UInt8, status: UInt16, data: [UInt8], txPower: UInt8 = 0x7F, rssi: UInt8 = 0xC0
    ) -> HCITestExtendedReport {
        HCITestExtendedReport(
            eventType: 0x0000 | status << 5, addressType: 0x01, address: address, primaryPHY: 0x03,
            secondaryPHY: 0x03, sid: sid, txPower: txPower, rssi: rssi, data: data)
    }

    /// Decodes `events` and runs every report through one reassembler.
    static func run(_ events: [[UInt8]], _ reassembler: inout ExtendedAdvertisingReassembler) throws -> [AdvertisingReport] {
        var out: [AdvertisingReport] = []
        for event in events {
            try HCIEvent.forEachAdvertisingReport(inEvent: event) { report in
                if let whole = reassembler.accept(report) { out.append(whole) }
            }
        }
        return out
    }

    @Test func interleavedFragmentsAreJoinedPerAdvertiser() throws {
        let a: [UInt8] = [0xC0, 0, 0, 0, 0, 0xAA]
        let b: [UInt8] = [0xC0, 0, 0, 0, 0, 0xBB]
        let c: [UInt8] = [0xC0, 0, 0, 0, 0, 0xCC]
        let aData = (0..<200).map { UInt8($0) }
        let events = [
            HCITestExtendedReport.event([
                Self.fragment(a, sid: 1, status: 0b01, data: Array(aData[0..<80]), txPower: 0x02, rssi: 0xB5),
                Self.fragment(b, sid: 2, status: 0b01, data: [1, 2, 3]),
            ]),
            HCITestExtendedReport.event([Self.fragment(c, sid: 0, status: 0b00, data: [9, 9])]),
            HCITestExtendedReport.event([Self.fragment(a, sid: 1, status: 0b01, data: Array(aData[80..<160]))]),
            HCITestExtendedReport.event([Self.fragment(b, sid: 2, status: 0b00, data: [4, 5])]),
            HCITestExtendedReport.event([Self.fragment(a, sid: 1, status: 0b00, data: Array(aData[160..<200]))]),
        ]
        var reassembler = ExtendedAdvertisingReassembler()
        let out = try Self.run(events, &reassembler)
        #expect(out.map { $0.address.description } == ["c0:00:00:00:00:cc", "c0:00:00:00:00:bb", "c0:00:00:00:00:aa"])
        #expect(Array(out[0].data) == [9, 9])
        #expect(Array(out[1].data) == [1, 2, 3, 4, 5])
        #expect(Array(out[2].data) == aData)
        #expect(out.allSatisfy { $0.dataStatus == .complete && $0.eventType.dataStatus == .complete })
        // The joined report keeps the first fragment's fields.
        #expect(out[2].txPower == 2)
        #expect(out[2].rssi == -75)
        #expect(out[2].advertisingSID == 1)
        #expect(out[2].secondaryPHY == .leCoded)
        #expect(reassembler.pendingCount == 0)
    }

    @Test func sameAddressWithAnotherSIDIsAnotherAdvertisement() throws {
        let a: [UInt8] = [0xC0, 0, 0, 0, 0, 0xAA]
        let events = [
            HCITestExtendedReport.event([Self.fragment(a, sid: 1, status: 0b01, data: [1])]),
            HCITestExtendedReport.event([Self.fragment(a, sid: 2, status: 0b01, data: [2])]),
            HCITestExtendedReport.event([Self.fragment(a, sid: 2, status: 0b00, data: [3])]),
            HCITestExtendedReport.event([Self.fragment(a, sid: 1, status: 0b00, data: [4])]),
        ]
        var reassembler = ExtendedAdvertisingReassembler()
        let out = try Self.run(events, &reassembler)
        #expect(out.map { Array($0.data) } == [[2, 3], [1, 4]])
        #expect(out.map(\.advertisingSID) == [2, 1])
    }

    @Test func aTruncatedEndIsFlaggedAndKeepsWhatArrived() throws {
        let a: [UInt8] = [0xC0, 0, 0, 0, 0, 0xAA]
        let events = [
            HCITestExtendedReport.event([Self.fragment(a, sid: 1, status: 0b01, data: [1, 2])]),
            HCITestExtendedReport.event([Self.fragment(a, sid: 1, status: 0b10, data: [3])]),
        ]
        var reassembler = ExtendedAdvertisingReassembler()
        let out = try Self.run(events, &reassembler)
        #expect(out.count == 1)
        #expect(out.first?.dataStatus == .truncated)
        #expect(out.first?.eventType.dataStatus == .truncated)
        #expect(out.first.map { Array($0.data) } == [1, 2, 3])
    }

    @Test func dataBeyond1650BytesIsCutAndFlaggedTruncated() throws {
        let a: [UInt8] = [0xC0, 0, 0, 0, 0, 0xAA]
        var events: [[UInt8]] = []
        for index in 0..<8 {  // 8 × 229 = 1832 bytes
            let status: UInt16 = index == 7 ? 0b00 : 0b01
            events.append(HCITestExtendedReport.event([
                Self.fragment(a, sid: 1, status: status, data: [UInt8](repeating: UInt8(index), count: 229))
            ]))
        }
        var reassembler = ExtendedAdvertisingReassembler()
        let out = try Self.run(events, &reassembler)
        #expect(out.count == 1)
        #expect(out.first?.data.count == 1_650)
        #expect(out.first?.dataStatus == .truncated)
    }

    @Test func theOldestPendingAdvertisementIsEvictedAndItsTailDropped() throws {
        let addresses: [[UInt8]] = (1...3).map { [0xC0, 0, 0, 0, 0, UInt8($0)] }
        var reassembler = ExtendedAdvertisingReassembler(maximumPendingCount: 2)
        var events = addresses.map { HCITestExtendedReport.event([Self.fragment($0, sid: 0, status: 0b01, data: [$0[5]])]) }
        events += addresses.map { HCITestExtendedReport.event([Self.fragment($0, sid: 0, status: 0b00, data: [0xEE])]) }
        let out = try Self.run(events, &reassembler)
        #expect(reassembler.evictedCount == 1)
        #expect(reassembler.droppedFragmentCount == 1)
        #expect(out.map { Array($0.data) } == [[2, 0xEE], [3, 0xEE]])
        #expect(reassembler.pendingCount == 0)
    }

    @Test func completeReportsPassThroughWithoutCopying() throws {
        let packet = HCIEventTests.record134
        var reassembler = ExtendedAdvertisingReassembler()
        var passed: [AdvertisingReport] = []
        try HCIEvent.forEachAdvertisingReport(inEvent: packet) { report in
            if let out = reassembler.accept(report) { passed.append(out) }
        }
        #expect(passed.count == 1)
        #expect(passed.first?.data.startIndex == 13)
    }
}
