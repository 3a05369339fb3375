import Testing
@testable import BeaconCore

@Suite struct BeaconIDTests {
    @Test func buildsTheIdsOfMQTTmd() throws {
        let uuid = try #require(BeaconUUID("fda50693-a4e2-4fb1-afcf-c6eb07647825"))
        #expect(BeaconID.iBeacon(uuid: uuid, major: 5, minor: 6) == "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-5-6")
        #expect(BeaconID.iBeacon(uuid: uuid, major: 65535, minor: 0).rawValue.hasSuffix("-65535-0"))
        let altID = try #require(AltBeacon.Identifier(bytes: fromHex("2f234454cf6d4a0fadf2f4911ba9ffa600010002")))
        #expect(BeaconID.altBeacon(altID) == "altbeacon-2f234454cf6d4a0fadf2f4911ba9ffa600010002")
        let namespace = try #require(EddystoneUID.Namespace(bytes: fromHex("12345678901234678901")))
        #expect(BeaconID.eddystone(namespace: namespace, instance: 1) == "eddystone-12345678901234678901-000000000001")
        #expect(BeaconID.mac(BluetoothAddress(rawValue: 0xC4A1_B2C3_D4E5)) == "mac-c4a1b2c3d4e5")
    }

    @Test func parsesEveryExampleOfMQTTmdBackIntoItsParts() throws {
        let examples: [String] = [
            "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-5-6",
            "altbeacon-2f234454cf6d4a0fadf2f4911ba9ffa600010002",
            "eddystone-12345678901234678901-000000000001",
            "mac-c4a1b2c3d4e5",
        ]
        for text in examples {
            let id = try BeaconID(parsing: text)
            #expect(id.rawValue == text)
            #expect(id.components != nil)
        }
        let iBeacon = try BeaconID.components(parsing: examples[0])
        #expect(iBeacon == .iBeacon(uuid: BeaconUUID("fda50693-a4e2-4fb1-afcf-c6eb07647825")!, major: 5, minor: 6))
        #expect(iBeacon.kind == .iBeacon)
        guard case .altBeacon(let alt) = try BeaconID.components(parsing: examples[1]) else {
            Issue.record("not altbeacon"); return
        }
        #expect(alt.id2 == 1 && alt.id3 == 2)
        guard case .eddystone(let namespace, let instance) = try BeaconID.components(parsing: examples[2]) else {
            Issue.record("not eddystone"); return
        }
        #expect(namespace.description == "12345678901234678901")
        #expect(instance == 1)
        #expect(try BeaconID.components(parsing: examples[3]) == .mac(BluetoothAddress(rawValue: 0xC4A1_B2C3_D4E5)))
    }

    @Test func idOfADecodedBeaconParsesBackToTheSameIdentity() throws {
        let bytes = fromHex("1aff4c000215494e54454c4c495f524f434b535f48575072f2ffc2")
        let beacon = try #require(BeaconDecoder.decode(advertisingData: bytes))
        let address = BluetoothAddress(rawValue: 0xA4C1_38BF_6FAB)
        let id = beacon.id(address: address)
        #expect(try BeaconID.components(parsing: id.rawValue) == beacon.identity(address: address))
        #expect(BeaconID(beacon.identity(address: address)) == id)
    }

    @Test(arguments: [
        ("", BeaconIDError.Code.unknownKind, "kind"),
        ("beacon-1", .unknownKind, "kind"),
        ("IBEACON-fda50693-a4e2-4fb1-afcf-c6eb07647825-5-6", .notLowercase, "id"),
        ("ibeacon-FDA50693-a4e2-4fb1-afcf-c6eb07647825-5-6", .notLowercase, "id"),
        ("ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-5", .wrongShape, "uuid"),
        ("ibeacon-fda50693a4e24fb1afcfc6eb07647825-5-6", .wrongShape, "uuid"),
        ("ibeacon-fda50693-a4e2-4fb1-afcf-c6eb0764782x-5-6", .malformedUUID, "uuid"),
        ("ibeacon-fda5069-3a4e2-4fb1-afcf-c6eb07647825-5-6", .malformedUUID, "uuid"),
        ("ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-65536-6", .malformedNumber, "major"),
        ("ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-05-6", .malformedNumber, "major"),
        ("ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-5-", .malformedNumber, "minor"),
        ("ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-5-+6", .malformedNumber, "minor"),
        ("altbeacon-2f234454cf6d4a0fadf2f4911ba9ffa6000100", .malformedHex, "id"),
        ("altbeacon-2f234454cf6d4a0fadf2f4911ba9ffa6000100zz", .malformedHex, "id"),
        ("altbeacon-2f234454-cf6d4a0fadf2f4911ba9ffa600010002", .wrongShape, "id"),
        ("eddystone-12345678901234678901", .wrongShape, "namespace"),
        ("eddystone-1234567890123467890-000000000001", .malformedHex, "namespace"),
        ("eddystone-12345678901234678901-00000000001g", .malformedHex, "instance"),
        ("mac-c4:a1:b2:c3:d4:e5", .malformedHex, "address"),
        ("mac-c4a1b2c3d4", .malformedHex, "address"),
        ("mac-c4a1b2c3d4e5-1", .wrongShape, "address"),
    ])
    func rejectsNonCanonicalIdsNamingThePart(text: String, code: BeaconIDError.Code, field: String) {
        #expect {
            _ = try BeaconID(parsing: text)
        } throws: { error in
            guard let error = error as? BeaconIDError else { return false }
            return error.code == code && error.field == field && error.text == text
        }
        #expect(BeaconID(rawValue: text).components == nil)
    }

    @Test func uuidTextWithDoubledOrMisplacedHyphensIsRejected() {
        // BeaconUUID used to accept a hyphen twice at one position as long as four were present.
        #expect(BeaconUUID("fda50693--a4e24fb1-afcf-c6eb07647825") == nil)
        #expect(BeaconUUID("fda50693a4e2-4fb1-afcf--c6eb07647825") == nil)
        #expect(BeaconUUID("fda50693-a4e2-4fb1-afcf-c6eb07647825")?.description == "fda50693-a4e2-4fb1-afcf-c6eb07647825")
        #expect(BeaconUUID("fda50693a4e24fb1afcfc6eb07647825") != nil)
    }

    @Test func errorMessagesQuoteTheBadPart() {
        do {
            _ = try BeaconID(parsing: "ibeacon-abc-1-2-3-4-5-6")
            Issue.record("accepted")
        } catch {
            #expect(error.description == "'ibeacon-abc-1-2-3-4-5-6': uuid 'abc-1-2-3-4' is not a lower-case 8-4-4-4-12 UUID")
        }
        do {
            _ = try BeaconID(parsing: "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-70000-6")
            Issue.record("accepted")
        } catch {
            #expect(error.message == "major '70000' is not a decimal 0…65535 without leading zeros")
        }
    }
}

/// Bytes from hex text (spaces allowed).
private func fromHex(_ text: String) -> [UInt8] { AdvertisingFixtures.hex(text) }
