import Testing
@testable import BeaconCore

@Suite struct HCIEventTests {
    /// Record 134 of the horizon capture (data/README.md), without its H4 indicator.
    static let record134 = HCITestData.hex(
        "3e2702010400ab6fbf38c1a41b1aff4c000215494e54454c4c495f524f434b535f48575072f2ffc2cf")

    @Test func commandCompleteCarriesOpcodeStatusAndReturnParameters() throws {
        // HCI_Reset complete, from the horizon capture's second record.
        let event = try HCIEvent(decoding: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
        guard case .commandComplete(let complete) = event else {
            Issue.record("expected Command Complete, got \(event)")
            return
        }
        #expect(complete.numHCICommandPackets == 1)
        #expect(complete.opcode == 0x0C03)
        #expect(complete.status == 0)
        #expect(Array(complete.returnParameters) == [0x00])

        // LE Read Buffer Size: status and return values.
        let buffer = try HCIEvent(decoding: [0x0E, 0x07, 0x01, 0x02, 0x20, 0x00, 0xFB, 0x00, 0x0F])
        guard case .commandComplete(let sized) = buffer else {
            Issue.record("expected Command Complete")
            return
        }
        #expect(sized.opcode == 0x2002)
        #expect(Array(sized.returnParameters) == [0x00, 0xFB, 0x00, 0x0F])

        // A bare credit update (opcode 0) has no return parameters, so no status.
        let credit = try HCIEvent(decoding: [0x0E, 0x03, 0x05, 0x00, 0x00])
        guard case .commandComplete(let bare) = credit else {
            Issue.record("expected Command Complete")
            return
        }
        #expect(bare.status == nil)
        #expect(bare.numHCICommandPackets == 5)
    }

    @Test func commandStatusCarriesStatusAndOpcode() throws {
        let event = try HCIEvent(decoding: [0x0F, 0x04, 0x0C, 0x01, 0x0D, 0x20])
        #expect(event == .commandStatus(HCICommandStatus(status: 0x0C, numHCICommandPackets: 1, opcode: 0x200D)))
    }

    @Test func record134IsAnIBeaconScanResponseFromAGoveeSensor() throws {
        let packet = Self.record134[...]
        let event = try HCIEvent(decoding: packet)
        guard case .advertisingReports(let reports) = event, let report = reports.first else {
            Issue.record("expected one advertising report, got \(event)")
            return
        }
        #expect(reports.count == 1)
        #expect(report.address.description == "a4:c1:38:bf:6f:ab")
        #expect(report.addressType == .public)
        #expect(report.eventType.rawValue == 4)
        #expect(report.eventType.name == "scan_rsp")
        #expect(report.eventType.isScanResponse)
        #expect(report.eventType.isLegacy)
        #expect(!report.eventType.isExtendedEncoding)
        #expect(report.rssi == -49)
        #expect(report.txPower == nil)
        #expect(report.primaryPHY == .le1M)
        #expect(report.secondaryPHY == nil)
        #expect(report.advertisingSID == nil)
        #expect(report.dataStatus == .complete)
        #expect(
            HexDigits.string(report.data)
                == "1aff4c000215494e54454c4c495f524f434b535f48575072f2ffc2")
        // The data is a view into the event bytes, not a copy: indices 13..<40 of the packet.
        #expect(report.data.startIndex == 13)
        #expect(report.data.endIndex == 40)
    }

    @Test func legacyReportsWithSeveralEntriesUseTheInterleavedLayoutOfCoreSection5_2() throws {
        // Three reports, each: event type, address type, address (LE), length, data, RSSI.
        let one: [UInt8] = [0x00, 0x01, 0x06, 0x05, 0x04, 0x03, 0x02, 0xC1, 0x03, 0x02, 0x01, 0x06, 0xC4]
        let two: [UInt8] = [0x03, 0x00, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11, 0x00, 0x7F]
        let three: [UInt8] = [0x04, 0x00, 0x26, 0x25, 0x24, 0x23, 0x22, 0x21, 0x02, 0x01, 0x1A, 0xB0]
        let packet = HCITestData.leMetaEvent(subevent: 0x02, [3] + one + two + three)
        let reports = try HCIEvent.advertisingReports(inEvent: packet[...])
        #expect(reports.map(\.address.description) == ["c1:02:03:04:05:06", "11:12:13:14:15:16", "21:22:23:24:25:26"])
        #expect(reports.map(\.addressType) == [.random, .public, .public])
        #expect(reports.map(\.eventType.name) == ["adv_ind", "adv_nonconn_ind", "scan_rsp"])
        #expect(reports.map(\.rssi) == [-60, nil, -80])
        #expect(reports.map { Array($0.data) } == [[0x02, 0x01, 0x06], [], [0x01, 0x1A]])
    }

    @Test func legacyReportsInTheColumnLayoutAreReadWhenOnlyThatFits() throws {
        // The same three reports as arrays one after another, as some embedded stacks send them.
        var parameters: [UInt8] = [3]
        parameters += [0x00, 0x03, 0x04]  // event types
        parameters += [0x01, 0x00, 0x00]  // address types
        parameters += [0x06, 0x05, 0x04, 0x03, 0x02, 0xC1, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11]
        parameters += [0x26, 0x25, 0x24, 0x23, 0x22, 0x21]
        parameters += [0x03, 0x00, 0x02]  // lengths
        parameters += [0x02, 0x01, 0x06, 0x01, 0x1A]  // data
        parameters += [0xC4, 0x7F, 0xB0]  // RSSIs
        let reports = try HCIEvent.advertisingReports(inEvent: HCITestData.leMetaEvent(subevent: 0x02, parameters)[...])
        #expect(reports.map(\.address.description) == ["c1:02:03:04:05:06", "11:12:13:14:15:16", "21:22:23:24:25:26"])
        #expect(reports.map(\.eventType.name) == ["adv_ind", "adv_nonconn_ind", "scan_rsp"])
        #expect(reports.map(\.rssi) == [-60, nil, -80])
        #expect(reports.map { Array($0.data) } == [[0x02, 0x01, 0x06], [], [0x01, 0x1A]])
    }

    @Test func extendedReportsCarryPHYsSIDTxPowerAndLegacyPDUs() throws {
        let extended = HCITestExtendedReport(
            eventType: 0x0001, addressType: 0x01, address: [0xD0, 0x11, 0x22, 0x33, 0x44, 0x55],
            primaryPHY: 0x03, secondaryPHY: 0x02, sid: 0x03, txPower: 0xF8, rssi: 0xBA,
            periodicInterval: 0x0050, data: [0x02, 0x01, 0x06, 0x03, 0xFF, 0x59, 0x00])
        let legacyPDU = HCITestExtendedReport(
            eventType: 0x0013, addressType: 0x00, address: [0xA4, 0xC1, 0x38, 0x00, 0x00, 0x01],
            rssi: 0x7F, data: [0x02, 0x01, 0x06])
        let directed = HCITestExtendedReport(
            eventType: 0x0005, addressType: 0xFF, address: [0, 0, 0, 0, 0, 0], secondaryPHY: 0x01, sid: 0x0F,
            txPower: 0x04, rssi: 0xA0, directAddressType: 0x01,
            directAddress: [0xC0, 0x01, 0x02, 0x03, 0x04, 0x05], data: [])
        let packet = HCITestExtendedReport.event([extended, legacyPDU, directed])
        var reports: [AdvertisingReport] = []
        let count = try HCIEvent.forEachAdvertisingReport(inEvent: packet) { reports.append($0) }
        #expect(count == 3)
        #expect(reports.count == 3)

        let first = reports[0]
        #expect(first.address.description == "d0:11:22:33:44:55")
        #expect(first.addressType == .random)
        #expect(first.eventType.isExtendedEncoding)
        #expect(first.eventType.isConnectable)
        #expect(!first.eventType.isLegacy)
        #expect(first.eventType.name == "ext_adv_connectable")
        #expect(first.primaryPHY == .leCoded)
        #expect(first.secondaryPHY == .le2M)
        #expect(first.advertisingSID == 3)
        #expect(first.txPower == -8)
        #expect(first.rssi == -70)
        #expect(first.periodicAdvertisingInterval == 0x50)
        #expect(first.directAddress == nil)
        #expect(first.dataStatus == .complete)
        #expect(Array(first.data) == [0x02, 0x01, 0x06, 0x03, 0xFF, 0x59, 0x00])

        let second = reports[1]
        #expect(second.eventType.name == "adv_ind")
        #expect(second.eventType.isLegacy && second.eventType.isConnectable && second.eventType.isScannable)
        #expect(second.rssi == nil)
        #expect(second.txPower == nil)
        #expect(second.secondaryPHY == nil)
        #expect(second.advertisingSID == nil)
        #expect(second.primaryPHY == .le1M)

        let third = reports[2]
        #expect(third.addressType == .anonymous)
        #expect(third.addressType.description == "anonymous")
        #expect(third.eventType.name == "ext_adv_connectable_directed")
        #expect(third.directAddress?.description == "c0:01:02:03:04:05")
        #expect(third.directAddressType == .random)
        #expect(third.advertisingSID == 15)
        #expect(third.txPower == 4)
        #expect(third.data.isEmpty)

        // The same through the enum.
        #expect(try HCIEvent(decoding: packet) == .advertisingReports(reports))
    }

    @Test func eventTypeNamesAreStable() {
        let legacy = (0...4).map { AdvertisingEventType.legacyReport(UInt8($0)).name }
        #expect(legacy == ["adv_ind", "adv_direct_ind", "adv_scan_ind", "adv_nonconn_ind", "scan_rsp"])
        let fromExtended = [0x13, 0x15, 0x12, 0x10, 0x1B, 0x1A].map { AdvertisingEventType.extendedReport($0).name }
        #expect(fromExtended == ["adv_ind", "adv_direct_ind", "adv_scan_ind", "adv_nonconn_ind", "scan_rsp", "scan_rsp"])
        #expect(AdvertisingEventType.extendedReport(0x0000).name == "ext_adv")
        #expect(AdvertisingEventType.extendedReport(0x0002).name == "ext_adv_scannable")
        #expect(AdvertisingEventType.extendedReport(0x000A).name == "ext_scan_rsp_scannable")
        // Data status bits do not change the name, only the status.
        #expect(AdvertisingEventType.extendedReport(0x0021).name == "ext_adv_connectable")
        #expect(AdvertisingEventType.extendedReport(0x0021).dataStatus == .incomplete)
        #expect(AdvertisingEventType.extendedReport(0x0040).dataStatus == .truncated)
        #expect(AdvertisingEventType.legacyReport(7).name == "reserved_0x07")
        #expect(AdvertisingEventType.extendedReport(0x0014).name == "ext_adv_directed_legacy")
        #expect(AdvertisingEventType.legacyReport(1).isDirected)
        #expect(!AdvertisingEventType.legacyReport(4).isConnectable)
    }

    @Test func otherEventsAreKeptGenericAndVendorEventsAreLeftAlone() throws {
        // LE Connection Update Complete (subevent 0x03).
        let update: [UInt8] = [0x3E, 0x0A, 0x03, 0x00, 0x40, 0x00, 0x18, 0x00, 0x00, 0x00, 0xD0, 0x07]
        #expect(try HCIEvent(decoding: update) == .leMeta(subevent: 0x03, parameters: update[3...]))
        #expect(try HCIEvent.forEachAdvertisingReport(inEvent: update) { _ in Issue.record("no reports") } == 0)
        // Disconnection Complete.
        let disconnect: [UInt8] = [0x05, 0x04, 0x00, 0x40, 0x00, 0x13]
        #expect(try HCIEvent(decoding: disconnect) == .other(code: 0x05, parameters: disconnect[2...]))
        // Vendor specific.
        let vendor: [UInt8] = [0xFF, 0x03, 0x57, 0x01, 0x02]
        #expect(try HCIEvent(decoding: vendor) == .vendorSpecific(parameters: vendor[2...]))
        #expect(try HCIEvent.forEachAdvertisingReport(inEvent: vendor) { _ in Issue.record("no reports") } == 0)
    }

    @Test func malformedEventsAreTypedErrorsThatNameTheFieldAndOffset() {
        func message(_ bytes: [UInt8]) -> String {
            do {
                _ = try HCIEvent(decoding: bytes)
                return "decoded"
            } catch {
                return error.description
            }
        }
        #expect(message(Array(Self.record134.prefix(14))) == "event 0x3e at byte 1: parameter length 39 but 12 bytes follow")
        #expect(message([0x0E]) == "event at byte 0: header truncated (needs 2 bytes, 1 left)")
        #expect(message([0x0E, 0x02, 0x01, 0x03]) == "command_complete at byte 2: header truncated (needs 3 bytes, 2 left)")
        #expect(message([0x0F, 0x05, 0x00, 0x01, 0x0D, 0x20, 0x00]) == "command_status at byte 6: 1 bytes left over")

        // Legacy report whose length byte claims more data than is there: keep the event length
        // consistent and cut the data short.
        var legacy = Self.record134
        legacy[12] = 0x30  // data length 48
        #expect(
            message(legacy)
                == "le_advertising_report at byte 13: report 1 data and rssi truncated (needs 49 bytes, 28 left)")
        // Legacy report with a byte too many.
        let extra = HCITestData.leMetaEvent(subevent: 0x02, Array(Self.record134[3...]) + [0x00])
        #expect(message(extra) == "le_advertising_report at byte 41: 1 bytes left over after 1 reports")

        let report = HCITestExtendedReport(eventType: 0x10, address: [1, 2, 3, 4, 5, 6], rssi: 0xC0, data: [1, 2, 3])
        var extended = HCITestExtendedReport.event([report])
        extended[3] = 2  // claims two reports
        #expect(
            message(extended)
                == "le_extended_advertising_report at byte 31: report 2 header truncated (needs 24 bytes, 0 left)")
        var shortData = HCITestExtendedReport.event([report])
        shortData[27] = 9  // data length 9, 3 present
        #expect(
            message(shortData)
                == "le_extended_advertising_report at byte 28: report 1 data truncated (needs 9 bytes, 3 left)")
    }
}
