import BeaconCore
import Foundation
import MQTTClient
import PresenceAggregator
import TestSupport
import Testing

/// Issue 40, eighth round, over a real broker: a worn band's rise report short of the rise rule's
/// lead makes the aggregator ask the held room's node for its level now
/// (`presence/nodes/<node>/level`), and the node's answer (`levelRssi`) moves the band at once. The
/// nodes are played by the test (the agent's side is `AgentLevelQueryServiceTests`).
@Suite(.serialized) struct LevelQueryServiceTests {
    static let nodes = [("kitchen-1", "kitchen"), ("hall-1", "hall")]

    /// A measurement of the band as our agent publishes it; `extra` adds members.
    func measurement(_ node: String, _ room: String, rssi: Int, distance: Double, _ extra: String = "") -> String {
        let filtered = room == "hall" ? -75 : -70
        return #"{"id":"alice-band","beacon":"\#(beaconID.rawValue)","node":"\#(node)","room":"\#(room)","rssi":\#(rssi),"rssiFiltered":\#(filtered).0,"sigma":1.5,"measuredPower":-59,"distance":\#(distance),"proximity":"near","timestamp":"2025-11-22T08:00:00Z"\#(extra)}"#
    }

    @Test func aRiseShortOfTheLeadAsksTheHeldRoomsNodeAndItsAnswerMovesTheBand() async throws {
        let broker = try await TestBroker.start()
        try broker.mosquittoPub(
            topic: "presence/config/beacons",
            message: #"{"revision":1,"beacons":[{"beacon":"\#(beaconID)","id":"alice-band","worn":true}]}"#, qos: 1, retain: true)
        for (node, room) in Self.nodes {
            // Our agents' retained info: they report rises (and so answer level queries).
            try broker.mosquittoPub(
                topic: "presence/nodes/\(node)/info",
                message: #"{"node":"\#(node)","room":"\#(room)","version":"test","riseReports":true}"#, qos: 1, retain: true)
        }
        let client = try await observer(broker)
        let band = MessageReader(try await client.subscribe("presence/locations/alice-band/room"))
        let queries = MessageReader(try await client.subscribe("presence/nodes/+/level"))
        let aggregator = try await LiveAggregator.start(on: broker, client: client)
        let service = aggregator.service
        try await eventually("the retained list and the nodes' info handled") {
            service.statistics.pushedBeaconLists == 1 && service.statistics.nodeInfos >= Self.nodes.count
        }
        func publish(_ node: String, _ payload: String) async throws {
            let before = service.statistics.measurements + service.statistics.malformedMeasurements
            try client.publish(topic: "presence/beacons/alice-band/\(node)", string: payload, qos: .atLeastOnce)
            try await eventually("the measurement handled") {
                service.statistics.measurements + service.statistics.malformedMeasurements > before
            }
        }
        // The band in the kitchen: its node 1 m away, the hall's 4 m.
        for _ in 0..<8 {
            try await publish("kitchen-1", measurement("kitchen-1", "kitchen", rssi: -70, distance: 1))
            try await publish("hall-1", measurement("hall-1", "hall", rssi: -75, distance: 4))
            try await aggregator.advance(by: 0.5)
        }
        #expect(try await band.until { text($0) == "kitchen" }.count == 1)
        // The hall's node reports a rise to −63: as scores 3 dB over the kitchen's last published
        // level, 2 dB short of the rise rule's lead.
        try await publish("hall-1", measurement("hall-1", "hall", rssi: -63, distance: 4, #","rise":8.0,"riseRssi":-63.0"#))
        let query = try await queries.next()
        #expect(query.topic == "presence/nodes/kitchen-1/level")
        #expect(text(query) == #"{"beacon":"\#(beaconID.rawValue)"}"#)
        // The kitchen's node answers: it heard nothing of the band in its last second.
        try await publish("kitchen-1", measurement("kitchen-1", "kitchen", rssi: -70, distance: 1, #","levelRssi":null"#))
        #expect(text(try await band.next()) == "hall")
        try await aggregator.stop()
    }
}
