import BeaconCore
import PresenceAggregator
import TestSupport
import Testing

/// Every message of `GatewayFixture` — what Theengs Gateway and OpenMQTTGateway publish for the
/// capture's reports and made-up adverts, made by their own code — read as the aggregator reads a
/// gateway's advert: never refused, and the identity the advert's bytes carry.
@Suite struct GatewayFixtureTests {
    typealias P = ForeignNodePayloads

    @Test func everyMessageTheGatewaysPublishIsReadWithTheIdentityItsBytesCarry() throws {
        let adverts = try GatewayFixture.adverts()
        #expect(adverts.count > 60)
        var checked = 0
        for advert in adverts {
            let expected = advert.expect.map { BeaconID(rawValue: $0) }
            #expect(advert.expect == nil || expected?.components != nil, "\(advert.source): \(advert.expect ?? "")")
            for (gateway, message) in advert.theengs.map({ ("Theengs Gateway", $0) }) + advert.openMQTTGateway.map({ ("OpenMQTTGateway", $0) }) {
                let read: GatewayAdvert
                do {
                    read = try GatewayAdvert(payload: Array(message.payload.utf8))
                } catch {
                    Issue.record("\(advert.source), \(gateway): refused (\(error)): \(message.payload)")
                    continue
                }
                #expect(read.address == BluetoothAddress(advert.address), "\(advert.source), \(gateway)")
                #expect(message.topic.hasSuffix("/BTtoMQTT/" + advert.address.filter { $0 != ":" }), "\(message.topic)")
                // OpenMQTTGateway leaves the advertising data out by default (`pubadvdata` off): of
                // the beacons it names only the iBeacons its decoder knows; AltBeacon and Eddystone
                // reach the aggregator only with `pubadvdata` on.
                let seen = gateway == "OpenMQTTGateway" && read.identity == nil && !(advert.expect ?? "").hasPrefix("ibeacon-") ? nil : expected
                #expect(read.identity == seen?.components, "\(advert.source), \(gateway): \(message.payload)")
                checked += 1
            }
        }
        #expect(checked > 100)
    }

    /// The capture's Govee iBeacons (minor 62207, which the decoder writes as −3329) and the
    /// made-up ones above 32767, as Theengs Gateway publishes them: the beacon, and its power at 1 m.
    @Test func iBeaconsAbove32767AreTheirOwnNumbers() throws {
        let adverts = try GatewayFixture.adverts()
        let govee = adverts.filter { $0.source.hasPrefix("capture record") && $0.expect != nil }
        #expect(govee.count == 11)
        #expect(govee.filter { $0.expect!.hasSuffix("-20594-62207") }.count == 10)
        for advert in govee {
            let message = try #require(advert.theengs.first)
            #expect(message.payload.contains(#""minor": -3329"#))
            let read = try GatewayAdvert(payload: Array(message.payload.utf8))
            #expect(read.identity == BeaconID(rawValue: advert.expect!).components)
            #expect(read.measuredPower == -62)
        }
        for (source, power) in [("iBeacon major 65535 minor 65535", -59), ("iBeacon major 32768 minor 62207", -59)] {
            let advert = try #require(adverts.first { $0.source == source })
            let read = try GatewayAdvert(payload: Array(try #require(advert.theengs.first).payload.utf8))
            #expect(read.identity == BeaconID(rawValue: advert.expect!).components)
            #expect(read.measuredPower == power)
        }
        // A power byte without its top bit is written as `volt`: no power at 1 m is read.
        let volt = try #require(adverts.first { $0.source.hasPrefix("iBeacon measured power byte 0x3c") })
        #expect(try GatewayAdvert(payload: Array(try #require(volt.theengs.first).payload.utf8)).measuredPower == nil)
    }

    /// A phone on a resolvable private address (the Core spec's sample, of the sample key): what the
    /// gateways publish of it resolves to its device; an iPhone's Nearby Info they drop themselves.
    @Test func aPhonesAddressAsTheGatewaysPublishItResolves() throws {
        let phone = try GatewayFixture.adverts().filter { $0.source.hasPrefix("phone") }
        #expect(phone.count == 3)
        #expect(phone.first { $0.source.contains("Apple") }.map { $0.theengs.isEmpty && $0.openMQTTGateway.isEmpty } == true)
        let known = ForeignKnownBeacons([KnownBeacon(beacon: P.sampleKeyID, alias: TopicLevelID("alice-phone"), name: "Alice's phone")])
        var resolved = 0
        for message in phone.flatMap({ $0.theengs + $0.openMQTTGateway }) {
            var source = GatewaySource(settings: [GatewaySettings(topic: "home/+/BTtoMQTT/+", room: "office")], followUnknown: false, known: known)
            source.setIdentityKeys([(P.crypto.addressHash(for: P.sampleKey), P.sampleKeyID.components!)])
            guard case .used(let inputs) = source.receive(topic: message.topic, payload: Array(message.payload.utf8), at: startTime) else {
                Issue.record("not used: \(message.payload)")
                continue
            }
            let beacons = inputs.compactMap { if case .measurement(let m) = $0 { m.beacon } else { nil } }
            #expect(beacons == [P.sampleKeyID], "\(message.payload)")
            resolved += 1
        }
        #expect(resolved == 4)
    }

    /// The payloads the other tests write (`ForeignNodePayloads`) are byte for byte what Theengs
    /// Gateway publishes for the same advert.
    @Test func theTestsHelpersWriteWhatTheengsGatewayPublishes() throws {
        let adverts = try GatewayFixture.adverts()
        let decoded = try #require(adverts.first { $0.source == "iBeacon major 32768 minor 62207" }?.theengs.first)
        #expect(decoded.payload == P.theengsIBeacon(rssi: -62, major: 32768, minor: 62207))
        let raw = try #require(adverts.first { $0.source.hasPrefix("AltBeacon") }?.theengs.first)
        #expect(raw.payload.hasPrefix(P.theengsRaw(address: "D0:11:22:33:44:55", rssi: -70,
            manufacturerData: "1801beacfda50693a4e24fb1afcfc6eb076478250001c350c500").dropLast()))
    }

    /// Raw data, where it came, is the authority over the decoded fields.
    @Test func rawManufacturerDataWinsOverDecodedFields() throws {
        let raw = P.iBeaconData(major: 62207, minor: 1)
        let both = #"{"id":"C4:A1:B2:C3:D4:E5","manufacturerdata":"\#(raw)","rssi":-60,"model_id":"IBEACON","uuid":"fda50693a4e24fb1afcfc6eb07647825","major":1,"minor":2,"txpower":-59}"#
        #expect(try GatewayAdvert(payload: Array(both.utf8)).identity == P.iBeacon(major: 62207, minor: 1).components)
        let notABeacon = #"{"id":"C4:A1:B2:C3:D4:E5","manufacturerdata":"4c0010050b1c6a4f2e","rssi":-60,"model_id":"IBEACON","uuid":"fda50693a4e24fb1afcfc6eb07647825","major":1,"minor":2}"#
        #expect(try GatewayAdvert(payload: Array(notABeacon.utf8)).identity == nil)
    }

    /// What no decoder writes is refused naming the field: a value out of range, a wrong type.
    @Test func outOfRangeAndWrongTypesNameTheirField() {
        func error(_ fields: String) -> ForeignMessageError? {
            let payload = #"{"id":"C4:A1:B2:C3:D4:E5","rssi":-60,"model_id":"IBEACON","uuid":"fda50693a4e24fb1afcfc6eb07647825",\#(fields)}"#
            do {
                _ = try GatewayAdvert(payload: Array(payload.utf8))
                return nil
            } catch {
                return error
            }
        }
        #expect(error(#""major":70000,"minor":1"#)?.field == "major")
        #expect(error(#""major":1,"minor":-32769"#)?.field == "minor")
        #expect(error(#""major":1,"minor":"62207""#)?.field == "minor")
        #expect(error(#""major":1"#)?.field == "minor")
        #expect(error(#""major":1,"minor":2,"txpower":"-59""#)?.field == "txpower")
        #expect(error(#""major":-32768,"minor":65535"#) == nil)
    }
}
