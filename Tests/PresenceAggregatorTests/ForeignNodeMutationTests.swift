import BeaconCore
import PresenceAggregator
import TestSupport
import Testing

/// Whatever arrives on a foreign node's topic: valid messages cut, flipped and spliced, and random
/// bytes, through the sources as the service feeds them. Nothing may trap; every outcome is used,
/// ignored or rejected with a reason; a rejection never names a key.
@Suite struct ForeignNodeMutationTests {
    typealias P = ForeignNodePayloads

    @Test func mutatedMessagesNeverTrapAndRejectionsNeverNameAKey() {
        var random = SeededRandom(seed: 29)
        var configuration = AggregatorConfiguration.default
        configuration.sources.espresense = ESPresenseSettings(topic: "espresense")
        configuration.sources.gateways = [GatewaySettings(topic: "home/+/BTtoMQTT/+", room: "office")]
        configuration.sources.followUnknown = true
        var sources = ForeignSources(configuration: configuration)
        sources.setKnown([KnownBeacon(beacon: P.sampleKeyID, alias: TopicLevelID("alice-phone"))])
        let irk = "irk:\(P.sampleKeyHex)"
        let seeds: [(String, String)] = [
            ("espresense/devices/\(irk)/kitchen", P.espresense(id: irk, rssi: -66.5, name: "iPhone")),
            ("espresense/devices/iBeacon:\(P.uuid)-5-6/kitchen", P.espresense(id: "iBeacon:\(P.uuid)-5-6", rssi: -70)),
            ("espresense/rooms/kitchen/status", "offline"),
            ("espresense/rooms/kitchen/telemetry", #"{"ip":"10.0.0.2","uptime":12,"ver":"v4.1.6"}"#),
            ("home/gw-a/BTtoMQTT/C4A1B2C3D4E5", P.theengsRaw(rssi: -70, manufacturerData: P.iBeaconData(major: 5, minor: 6))),
            ("home/gw-a/BTtoMQTT/C4A1B2C3D4E5", P.theengsIBeacon(rssi: -70, major: 5, minor: 6)),
            ("home/gw-b/BTtoMQTT/C4A1B2C3D4E7", P.openMQTTGateway(address: "C4:A1:B2:C3:D4:E7", macType: 1, rssi: -80,
                                                                 serviceData: "00e712345678901234678901000000000001", serviceUUID: "feaa")),
        ]
        var outcomes = (used: 0, ignored: 0, rejected: 0)
        var time = startTime
        for round in 0..<20_000 {
            let (topic, text) = seeds[round % seeds.count]
            var bytes = Array(text.utf8)
            switch random.next() % 5 {
            case 0: bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count + 1))))
            case 1: for _ in 0..<1 + random.next() % 4 where !bytes.isEmpty { bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next()) }
            case 2: bytes = random.bytes(Int(random.next() % 300))
            case 3:
                let other = Array(seeds[Int(random.next() % UInt64(seeds.count))].1.utf8)
                bytes = Array(bytes.prefix(bytes.count / 2)) + Array(other.suffix(other.count / 2))
            default: break
            }
            time = time + 0.01
            switch sources.receive(topic: topic, payload: bytes, at: time) {
            case .used: outcomes.used += 1
            case .ignored: outcomes.ignored += 1
            case .rejected(let source, let error):
                outcomes.rejected += 1
                #expect(!error.description.lowercased().contains(P.sampleKeyHex) && !source.contains(P.sampleKeyHex), "\(error)")
            }
            if round % 100 == 0 { _ = sources.tick(at: time) }
        }
        #expect(outcomes.used > 1_000 && outcomes.rejected > 1_000)
    }
}
