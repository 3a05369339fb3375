import BeaconCore
import Foundation
import MQTTClient
import PresenceAggregator
import RoomDecisions
import TestSupport
import Testing

/// A recorded home replays as it was decided live: a live aggregator on a real mosquitto receives a
/// worn wristband's measurements, records them as `run --record` does (`MeasurementRecorder`), and
/// `presence-aggregator replay --trace` of that file, with the same `--config` marking the band
/// worn, gives the same rooms at the same times. The measurements are what two agents publish: each
/// node's real `BeaconTrack` on a walk, written as the agent writes them (`MeasurementPayload`). Time is the
/// service's clock; it moves only to the moments the nodes publish (in steps of at most a second,
/// as the replay ticks), so live and replay tick at the same instants.
@Suite(.serialized) struct WornRecordReplayTests {
    private static let band = BeaconID(rawValue: "mac-c4a1b2c3d4e5")

    /// One node's publication: its topic's node and the payload an agent would send.
    private struct Publication {
        var node: String
        var json: String
    }

    /// The walk: the kitchen for 20 s, the hall for 20 s (its node shadowed by the body for 6 s of
    /// it, 12 dB down), the kitchen again for 20 s; each node hears the band every 0.25 s, ±2 dB.
    /// Returns, per time the nodes published (seconds from the start), what they sent.
    private static func walk() -> [(time: Double, publications: [Publication])] {
        let nodes = [("k1", "kitchen"), ("h1", "hall")]
        var tracks = nodes.map { _ in BeaconTrack(parameters: .default, worn: true) }
        let wobble = [0, 2, -1, 1, -2, 0, 1, -1, 2, -2, 1]
        var schedule: [(time: Double, publications: [Publication])] = []
        for step in 0..<240 {
            let t = Double(step) * 0.25
            let inHall = t >= 20 && t < 40
            let shadowed = t >= 28 && t < 34
            var sent: [Publication] = []
            for (index, (node, room)) in nodes.enumerated() {
                let near = index == 0 ? !inHall : inHall
                let level = (near ? -60 : -78) - (near && shadowed ? 12 : 0) + wobble[(step + 5 * index) % wobble.count]
                let time = Instant(seconds: startTime.seconds + t)
                let update = tracks[index].observe(rssi: level, measuredPower: -59, at: time)
                guard update.shouldPublish else { continue }
                let payload = MeasurementPayload(
                    id: "alice-band", beacon: band, node: node, room: room, rssi: update.rssi,
                    rssiFiltered: update.rssiFiltered, sigma: update.sigma, measuredPower: -59, distance: update.distance,
                    proximity: update.proximity, address: nil, timestamp: time)
                sent.append(Publication(node: node, json: payload.json))
            }
            if !sent.isEmpty { schedule.append((t, sent)) }
        }
        return schedule
    }

    /// `replay --trace FILE --config CONFIG`'s decisions as (time, room), the time as the live
    /// location's `since` shows it.
    private func replay(_ trace: String, config: String) throws -> [(since: String, room: String)] {
        let tool = try BuildProducts.executable(named: "presence-aggregator")
        let result = try ToolRunner.run(tool, ["replay", "--trace", trace, "--config", config], separateErrors: true)
        #expect(result.status == 0, "\(result.errors)")
        return result.output.split(separator: "\n").dropFirst().map { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return (ISO8601Timestamp.string(from: Instant(seconds: Double(fields[0]) ?? .nan)), fields[2])
        }
    }

    @Test func aRecordedWornWalkReplaysAsItWasDecidedLive() async throws {
        let broker = try await TestBroker.start()
        let work = try TestBroker.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let config = work + "/aggregator.yaml"
        try """
            beacons:
              - {beacon: \(Self.band), id: alice-band, worn: true}
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let configuration = try AggregatorConfiguration.load(
            file: config, environment: [:],
            flags: [.broker: "mqtt://\(broker.host):\(broker.port)", .clientID: "aggregator-under-test"])
        let record = work + "/walk.trace.csv"
        let client = try await observer(broker)
        let locations = MessageReader(try await client.subscribe("presence/locations/alice-band"))
        // `run --record FILE` gives the service this recorder; the file's settings, the defaults' rules.
        let aggregator = try await LiveAggregator.start(on: broker, client: client, recorder: try MeasurementRecorder(path: record)) {
            $0 = configuration
        }
        let service = aggregator.service

        // The walk, published as the two agents would, at the times they publish.
        var now = 0.0
        for (time, publications) in Self.walk() {
            try await aggregator.advance(by: time - now)
            now = time
            let before = service.statistics.measurements
            for publication in publications {
                try client.publish(topic: configuration.topics.measurement("alice-band", TopicLevelID(publication.node)!),
                                   string: publication.json, qos: .atLeastOnce)
            }
            try await eventually("\(publications.count) measurements handled") {
                service.statistics.measurements >= before + publications.count
            }
        }
        // The record carries every measurement's advert.
        let lines = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n")
        #expect(lines.first.map(String.init) == ReplayCSV.recordHeader)
        #expect(lines.count > 10 && lines.dropFirst().allSatisfy { !$0.hasSuffix(",") }, "every row has its rssiAdvert")

        // Replayed with the same configuration: the same rooms, entered at the same times.
        let replayed = try replay(record, config: config)
        var live: [(since: String, room: String)] = []
        while live.count < replayed.count {
            let location = try object(try await locations.next())
            let room = try #require(location.string("room")), since = try #require(location.string("since"))
            if live.last?.room != room { live.append((since, room)) }
        }
        #expect(live.map(\.room) == replayed.map(\.room))
        #expect(live.map(\.since) == replayed.map(\.since))
        #expect(replayed.map(\.room) == ["kitchen", "hall", "kitchen"])
        try await aggregator.stop()
    }
}
