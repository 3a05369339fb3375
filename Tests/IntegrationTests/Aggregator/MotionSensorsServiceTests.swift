import BeaconCore
import Foundation
import Logging
import MQTTClient
import PresenceAggregator
import RoomDecisions
import ServiceLifecycle
import TestSupport
import Testing

/// Issue 37 against a real mosquitto: a Zigbee2MQTT-shaped PIR in the hall and an ESPresense-shaped
/// one in the office feed the aggregator as those projects publish (Zigbee2MQTT: JSON with
/// `occupancy` on `zigbee2mqtt/<name>`, availability on `.../availability`; ESPresense: `ON`/`OFF`
/// on `espresense/rooms/<node>/motion`). Time is the service's injected clock.
@Suite(.serialized) struct MotionSensorsServiceTests {
    static let alice = KnownBeacon(beacon: beaconID, alias: TopicLevelID("alice-keys"), name: "Alice's keys")
    static let bob = KnownBeacon(beacon: otherBeaconID, alias: TopicLevelID("bob-keys"), name: "Bob's keys")

    @Test func bothSensorShapesReachTheDecisionAndLeaveAnotherBeaconWhereItIs() async throws {
        let broker = try await TestBroker.start()
        let client = try await observer(broker)
        let rooms = try await TopicRecorder.start(broker, filter: "presence/locations/+/room", clientID: "rooms")
        let aggregator = try await LiveAggregator.start(on: broker, client: client) {
            $0.knownBeacons = [Self.alice, Self.bob]
            $0.motion = [MotionSensorSettings(topic: "zigbee2mqtt/hall-pir", room: "hall"),
                         MotionSensorSettings(topic: "espresense/rooms/office/motion", room: "office")]
        }
        let service = aggregator.service
        func sensor(_ topic: String, _ payload: String) async throws {
            let before = service.statistics.motion.messages
            try client.publish(topic: topic, string: payload, qos: .atLeastOnce, retain: true)
            try await eventually("motion message handled") { service.statistics.motion.messages > before }
        }
        /// Alice heard by the hall and office nodes, Bob by the kitchen's and the office's, for `seconds`.
        func walk(alice: (hall: Double, office: Double), seconds: Int) async throws {
            for _ in 0..<seconds {
                try await aggregator.measure(beaconID, [("hall-1", "hall", alice.hall), ("office-1", "office", alice.office)], alias: "alice-keys")
                try await aggregator.measure(otherBeaconID, [("kitchen-1", "kitchen", 1.5), ("office-1", "office", 7)], alias: "bob-keys")
                try await aggregator.advance(by: 1)
            }
        }
        @Sendable func roomsOf(_ id: String) -> [String] {
            rooms.messages.filter { $0.topic == "presence/locations/\(id)/room" }.map(\.text)
        }

        try await sensor("zigbee2mqtt/hall-pir", #"{"battery":100,"occupancy":true,"illuminance":31}"#)
        try await walk(alice: (1.5, 6.5), seconds: 3)
        try await eventually("both placed") { roomsOf("alice-keys") == ["hall"] && roomsOf("bob-keys") == ["kitchen"] }

        // A body fade: the office node 2.6 dB ahead of the hall's for 8 s. The hall PIR sees Alice
        // moving, but motion holds no room by default (a PIR stays on after its person has left,
        // and a hold slowed every real departure: the Room decisions article, "Motion"): the fade
        // moves her as it would without sensors.
        try await walk(alice: (4.0, 3.2), seconds: 8)
        try await eventually("Alice switched by the fade") { roomsOf("alice-keys") == ["hall", "office"] }

        // The hall sensor goes offline (Zigbee2MQTT's availability): the room's motion stops
        // counting, a change handed to the decision; so is the office's ESPresense PIR seeing her.
        var changes = service.statistics.motion.changes
        try await sensor("zigbee2mqtt/hall-pir/availability", #"{"state":"offline"}"#)
        #expect(service.statistics.motion.changes == changes + 1)
        changes = service.statistics.motion.changes
        try await sensor("espresense/rooms/office/motion", "ON")
        #expect(service.statistics.motion.changes == changes + 1)

        // An unreadable payload changes nothing and is counted; Bob never left the kitchen.
        try await sensor("espresense/rooms/office/motion", "maybe")
        #expect(service.statistics.motion.unreadable == 1)
        #expect(roomsOf("bob-keys") == ["kitchen"])
        try await aggregator.stop()
    }
}
