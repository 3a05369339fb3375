import BeaconCore
import Foundation
import Testing
@testable import PresenceAgent

/// Phones and watches known by their key in the agent itself: from its YAML file (a node without a
/// broker-pushed list) and from `config/beacons`, resolved across address changes as one track.
@Suite struct AgentKnownDevicesTests {
    static let key = "ec0234a357c8ad05341010a60a397d9b"

    func configuration(_ yaml: String) throws -> AgentConfiguration.Resolved {
        var configuration = AgentConfiguration()
        configuration.apply(yaml: "node: kitchen-1\nroom: kitchen\n" + yaml, file: "agent.yaml")
        return try configuration.resolve()
    }

    @Test func aPhoneInTheYAMLFileIsKnownUntilTheBrokerPushesAList() throws {
        let resolved = try configuration("beacons:\n  - { irk: \(Self.key), id: alice-phone, name: \"Alice's iPhone\" }\n")
        #expect(resolved.core.knownBeacons.map(\.beacon) == ["irk-54903897edb0"])
        let start = Instant(seconds: 1_800_000_000)
        var core = AgentCore(settings: resolved.core, at: start)
        let phone = BluetoothAddress("70:81:94:0d:fb:aa")!  // the spec's sample: resolves under the key
        #expect(published(core.observe(advert(phone, at: start))) == ["presence/beacons/alice-phone/kitchen-1"])
        // A pushed list replaces the file's: the phone is no longer known, its address not measured.
        _ = core.receiveConfiguration(
            topic: "presence/config/beacons", payload: Array(#"{"revision":1,"beacons":[]}"#.utf8), at: start + 1)
        #expect(published(core.observe(advert(phone, at: start + 2))).isEmpty)
        // Cleared: the file's list again.
        _ = core.receiveConfiguration(topic: "presence/config/beacons", payload: [], at: start + 3)
        #expect(published(core.observe(advert(phone, at: start + 4))) == ["presence/beacons/alice-phone/kitchen-1"])
    }

    @Test func checkConfigShowsTheDeviceByItsAliasWithItsLineAndNeverTheKey() {
        var configuration = AgentConfiguration()
        configuration.apply(yaml: "node: kitchen-1\nroom: kitchen\nbeacons:\n  - { irk: \(Self.key), id: alice-phone }\n",
                            file: "agent.yaml")
        let beacons = configuration.effectiveSettings.first { $0.key == "beacons" }
        #expect(beacons?.value == "alice-phone")
        #expect(beacons?.source == .file(path: "agent.yaml", line: 3))
        #expect(!configuration.effectiveSettings.contains { $0.value.contains("ec0234a3") })
    }

    /// Each error names the line of the entry or value at fault, as the aggregator's file does
    /// (one reader of `beacons:` lists for both programs), not the line of `beacons:`.
    @Test func yamlErrorsNameTheEntryAndNeverShowTheKey() {
        for (yaml, expected) in [
            ("beacons:\n  - { irk: \(Self.key.dropLast()), id: p }\n", "4: beacons[0].irk: has 31 hex digits, not 32"),
            ("beacons:\n  - { irk: \(Self.key) }\n", "4: beacons[0].id: required for a device known by its irk"),
            ("beacons:\n  - beacon: ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-1-2\n    id: kitchen\n    name: Kitchen\n"
                + "  - beacon: ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-1-3\n    id: Not An Id\n    name: Hall\n",
             "8: beacons[1].id: 'Not An Id' is not a valid id"),
            ("beacons: 3\n", "3: beacons: expected a list of beacons"),
        ] {
            do {
                _ = try configuration(yaml)
                Issue.record("accepted \(expected)")
            } catch {
                #expect(String(describing: error).contains("agent.yaml:" + expected), "\(error)")
                #expect(!String(describing: error).contains("ec0234a3"))
            }
        }
    }

    /// An LE Advertising Report from a random address with a phone's data (no beacon), decoded as the agent does.
    func advert(_ address: BluetoothAddress, at time: Instant) -> DecodedAdvertisement {
        let data: [UInt8] = [0x02, 0x01, 0x1A, 0x0A, 0xFF, 0x4C, 0x00, 0x10, 0x05, 0x01, 0x18, 0x44, 0x7A, 0x21]
        let report: [UInt8] = [0x02, 0x01, 0x00, 0x01] + address.bytes.reversed() + [UInt8(data.count)] + data + [UInt8(bitPattern: -60)]
        var decoder = AdvertisementDecoder()
        var decoded: [DecodedAdvertisement] = []
        decoder.decode(eventPacket: ([0x3E, UInt8(report.count)] + report)[...], at: time) { decoded.append($0) }
        return decoded[0]
    }

    func published(_ actions: [AgentAction]) -> [String] {
        actions.compactMap { if case .publish(let publication) = $0 { publication.topic } else { nil } }
    }
}
