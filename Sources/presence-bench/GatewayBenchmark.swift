import BeaconCore
import Foundation
import PresenceAggregator

/// Issue 29's figure: BLE-to-MQTT gateway adverts a second through the aggregator's foreign source
/// and its core, on one core, without the broker: each advert is a gateway's JSON as Theengs
/// Gateway publishes it (raw manufacturer data), parsed, decoded by our decoder, tracked by our
/// filter and publish policy, and what a virtual agent would publish is decided by the core.
enum GatewayBenchmark {
    struct Result {
        var advertsPerSecond: Double
        var adverts: Int
        var measurements: Int
        var publications: Int
    }

    static func run(beacons: Int, gateways: Int, adverts: Int) -> Result {
        let uuid = "fda50693a4e24fb1afcfc6eb07647825"
        var configuration = AggregatorConfiguration.default
        configuration.homeAssistantDiscovery = false
        configuration.sources.followUnknown = true
        var rooms: [String: String] = [:]
        for gateway in 0..<gateways { rooms["gw-\(gateway)"] = "room-\(gateway % 5)" }
        configuration.sources.gateways = [GatewaySettings(topic: "home/+/BTtoMQTT/+", rooms: rooms)]
        var core = AggregatorCore(configuration: configuration, softwareVersion: "bench")
        var foreign = ForeignSources(configuration: configuration)

        // Pre-rendered messages: each beacon heard by every gateway, RSSI varying as a real one does.
        var messages: [(topic: String, payload: [UInt8])] = []
        var random = SystemRandomNumberGenerator()
        for beacon in 0..<beacons {
            let major = beacon / 65_536, minor = beacon % 65_536
            let address = String(format: "C4:A1:%02X:%02X:%02X:%02X", (beacon >> 24) & 0xFF, (beacon >> 16) & 0xFF, (beacon >> 8) & 0xFF, beacon & 0xFF)
            let data = "4c000215" + uuid + String(format: "%04x%04x", major, minor) + "c5"
            for gateway in 0..<gateways {
                for _ in 0..<4 {
                    let rssi = -60 - (beacon + gateway * 7) % 25 - Int.random(in: 0...4, using: &random)
                    let payload = #"{"manufacturerdata":"\#(data)","id":"\#(address)","rssi":\#(rssi)}"#
                    messages.append(("home/gw-\(gateway)/BTtoMQTT/" + address.replacingOccurrences(of: ":", with: ""), Array(payload.utf8)))
                }
            }
        }
        messages.shuffle(using: &random)

        var measurements = 0
        var publications = 0
        // Every beacon sends about 10 adverts a second: time advances with the adverts.
        let secondsPerAdvert = 1.0 / (10.0 * Double(beacons * gateways))
        var now = Instant(seconds: 1_000_000)
        var nextTick = now.seconds + 1
        let start = DispatchTime.now().uptimeNanoseconds
        for index in 0..<adverts {
            let message = messages[index % messages.count]
            now = Instant(seconds: now.seconds + secondsPerAdvert)
            if case .used(let inputs) = foreign.receive(topic: message.topic, payload: message.payload, at: now) {
                for case .measurement(let measurement) in inputs {
                    measurements += 1
                    publications += core.receive(measurement, at: now).count
                }
            }
            if now.seconds >= nextTick {
                nextTick += 1
                publications += core.tick(at: now).count
                for case .measurement(let measurement) in foreign.tick(at: now) {
                    publications += core.receive(measurement, at: now).count
                }
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Result(advertsPerSecond: Double(adverts) / seconds, adverts: adverts, measurements: measurements, publications: publications)
    }
}
