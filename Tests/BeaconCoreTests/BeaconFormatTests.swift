import Testing
@testable import BeaconCore

@Suite struct BeaconFormatTests {
    let address = BluetoothAddress(rawValue: 0xC4A1_B2C3_D4E5)

    // MARK: iBeacon

    @Test func iBeaconBuiltFromBytes() throws {
        // flags, then 1a ff 4c 00 02 15 <uuid> <major 5> <minor 6> <-59>
        let bytes = fromHex("020106 1aff4c000215 fda50693a4e24fb1afcfc6eb07647825 0005 0006 c5")
        let beacon = try #require(BeaconDecoder.decode(advertisingData: bytes))
        guard case .iBeacon(let iBeacon) = beacon else { Issue.record("not an iBeacon: \(beacon)"); return }
        #expect(iBeacon.uuid.description == "fda50693-a4e2-4fb1-afcf-c6eb07647825")
        #expect(iBeacon.major == 5)
        #expect(iBeacon.minor == 6)
        #expect(iBeacon.measuredPower == -59)
        #expect(beacon.measuredPower == -59)
        #expect(beacon.id(address: address) == "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-5-6")
        #expect(beacon.format == "ibeacon")
    }

    @Test func iBeaconFromAPublishedProtocolWriteUp() throws {
        // The complete advertisement of forforf/multi_beacon's iBeacon protocol notes:
        // UUID 83256B74-78D0-43A4-8269-05F9DC8A44BA, major 16, minor 32, measured power −58.
        let bytes = fromHex("02011A1AFF4C00021583256B7478D043A4826905F9DC8A44BA00100020C6")
        let beacon = try #require(BeaconDecoder.decode(advertisingData: bytes))
        #expect(beacon.id(address: address) == "ibeacon-83256b74-78d0-43a4-8269-05f9dc8a44ba-16-32")
        #expect(beacon.measuredPower == -58)
    }

    @Test func iBeaconFromTheHorizonCaptureRecord134() throws {
        // Record 134 of data/captures/horizon-74-at-ble.btsnoop: an LE Advertising Report
        // (scan response) whose 27 bytes of advertising data start at byte 14 of the H4 packet.
        let packet = fromHex("043e2702010400ab6fbf38c1a41b1aff4c000215494e54454c4c495f524f434b535f48575072f2ffc2cf")
        let advertisingData = packet[14..<(14 + Int(packet[13]))]
        #expect(advertisingData.count == 27)
        let beacon = try #require(BeaconDecoder.decode(advertisingData: advertisingData))
        guard case .iBeacon(let iBeacon) = beacon else { Issue.record("not an iBeacon"); return }
        #expect(iBeacon.uuid.description == "494e5445-4c4c-495f-524f-434b535f4857")
        #expect(iBeacon.major == 20594)
        #expect(iBeacon.minor == 62207)
        #expect(iBeacon.measuredPower == -62)
        let sender = try #require(BluetoothAddress(littleEndian: packet[7..<13]))
        #expect(sender.description == "a4:c1:38:bf:6f:ab")
        #expect(beacon.id(address: sender) == "ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20594-62207")
        // The fast path and the structure-by-structure path agree.
        #expect(BeaconDecoder.decodeAll(advertisingData: advertisingData) == [beacon])
    }

    @Test func appleNonIBeaconPayloadsAreNotBeacons() {
        let notIBeacons = [
            // Nearby Info (0x10), as phones send it
            "02011a 0aff4c001005031c0a8b8a",
            // Find My (0x12), offline finding
            "1eff4c001219" + String(repeating: "11", count: 25),
            // 0x07 (proximity pairing), 0x09 (AirPlay target), 0x0c (handoff)
            "1aff4c000715" + String(repeating: "22", count: 21),
            "1aff4c000915" + String(repeating: "33", count: 21),
            "1aff4c000c15" + String(repeating: "44", count: 21),
            // type 0x02 with a wrong inner length
            "1aff4c000214" + String(repeating: "55", count: 21),
            // type 0x02 length 0x15, but the structure is one byte short
            "19ff4c000215" + String(repeating: "66", count: 20),
            // … and one byte long
            "1bff4c000215" + String(repeating: "77", count: 22),
            // iBeacon bytes under another company id is neither iBeacon nor AltBeacon
            "1aff59000215" + String(repeating: "88", count: 21),
        ]
        for hex in notIBeacons {
            let bytes = fromHex(hex)
            #expect(BeaconDecoder.decode(advertisingData: bytes) == nil, "\(hex)")
            #expect(BeaconDecoder.decodeAll(advertisingData: bytes[...]).isEmpty, "\(hex)")
        }
    }

    // MARK: AltBeacon

    @Test func altBeaconFromTheAndroidBeaconLibraryTests() throws {
        // Android Beacon Library's AltBeacon test advertisement (Radius Networks, company 0x0118):
        // reference RSSI 0xc5 = −59, manufacturer reserved 0x09.
        let bytes = fromHex("02011a1bff1801beac2f234454cf6d4a0fadf2f4911ba9ffa600010002c509")
        let beacon = try #require(BeaconDecoder.decode(advertisingData: bytes))
        guard case .altBeacon(let altBeacon) = beacon else { Issue.record("not an AltBeacon"); return }
        #expect(altBeacon.manufacturer == 0x0118)
        #expect(altBeacon.beaconID.description == "2f234454cf6d4a0fadf2f4911ba9ffa600010002")
        #expect(altBeacon.beaconID.leading.description == "2f234454-cf6d-4a0f-adf2-f4911ba9ffa6")
        #expect(altBeacon.beaconID.id2 == 1)
        #expect(altBeacon.beaconID.id3 == 2)
        #expect(altBeacon.referenceRSSI == -59)
        #expect(altBeacon.manufacturerReserved == 9)
        #expect(beacon.measuredPower == -59)
        #expect(beacon.id(address: address) == "altbeacon-2f234454cf6d4a0fadf2f4911ba9ffa600010002")
    }

    @Test func altBeaconTheBriefsExampleWithReservedZero() throws {
        let beacon = try #require(
            BeaconDecoder.decode(advertisingData: fromHex("1bff1801beac2f234454cf6d4a0fadf2f4911ba9ffa600010002c500")))
        #expect(beacon.id(address: address) == "altbeacon-2f234454cf6d4a0fadf2f4911ba9ffa600010002")
        #expect(beacon.measuredPower == -59)
    }

    @Test func altBeaconNeedsTheBeaconCodeAndTheSpecifiedLength() {
        // Wrong beacon code, one byte short, one byte long.
        #expect(BeaconDecoder.decode(advertisingData: fromHex("1bff1801beab2f234454cf6d4a0fadf2f4911ba9ffa600010002c500")) == nil)
        #expect(BeaconDecoder.decode(advertisingData: fromHex("1aff1801beac2f234454cf6d4a0fadf2f4911ba9ffa600010002c5")) == nil)
        #expect(BeaconDecoder.decode(advertisingData: fromHex("1cff1801beac2f234454cf6d4a0fadf2f4911ba9ffa600010002c50000")) == nil)
    }

    // MARK: Eddystone

    @Test func eddystoneUIDFromTheAndroidBeaconLibraryTests() throws {
        // Tx power 0xe7 = −25 dBm at 0 m, namespace 00…09, instance 01…06, RFU, zero padding.
        let bytes = fromHex(
            "0201060303aafe1516aafe00e700010203040506070809010203040506000000" + String(repeating: "00", count: 30))
        let beacon = try #require(BeaconDecoder.decode(advertisingData: bytes))
        guard case .eddystoneUID(let uid) = beacon else { Issue.record("not Eddystone-UID"); return }
        #expect(uid.txPower == -25)
        #expect(uid.namespace.description == "00010203040506070809")
        #expect(uid.instanceHex == "010203040506")
        #expect(beacon.measuredPower == -66)
        #expect(beacon.id(address: address) == "eddystone-00010203040506070809-010203040506")
        #expect(beacon.format == "eddystone-uid")
    }

    @Test func eddystoneUIDFromMikroTiksDecoderDocs() throws {
        // MikroTik's documentation shows this tag's UID frame beside its iBeacon with measured power
        // −68 dBm; the UID's 0 m power is −27 dBm, and −27 − 41 = −68: the conversion holds.
        let bytes = fromHex("0303AAFE1716AAFE00E5B2B98DE4C81C47C2B14E7500000000000000")
        let beacon = try #require(BeaconDecoder.decode(advertisingData: bytes))
        #expect(beacon.id(address: address) == "eddystone-b2b98de4c81c47c2b14e-750000000000")
        #expect(beacon.measuredPower == -68)
    }

    @Test func eddystoneUIDWithoutTheReservedBytesIsAccepted() throws {
        // Many beacons stop after the instance (18-byte frame); the spec's 20 bytes end in RFU.
        let bytes = fromHex("0303aafe 1516aafe 00ee 0102030405060708090a 0b0c0d0e0f10")
        let beacon = try #require(BeaconDecoder.decode(advertisingData: bytes))
        #expect(beacon.id(address: address) == "eddystone-0102030405060708090a-0b0c0d0e0f10")
        // 17 or 19 bytes are neither form.
        #expect(BeaconDecoder.decode(advertisingData: fromHex("1416aafe 00ee 0102030405060708090a 0b0c0d0e0f")) == nil)
        #expect(BeaconDecoder.decode(advertisingData: fromHex("1616aafe 00ee 0102030405060708090a 0b0c0d0e0f10 00")) == nil)
    }

    @Test func eddystoneURLExamplesFromTheSpec() throws {
        // "https://goo.gl/S6zT6P": scheme 0x03, then the text as is.
        let googl = fromHex("0303aafe 1316aafe 10ee 03 676f6f2e676c2f 53367a543650")
        let first = try #require(BeaconDecoder.decode(advertisingData: googl))
        guard case .eddystoneURL(let url) = first else { Issue.record("not Eddystone-URL"); return }
        #expect(url.url == "https://goo.gl/S6zT6P")
        #expect(url.txPower == -18)  // the spec's example: 0xEE is −18 dBm
        #expect(first.measuredPower == -59)
        #expect(first.id(address: address) == "mac-c4a1b2c3d4e5")
        #expect(first.format == "eddystone-url")

        // "https://www.google.com/": scheme 0x01, "google", expansion 0x00 ".com/".
        let google = fromHex("0303aafe 0d16aafe 1012 01 676f6f676c65 00")
        guard case .eddystoneURL(let url2) = try #require(BeaconDecoder.decode(advertisingData: google)) else {
            Issue.record("not Eddystone-URL"); return
        }
        #expect(url2.url == "https://www.google.com/")
        #expect(url2.txPower == 18)  // 0x12 is +18 dBm

        // Every scheme and every expansion.
        let all = fromHex("1516aafe 1000 02 61 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d")
        guard case .eddystoneURL(let url3) = try #require(BeaconDecoder.decode(advertisingData: all)) else {
            Issue.record("not Eddystone-URL"); return
        }
        #expect(url3.url == "http://a.com/.org/.edu/.net/.info/.biz/.gov/.com.org.edu.net.info.biz.gov")
        for (code, scheme) in ["http://www.", "https://www.", "http://", "https://"].enumerated() {
            let frame = fromHex("0816aafe 1000") + [UInt8(code)] + Array("x".utf8) + [0x07]
            guard case .eddystoneURL(let decoded) = BeaconDecoder.decode(advertisingData: frame) else {
                Issue.record("scheme \(code) not decoded"); continue
            }
            #expect(decoded.url == scheme + "x.com")
        }
    }

    @Test func eddystoneURLsAreEqualWhenTheySayTheSameURLHoweverCompressed() throws {
        // ".com/" as its expansion code 0x00 and as five letters.
        let coded = fromHex("0303aafe 0d16aafe 1012 01 676f6f676c65 00")
        let spelled = fromHex("0303aafe 1116aafe 1012 01 676f6f676c65 2e636f6d2f")
        let a = try #require(BeaconDecoder.decode(advertisingData: coded))
        let b = try #require(BeaconDecoder.decode(advertisingData: spelled))
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
        guard case .eddystoneURL(let url) = b else { Issue.record("not Eddystone-URL"); return }
        #expect(url.url == "https://www.google.com/")
        #expect(url.encoded == Array("google.com/".utf8))
        // The same URL at another power is another frame.
        let louder = fromHex("0303aafe 0d16aafe 1014 01 676f6f676c65 00")
        #expect(try #require(BeaconDecoder.decode(advertisingData: louder)) != a)
    }

    @Test func eddystoneURLFromAHcitoolExampleWithPadding() throws {
        // An hcitool advertising command from a student notebook: https://myp.me?A then zero padding.
        let bytes = fromHex("0201060303aafe0e16aafe100003 6d79702e6d653f41 0000000000000000")
        guard case .eddystoneURL(let url) = try #require(BeaconDecoder.decode(advertisingData: bytes)) else {
            Issue.record("not Eddystone-URL"); return
        }
        #expect(url.url == "https://myp.me?A")
        #expect(url.txPower == 0)
    }

    @Test func invalidEddystoneURLsAreRejected() {
        let invalid = [
            "0816aafe 1000 04 676f",  // scheme 0x04 does not exist
            "0816aafe 1000 ff 676f",  // nor 0xff
            "0816aafe 1000 03 670e",  // 0x0e is reserved
            "0816aafe 1000 03 6720",  // 0x20 (space) is reserved
            "0816aafe 1000 03 677f",  // 0x7f is reserved
            "0816aafe 1000 03 6780",  // and so is everything above
            "0516aafe 1000",  // no scheme byte
            "1816aafe 1000 03" + String(repeating: "61", count: 18),  // 18 encoded bytes: more than 17
        ]
        for hex in invalid {
            #expect(BeaconDecoder.decode(advertisingData: fromHex(hex)) == nil, "\(hex)")
        }
        // 17 bytes is the most allowed.
        let longest = fromHex("1716aafe 1000 03" + String(repeating: "61", count: 17))
        #expect(BeaconDecoder.decode(advertisingData: longest) != nil)
        // Every one of the 17 kept in place, the last expansion code included.
        let letters = fromHex("1716aafe 1000 03") + Array("abcdefghijklmnop".utf8) + [0x0D]
        guard case .eddystoneURL(let url) = BeaconDecoder.decode(advertisingData: letters) else {
            Issue.record("17 encoded bytes not decoded"); return
        }
        #expect(url.url == "https://abcdefghijklmnop.gov")
    }

    @Test func eddystonePlainTLMFromMikroTiksDecoderDocs() throws {
        // MikroTik decodes this as 2.928 V, 21.285 °C, 37040856 packets, 3724474.2 s.
        let bytes = fromHex("0201060303AAFE1116AAFE20000B701549023532D802384F46")
        let beacon = try #require(BeaconDecoder.decode(advertisingData: bytes))
        guard case .eddystoneTLM(.plain(let tlm)) = beacon else { Issue.record("not plain TLM"); return }
        #expect(tlm.batteryMillivolts == 2928)
        #expect(tlm.temperature == 21 + 0x49 / 256.0)
        #expect(abs((tlm.temperature ?? 0) - 21.285) < 0.001)
        #expect(tlm.advertisementCount == 37_040_856)
        #expect(tlm.uptimeTenths == 37_244_742)
        #expect(tlm.uptimeSeconds == 3_724_474.2)
        #expect(beacon.measuredPower == nil)
        #expect(beacon.id(address: address) == "mac-c4a1b2c3d4e5")
        #expect(beacon.format == "eddystone-tlm")
    }

    @Test func eddystoneTLMNegativeAndUnsupportedTemperature() throws {
        // −1.5 °C is 0xfe80 in 8.8; 0x8000 means no sensor; battery 0 means not reported.
        let negative = fromHex("1116aafe 2000 0bb8 fe80 00000001 00000002")
        guard case .eddystoneTLM(.plain(let cold)) = try #require(BeaconDecoder.decode(advertisingData: negative)) else {
            Issue.record("not plain TLM"); return
        }
        #expect(cold.temperature == -1.5)
        #expect(cold.battery == 3000)
        let unsupported = fromHex("1116aafe 2000 0000 8000 00000001 00000002")
        let beacon = try #require(BeaconDecoder.decode(advertisingData: unsupported))
        guard case .eddystoneTLM(.plain(let bare)) = beacon else { Issue.record("not plain TLM"); return }
        #expect(bare.temperature == nil)
        #expect(bare.battery == nil)
        #expect(beacon.formatFields.map(\.key) == ["version", "advCount", "secCount", "uptime"])
    }

    @Test func eddystoneEncryptedTLM() throws {
        // Frame 0x20 version 0x01: 12 bytes ETLM, 2 bytes salt, 2 bytes MIC (tlm-encrypted.md).
        let bytes = fromHex("0201060303aafe1516aafe 2001 0102030405060708090a0b0c abcd 1234")
        let beacon = try #require(BeaconDecoder.decode(advertisingData: bytes))
        guard case .eddystoneTLM(.encrypted(let tlm)) = beacon else { Issue.record("not encrypted TLM"); return }
        #expect(tlm.encryptedHex == "0102030405060708090a0b0c")
        #expect(tlm.salt == 0xABCD)
        #expect(tlm.integrityCheck == 0x1234)
        #expect(
            beacon.formatFields == [
                BeaconField("version", .int(1)), BeaconField("etlm", .string("0102030405060708090a0b0c")),
                BeaconField("salt", .string("abcd")), BeaconField("mic", .string("1234")),
            ])
        // Unknown version, and wrong lengths for both versions.
        #expect(BeaconDecoder.decode(advertisingData: fromHex("1116aafe 2002 0b701549023532d802384f46")) == nil)
        #expect(BeaconDecoder.decode(advertisingData: fromHex("1016aafe 2000 0b701549023532d802384f")) == nil)
        #expect(BeaconDecoder.decode(advertisingData: fromHex("1416aafe 2001 0102030405060708090a0b0c abcd12")) == nil)
    }

    @Test func eddystoneEID() throws {
        let bytes = fromHex("0201060303aafe0d16aafe 30f6 1122334455667788")
        let beacon = try #require(BeaconDecoder.decode(advertisingData: bytes))
        guard case .eddystoneEID(let eid) = beacon else { Issue.record("not Eddystone-EID"); return }
        #expect(eid.txPower == -10)
        #expect(eid.ephemeralID == 0x1122_3344_5566_7788)
        #expect(beacon.measuredPower == -51)
        #expect(beacon.id(address: address) == "mac-c4a1b2c3d4e5")
        #expect(
            beacon.formatFields == [
                BeaconField("eid", .string("1122334455667788")), BeaconField("txPower", .int(-10)),
                BeaconField("measuredPower", .int(-51)),
            ])
        #expect(BeaconDecoder.decode(advertisingData: fromHex("0c16aafe 30f6 11223344556677")) == nil)
    }

    @Test func otherServiceDataAndUnknownFramesAreNotBeacons() {
        // Service data of another UUID carrying a UID-shaped frame, reserved frame types 0x40 and 0x01.
        #expect(BeaconDecoder.decode(advertisingData: fromHex("1516abfe00e700010203040506070809010203040506")) == nil)
        #expect(BeaconDecoder.decode(advertisingData: fromHex("0516aafe40e7")) == nil)
        #expect(BeaconDecoder.decode(advertisingData: fromHex("1516aafe01e700010203040506070809010203040506")) == nil)
        #expect(BeaconDecoder.decode(advertisingData: fromHex("0316aafe")) == nil)
        #expect(BeaconDecoder.decode(advertisingData: fromHex("0216aa")) == nil)
    }

    // MARK: Several frames, truncation

    @Test func firstFrameWinsAndDecodeAllReturnsEvery() throws {
        let uid = "1516aafe00e700010203040506070809010203040506"
        let iBeacon = "1aff4c000215fda50693a4e24fb1afcfc6eb0764782500050006c5"
        let bytes = fromHex(uid + iBeacon)
        let first = try #require(BeaconDecoder.decode(advertisingData: bytes))
        #expect(first.format == "eddystone-uid")
        #expect(BeaconDecoder.decodeAll(advertisingData: bytes[...]).map(\.format) == ["eddystone-uid", "ibeacon"])
        // A non-beacon Apple payload before the iBeacon is passed over.
        let nearby = fromHex("0aff4c001005031c0a8b8a" + iBeacon)
        #expect(BeaconDecoder.decode(advertisingData: nearby)?.format == "ibeacon")
    }

    @Test func truncatingABeaconAnywhereGivesNilNotATrap() {
        let vectors = [
            "02011a1bff1801beac2f234454cf6d4a0fadf2f4911ba9ffa600010002c509",
            "020106 1aff4c000215 fda50693a4e24fb1afcfc6eb07647825 0005 0006 c5",
            "0201060303AAFE1116AAFE20000B701549023532D802384F46",
            "0303aafe 0d16aafe 1012 01 676f6f676c65 00",
            "0201060303aafe1516aafe 2001 0102030405060708090a0b0c abcd 1234",
            "0303AAFE1716AAFE00E5B2B98DE4C81C47C2B14E7500000000000000",
        ]
        for hex in vectors {
            let bytes = fromHex(hex)
            #expect(BeaconDecoder.decode(advertisingData: bytes) != nil, "\(hex)")
            for cut in 0..<bytes.count {
                let prefix = bytes[0..<cut]
                #expect(BeaconDecoder.decode(advertisingData: prefix) == nil, "\(hex) cut at \(cut)")
                #expect(BeaconDecoder.decodeAll(advertisingData: prefix).isEmpty)
                // Same bytes at a non-zero start index, as inside an HCI event.
                let embedded = ([0x3E, 0x99] + bytes)[2..<(2 + cut)]
                #expect(BeaconDecoder.decode(advertisingData: embedded) == nil)
            }
        }
    }
}

/// Bytes from hex text (spaces allowed).
private func fromHex(_ text: String) -> [UInt8] { AdvertisingFixtures.hex(text) }
