import Testing
@testable import BeaconCore

@Suite struct AdvertisingDataTests {
    @Test func iteratesStructuresAndStopsAtPadding() {
        // Android Beacon Library's Eddystone-UID test advertisement: flags, UUID list, service data,
        // then the zero padding a controller leaves in a 62-byte buffer.
        let bytes = fromHex(
            "0201060303aafe1516aafe00e700010203040506070809010203040506000000" + String(repeating: "00", count: 30))
        let data = AdvertisingData(bytes)
        let structures = Array(data)
        #expect(structures.map(\.type) == [.flags, .completeServiceUUIDs16, .serviceData16])
        #expect(structures.map(\.offset) == [0, 3, 7])
        #expect(structures[2].data.count == 0x15 - 1)
        #expect(data.malformation == nil)
        #expect(data.flags == [.leGeneralDiscoverable, .brEdrNotSupported])
        #expect(data.serviceUUIDs16 == [0xFEAA])
        #expect(data.serviceData(for: 0xFEAA)?.payload.first == 0x00)
    }

    @Test func structureRunningPastTheEndStopsIterationWithItsOffset() throws {
        // A flags structure, then a manufacturer structure claiming 26 bytes with only 5 present.
        let bytes = fromHex("020106 1aff4c000215")
        let data = AdvertisingData(bytes)
        #expect(Array(data).map(\.type) == [.flags])
        let malformation = try #require(data.malformation)
        #expect(malformation.code == .structureRunsPastEnd)
        #expect(malformation.offset == 3)
        #expect(malformation.declaredLength == 26)
        #expect(malformation.availableLength == 5)
        #expect(throws: AdvertisingDataError.self) { try data.validate() }
        #expect(data.flags == [.leGeneralDiscoverable, .brEdrNotSupported])
        #expect(data.manufacturerData.isEmpty)
    }

    @Test func emptyAndLoneLengthBytes() {
        #expect(Array(AdvertisingData([])).isEmpty)
        #expect(AdvertisingData([]).malformation == nil)
        #expect(AdvertisingData([0x05]).malformation?.offset == 0)
        // Length 1: a type byte with no data is well formed.
        let typeOnly = AdvertisingData([0x01, 0x09])
        #expect(typeOnly.completeLocalName == "")
        #expect(typeOnly.malformation == nil)
    }

    @Test func slicesKeepTheirOwnIndices() {
        // Advertising data as it sits inside an HCI event: the slice does not start at index 0.
        let event = fromHex("043e2702010400ab6fbf38c1a41b1aff4c000215494e54454c4c495f524f434b535f48575072f2ffc2cf")
        let data = AdvertisingData(event[14..<41])
        let structures = Array(data)
        #expect(structures.count == 1)
        #expect(structures[0].offset == 0)
        #expect(data.manufacturerData.first?.companyID == 0x004C)
        #expect(data.manufacturerData.first?.payload.count == 23)
    }

    @Test func readsCommonTypes() {
        var bytes: [UInt8] = []
        bytes += [0x02, 0x01, 0x1A]  // flags: general discoverable, simultaneous LE/BR-EDR
        bytes += [0x05, 0x08] + Array("Kitc".utf8)  // shortened name
        bytes += [0x08, 0x09] + Array("Kitchen".utf8)  // complete name
        bytes += [0x05, 0x02, 0x0F, 0x18, 0x0A, 0x18]  // incomplete 16-bit: battery 0x180F, device info 0x180A
        bytes += [0x05, 0x05, 0x78, 0x56, 0x34, 0x12]  // complete 32-bit: 0x12345678
        // complete 128-bit, little-endian on the air: 0000feaa-0000-1000-8000-00805f9b34fb
        bytes += [0x11, 0x07] + fromHex("0000feaa00001000800000805f9b34fb").reversed()
        bytes += [0x02, 0x0A, 0xF4]  // tx power level −12 dBm
        bytes += [0x03, 0x19, 0xC1, 0x03]  // appearance 0x03C1 (keyring)
        bytes += [0x05, 0x16, 0x0F, 0x18, 0x64, 0x00]  // service data 0x180F: battery 100 %
        bytes += [0x05, 0xFF, 0x59, 0x00, 0xAB, 0xCD]  // manufacturer 0x0059 (Nordic)
        let data = AdvertisingData(bytes)
        #expect(data.malformation == nil)
        #expect(data.flags == [.leGeneralDiscoverable, .simultaneousLEAndBrEdrController, .simultaneousLEAndBrEdrHost])
        #expect(data.shortenedLocalName == "Kitc")
        #expect(data.completeLocalName == "Kitchen")
        #expect(data.localName == "Kitchen")
        #expect(data.serviceUUIDs16 == [0x180F, 0x180A])
        #expect(data.serviceUUIDs32 == [0x1234_5678])
        #expect(data.serviceUUIDs128.map(\.description) == ["0000feaa-0000-1000-8000-00805f9b34fb"])
        #expect(data.txPowerLevel == -12)
        #expect(data.appearance == 0x03C1)
        #expect(data.serviceData == [ServiceData(uuid: 0x180F, payload: [0x64, 0x00][...])])
        #expect(data.manufacturerData == [ManufacturerData(companyID: 0x0059, payload: [0xAB, 0xCD][...])])
        #expect(BeaconDecoder.decode(advertisingData: bytes) == nil)
    }

    @Test func shortStructuresOfKnownTypesAreSkippedNotMisread() {
        // Manufacturer data with one byte (no full company id), service data with one byte,
        // a 16-bit UUID list with an odd byte, an empty appearance.
        let data = AdvertisingData(fromHex("02ff4c 02160f 0403aafe01 0119"))
        #expect(data.malformation == nil)
        #expect(data.manufacturerData.isEmpty)
        #expect(data.serviceData.isEmpty)
        #expect(data.serviceUUIDs16 == [0xFEAA])
        #expect(data.appearance == nil)
        #expect(data.localName == nil)
    }
}

/// Bytes from hex text (spaces allowed).
private func fromHex(_ text: String) -> [UInt8] { AdvertisingFixtures.hex(text) }
