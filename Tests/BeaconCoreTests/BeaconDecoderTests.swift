import Foundation
import Testing
@testable import BeaconCore
import TestSupport

@Suite struct BeaconDecoderTests {
    /// LE Advertising Reports (H4 event 0x3e, subevent 0x02) in the horizon capture, one report each:
    /// (record number from 1, address, advertising data).
    func horizonReports() throws -> [(record: Int, address: BluetoothAddress, data: ArraySlice<UInt8>)] {
        let url = URL(fileURLWithPath: try RecordedData.path(RecordedData.horizonCapture))
        let file = try Data(contentsOf: url)  // missing file: the test fails, as it should
        let bytes = [UInt8](file)
        #expect(Array(bytes.prefix(8)) == Array("btsnoop".utf8) + [0])
        var reader = ByteReader(bytes)
        _ = reader.readBytes(16)
        var record = 0
        var reports: [(Int, BluetoothAddress, ArraySlice<UInt8>)] = []
        while let _ = reader.readUInt32BE(), let included = reader.readUInt32BE(), reader.skip(16),
            let packet = reader.readBytes(Int(included))
        {
            record += 1
            let start = packet.startIndex
            guard packet.count > 14, packet[start] == 0x04, packet[start + 1] == 0x3E, packet[start + 3] == 0x02
            else { continue }
            #expect(packet[start + 4] == 1, "record \(record) holds several reports")
            let length = Int(packet[start + 13])
            guard let address = BluetoothAddress(littleEndian: packet[(start + 7)..<(start + 13)]),
                packet.count >= 14 + length
            else {
                Issue.record("record \(record) is truncated")
                continue
            }
            reports.append((record, address, packet[(start + 14)..<(start + 14 + length)]))
        }
        #expect(record == 2572)
        return reports
    }

    @Test func horizonCaptureYieldsItsElevenIBeaconsAndNothingElse() throws {
        let reports = try horizonReports()
        #expect(reports.count == 412)
        var found: [(Int, BluetoothAddress, IBeacon)] = []
        var appleEntries = 0
        for (record, address, data) in reports {
            appleEntries += AdvertisingData(data).manufacturerData.filter { $0.companyID == ManufacturerData.apple }.count
            guard let beacon = BeaconDecoder.decode(advertisingData: data) else { continue }
            guard case .iBeacon(let iBeacon) = beacon else {
                Issue.record("record \(record): unexpected \(beacon)")
                continue
            }
            #expect(BeaconDecoder.decodeAll(advertisingData: data) == [beacon])
            found.append((record, address, iBeacon))
        }
        // 109 Apple entries (Nearby, handoff, AirPlay …) of which only eleven are iBeacons.
        #expect(appleEntries == 109)
        #expect(found.count == 11)
        #expect(found.first?.0 == 134)
        #expect(found.allSatisfy { $0.2.uuid.description == "494e5445-4c4c-495f-524f-434b535f4857" })
        #expect(found.allSatisfy { $0.2.minor == 62207 && $0.2.measuredPower == -62 })
        #expect(found.filter { $0.2.major == 20594 }.count == 10)
        #expect(found.filter { $0.2.major == 20597 }.map(\.0) == [338])
        #expect(found.allSatisfy { $0.1.description.hasPrefix("a4:c1:38:") })
    }

    @Test func everyHorizonReportIsWellFormedAdvertisingData() throws {
        for (record, _, data) in try horizonReports() {
            #expect(AdvertisingData(data).malformation == nil, "record \(record)")
        }
    }

    @Test func randomBytesNeverTrap() {
        var generator = AdvertisingFixtures.SeededGenerator(seed: 0x5EED_BEAC)
        var decoded = 0
        for round in 0..<40_000 {
            let count = Int.random(in: 0...40, using: &generator)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Bias a quarter of the inputs towards beacon-looking headers so the deep paths run too.
            if round % 4 == 0, count >= 8 {
                let headers: [[UInt8]] = [
                    [0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15], [0x1B, 0xFF, 0x18, 0x01, 0xBE, 0xAC],
                    [UInt8(count - 1), 0x16, 0xAA, 0xFE, 0x00], [UInt8(count - 1), 0x16, 0xAA, 0xFE, 0x10],
                    [UInt8(count - 1), 0x16, 0xAA, 0xFE, 0x20, 0x00], [UInt8(count - 1), 0x16, 0xAA, 0xFE, 0x20, 0x01],
                    [UInt8(count - 1), 0x16, 0xAA, 0xFE, 0x30],
                ]
                let header = headers[Int.random(in: 0..<headers.count, using: &generator)]
                bytes.replaceSubrange(0..<header.count, with: header)
            }
            let offset = Int.random(in: 0...3, using: &generator)
            let slice = (Array(repeating: 0xEE, count: offset) + bytes)[offset...]
            if let beacon = BeaconDecoder.decode(advertisingData: slice) {
                decoded += 1
                _ = beacon.fields(address: BluetoothAddress(rawValue: UInt64(round)))
                _ = beacon.measuredPower
            }
            let all = BeaconDecoder.decodeAll(advertisingData: slice)
            #expect(all.first == BeaconDecoder.decode(advertisingData: slice))
            let data = AdvertisingData(slice)
            _ = data.malformation
            _ = (data.flags, data.localName, data.serviceUUIDs16, data.serviceUUIDs32, data.serviceUUIDs128)
            _ = (data.serviceData, data.manufacturerData, data.txPowerLevel, data.appearance)
        }
        #expect(decoded > 100)  // the biased inputs did reach the decoders' success paths
    }

    @Test func fieldsInTheOrderScanPrintsThem() throws {
        let address = BluetoothAddress(rawValue: 0xC4A1_B2C3_D4E5)
        let iBeacon = try #require(
            BeaconDecoder.decode(advertisingData: fromHex("1aff4c000215fda50693a4e24fb1afcfc6eb0764782500050006c5")))
        #expect(
            iBeacon.fields(address: address) == [
                BeaconField("format", .string("ibeacon")),
                BeaconField("beacon", .string("ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-5-6")),
                BeaconField("uuid", .string("fda50693-a4e2-4fb1-afcf-c6eb07647825")),
                BeaconField("major", .int(5)), BeaconField("minor", .int(6)), BeaconField("measuredPower", .int(-59)),
            ])
        #expect(iBeacon.description == "ibeacon uuid=fda50693-a4e2-4fb1-afcf-c6eb07647825 major=5 minor=6 measuredPower=-59")
        let alt = try #require(
            BeaconDecoder.decode(advertisingData: fromHex("1bff1801beac2f234454cf6d4a0fadf2f4911ba9ffa600010002c509")))
        #expect(
            alt.formatFields == [
                BeaconField("beaconId", .string("2f234454cf6d4a0fadf2f4911ba9ffa600010002")),
                BeaconField("manufacturer", .int(0x0118)), BeaconField("beaconCode", .string("beac")),
                BeaconField("measuredPower", .int(-59)), BeaconField("mfgReserved", .int(9)),
            ])
        let uid = try #require(
            BeaconDecoder.decode(advertisingData: fromHex("1516aafe00e700010203040506070809010203040506")))
        #expect(
            uid.formatFields == [
                BeaconField("namespace", .string("00010203040506070809")),
                BeaconField("instance", .string("010203040506")),
                BeaconField("txPower", .int(-25)), BeaconField("measuredPower", .int(-66)),
            ])
        let url = try #require(BeaconDecoder.decode(advertisingData: fromHex("0d16aafe 1012 01 676f6f676c65 00")))
        #expect(
            url.fields(address: address) == [
                BeaconField("format", .string("eddystone-url")), BeaconField("beacon", .string("mac-c4a1b2c3d4e5")),
                BeaconField("url", .string("https://www.google.com/")),
                BeaconField("txPower", .int(18)), BeaconField("measuredPower", .int(-23)),
            ])
        let tlm = try #require(BeaconDecoder.decode(advertisingData: fromHex("1116AAFE20000B701549023532D802384F46")))
        #expect(
            tlm.formatFields == [
                BeaconField("version", .int(0)), BeaconField("battery", .int(2928)),
                BeaconField("temperature", .double(21 + 0x49 / 256.0)), BeaconField("advCount", .int(37_040_856)),
                BeaconField("secCount", .int(37_244_742)), BeaconField("uptime", .double(3_724_474.2)),
            ])
    }
}

/// Bytes from hex text (spaces allowed).
private func fromHex(_ text: String) -> [UInt8] { AdvertisingFixtures.hex(text) }
