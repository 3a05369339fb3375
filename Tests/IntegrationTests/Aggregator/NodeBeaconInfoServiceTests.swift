import BeaconCore
import Foundation
import MQTTClient
import PresenceAggregator
import TestSupport
import Testing

/// A site of our agents with no `nodeBeacons` configured: the aggregator learns each node's beacon
/// from its retained info, solves the calibration from what the nodes hear of each other, and
/// places neither beacon in a room.
@Suite(.serialized) struct NodeBeaconInfoServiceTests {
    @Test func nodesInfoStartsTheCalibration() async throws {
        let broker = try await TestBroker.start()
        let client = try await observer(broker)
        let work = try TestBroker.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let calibration = MessageReader(try await client.subscribe("presence/calibration"))
        let locations = MessageReader(try await client.subscribe("presence/locations/#"))
        let aggregator = try await LiveAggregator.start(on: broker, client: client) { $0.stateDir = work }
        let topics = aggregator.service.configuration.topics
        let nodes = [("kitchen-1", "kitchen"), ("hall-1", "hall")]
        for (node, room) in nodes {
            let info = #"{"node":"\#(node)","room":"\#(room)","version":"9.8.7","nodeBeacon":{"id":"\#(NodeBeacon(node: node).id.rawValue)","interval":1,"state":"advertising","measuredPower":-41}}"#
            try await client.publish(topic: topics.nodeInfo(TopicLevelID(node)!), string: info, qos: .atLeastOnce, retain: true)
                .acknowledged()
        }
        let service = aggregator.service
        try await eventually("both infos handled") { service.statistics.nodeInfos >= 2 }
        // Each node hears the other's beacon, once a second for a minute.
        for _ in 0..<40 {
            try await aggregator.measure(NodeBeacon(node: "hall-1").id, [("kitchen-1", "kitchen", 4.0)])
            try await aggregator.measure(NodeBeacon(node: "kitchen-1").id, [("hall-1", "hall", 4.0)])
            try await aggregator.advance(by: 1)
        }
        try await aggregator.advance(by: 61, step: 61)
        func namesBoth(_ message: MQTTMessage) -> Bool {
            (try? object(message))?.object("nodes").map { $0["kitchen-1"] != nil && $0["hall-1"] != nil } ?? false
        }
        _ = try await calibration.until(namesBoth)
        // Retained: a client subscribing now reads it.
        let retained = try await MessageReader(try await client.subscribe("presence/calibration")).next()
        #expect(retained.retain && namesBoth(retained))
        #expect(FileManager.default.fileExists(atPath: work + "/" + NodeCalibrationFile.name))
        // Neither node beacon got a location.
        #expect(service.statistics.measurements == 80)
        await #expect(throws: TimedOut.self) { _ = try await locations.next(timeout: .milliseconds(300)) }
        try await aggregator.stop()
    }
}
