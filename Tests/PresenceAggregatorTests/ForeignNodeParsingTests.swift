import BeaconCore
import Foundation
import PresenceAggregator
import TestSupport
import Testing

/// The pure parts of the foreign sources: ESPresense ids and reports, gateway adverts.
@Suite struct ForeignNodeParsingTests {
    typealias P = ForeignNodePayloads
    let sha256 = P.crypto.sha256

    // MARK: ESPresense ids

    @Test func espresenseIdsMapToOurs() {
        #expect(ESPresenseDeviceID.canonical("iBeacon:\(P.uuid)-5-6", sha256: sha256) == P.iBeacon(major: 5, minor: 6))
        #expect(ESPresenseDeviceID.canonical("altBeacon:2f234454-cf6d-4a0f-adf2-f4911ba9ffa6-1-2", sha256: sha256)
            == "altbeacon-2f234454cf6d4a0fadf2f4911ba9ffa600010002")
        // ESPresense prints the namespace's fifth byte twice (src/BleFingerprint.cpp's format string).
        #expect(ESPresenseDeviceID.canonical("eddy:1234567890901234678901-000000000001", sha256: sha256)
            == "eddystone-12345678901234678901-000000000001")
        #expect(ESPresenseDeviceID.canonical("irk:\(P.sampleKeyHex)", sha256: sha256) == P.sampleKeyID)
        #expect(ESPresenseDeviceID.canonical("c4a1b2c3d4e5", sha256: sha256) == "mac-c4a1b2c3d4e5")
        for other in ["apple:1005:9-25", "msft:cdp:0a1b", "name:alices-watch", "node:kitchen", "alice-phone",
                      "iBeacon:nope", "iBeacon:\(P.uuid)-70000-1", "eddy:12345678901234678901-000000000001",
                      "eddy:1234567890AB1234678901-000000000001", "irk:1234", ""] {
            #expect(ESPresenseDeviceID.canonical(other, sha256: sha256) == nil, "\(other)")
        }
    }

    // MARK: ESPresense reports

    @Test func aReportAsESPresenseWritesItIsRead() throws {
        let report = try ESPresenseReport(payload: Array(P.espresense(id: "iBeacon:\(P.uuid)-5-6", rssi: -71.25, name: "Keys").utf8))
        #expect(report.deviceID == "iBeacon:\(P.uuid)-5-6")
        #expect(report.rssi == -71.25)
        #expect(report.rssiAt1m == -59)
        #expect(report.rssiVariance == 3.17)
        #expect(report.name == "Keys")
    }

    @Test func olderFirmwareWithoutRssiUsesItsDistance() throws {
        // Before 2025 `rssi` was an integer and `raw` came beside it; before that some builds sent a distance alone.
        let text = #"{"mac":"c4a1b2c3d4e5","id":"iBeacon:\#(P.uuid)-5-6","rssi@1m":-59,"raw":-75,"distance":2.00,"speed":0.01,"int":1000}"#
        let report = try ESPresenseReport(payload: Array(text.utf8))
        #expect(report.rssi == nil)
        let evidence = ESPresenseEvidence(report, pathLossExponent: 1.5)
        // rssi@1m − 10·2.7·log10(2) = −59 − 8.13
        #expect(abs(evidence.rssi - (-67.127)) < 0.01)
    }

    @Test func evidenceIsOnTheAgentsScale() throws {
        let report = ESPresenseReport(deviceID: "x", rssi: -74, rssiAt1m: -59, distance: 3.6)
        let evidence = ESPresenseEvidence(report, pathLossExponent: 1.5)
        // The decision scores −10·n·log10(distance): exactly rssi − rssi@1m.
        #expect(abs(-15 * log10(evidence.distance) - (-15)) < 1e-9)
        #expect(evidence.proximity == .far)
        #expect(ESPresenseEvidence(ESPresenseReport(deviceID: "x", rssi: -50, rssiAt1m: -59, distance: 0.5), pathLossExponent: 1.5).proximity == .immediate)
    }

    @Test func malformedReportsAreRefusedWithTheirReason() {
        let cases: [(String, String)] = [
            ("", "not JSON"),
            ("[1,2]", "expected a JSON object"),
            (#"{"rssi":-70}"#, "id: required"),
            (#"{"id":5,"rssi":-70}"#, "id: required"),
            (#"{"id":"iBeacon:x","rssi":"loud"}"#, "rssi: expected a number"),
            (#"{"id":"iBeacon:x","rssi":-500}"#, "rssi: -500 is out of range"),
            (#"{"id":"iBeacon:x","rssi@1m":-59}"#, "rssi: required unless distance"),
            (#"{"id":"iBeacon:x","rssi":-70,"distance":-1}"#, "distance: -1"),
            (String(repeating: "[", count: 100), "not JSON"),
        ]
        for (text, reason) in cases {
            #expect(throws: ForeignMessageError.self, "\(text)") { try ESPresenseReport(payload: Array(text.utf8)) }
            do {
                _ = try ESPresenseReport(payload: Array(text.utf8))
            } catch {
                #expect(error.description.contains(reason), "\(text): \(error)")
            }
        }
    }

    // MARK: Gateway adverts

    @Test func aRawIBeaconAdvertGoesThroughOurDecoder() throws {
        let advert = try GatewayAdvert(payload: Array(P.theengsRaw(rssi: -70, manufacturerData: P.iBeaconData(major: 5, minor: 6)).utf8))
        #expect(advert.identity.map(BeaconID.init) == P.iBeacon(major: 5, minor: 6))
        #expect(advert.measuredPower == -59)
        #expect(advert.rssi == -70)
        #expect(advert.address == BluetoothAddress("c4:a1:b2:c3:d4:e5"))
        #expect(advert.addressType == nil)
    }

    @Test func aDecodedIBeaconAdvertUsesTheGatewaysFields() throws {
        let advert = try GatewayAdvert(payload: Array(P.theengsIBeacon(rssi: -66, major: 5, minor: 6).utf8))
        #expect(advert.identity.map(BeaconID.init) == P.iBeacon(major: 5, minor: 6))
        #expect(advert.measuredPower == -59)
        // The decoder reads the power byte unsigned.
        let unsigned = try GatewayAdvert(payload: Array(P.theengsIBeacon(rssi: -66, major: 5, minor: 6, txpower: 197).utf8))
        #expect(unsigned.measuredPower == -59)
    }

    @Test func altBeaconAndEddystoneFromRawData() throws {
        let alt = try GatewayAdvert(payload: Array(P.openMQTTGateway(
            address: "C4:A1:B2:C3:D4:E6", macType: 0, rssi: -80,
            manufacturerData: "1801beac2f234454cf6d4a0fadf2f4911ba9ffa600010002c500").utf8))
        #expect(alt.identity.map(BeaconID.init) == "altbeacon-2f234454cf6d4a0fadf2f4911ba9ffa600010002")
        #expect(alt.addressType == .public)
        let eddystone = try GatewayAdvert(payload: Array(P.openMQTTGateway(
            address: "C4:A1:B2:C3:D4:E7", macType: 1, rssi: -80,
            serviceData: "00e712345678901234678901000000000001", serviceUUID: "feaa").utf8))
        #expect(eddystone.identity.map(BeaconID.init) == "eddystone-12345678901234678901-000000000001")
    }

    @Test func anAdvertWithNoBeaconHasNoIdentity() throws {
        let phone = try GatewayAdvert(payload: Array(P.openMQTTGateway(
            address: P.phoneAddress(prand: 0x12345).description.uppercased(), macType: 1, rssi: -60,
            manufacturerData: "4c0010050b1c6a4f2e").utf8))
        #expect(phone.identity == nil)
        #expect(phone.addressType == .random)
    }

    @Test func malformedAdvertsAreRefusedWithTheirReason() {
        let cases: [(String, String)] = [
            ("{", "not JSON"),
            (#"{"rssi":-70}"#, "id: expected the advertiser's address"),
            (#"{"id":"not-an-address","rssi":-70}"#, "id: expected"),
            (#"{"id":"C4:A1:B2:C3:D4:E5","rssi":-70.5}"#, "rssi: expected a whole number"),
            (#"{"id":"C4:A1:B2:C3:D4:E5","rssi":-200}"#, "rssi: -200"),
            (#"{"id":"C4:A1:B2:C3:D4:E5","rssi":-70,"manufacturerdata":"4c0"}"#, "manufacturerdata: expected an even number"),
            (#"{"id":"C4:A1:B2:C3:D4:E5","rssi":-70,"manufacturerdata":"zz"}"#, "manufacturerdata: expected"),
            (#"{"id":"C4:A1:B2:C3:D4:E5","rssi":-70,"servicedata":"00e7"}"#, "servicedatauuid: required"),
            (#"{"id":"C4:A1:B2:C3:D4:E5","rssi":-70,"mac_type":7}"#, "mac_type: 7 is not an address type"),
            (#"{"id":"C4:A1:B2:C3:D4:E5","rssi":-70,"model_id":"IBEACON","uuid":"x","major":1,"minor":2}"#, "uuid: expected"),
            (#"{"id":"C4:A1:B2:C3:D4:E5","rssi":-70,"model_id":"IBEACON","uuid":"fda50693a4e24fb1afcfc6eb07647825","major":65536,"minor":2}"#, "major: 65536 is out of range"),
            // The decoder writes −32768…−1 for 32768…65535 (GatewayFixtureTests); below that no decoder writes.
            (#"{"id":"C4:A1:B2:C3:D4:E5","rssi":-70,"model_id":"IBEACON","uuid":"fda50693a4e24fb1afcfc6eb07647825","major":1,"minor":-32769}"#, "minor: -32769 is out of range"),
        ]
        for (text, reason) in cases {
            do {
                _ = try GatewayAdvert(payload: Array(text.utf8))
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.description.contains(reason), "\(text): \(error)")
            }
        }
    }
}
