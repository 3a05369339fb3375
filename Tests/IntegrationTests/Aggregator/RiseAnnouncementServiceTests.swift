import BeaconCore
import Foundation
import Logging
import MQTTClient
import PresenceAggregator
import RoomDecisions
import TestSupport
import Testing

/// Issue 40, seventh round: our agents announce in their retained info that they report the rises
/// of worn beacons (`riseReports: true`), so an aggregator started after them (a restart) gives a
/// worn beacon they hear the rise rule at once, before any rise arrives. What a user sees: a
/// wristband whose room leads for a few seconds without a rise (the wearer turned, no move) stays
/// where it is; without the announcement the worn profile's fast clock flaps it to that room.
@Suite(.serialized) struct RiseAnnouncementServiceTests {
    static let nodes = [("kitchen-1", "kitchen"), ("living-1", "living")]

    /// The worn band in the kitchen, then the living room's node 4 m nearer than the kitchen's for 4 s with
    /// no rise (a turn), back in the kitchen for 8 s, then a real move to the living room held for 16 s.
    /// Returns when the band's location first said `living` (its `since`) and when the turn began.
    private func firstHall(_ aggregator: LiveAggregator, _ reader: MessageReader) async throws -> (since: String, turn: Instant) {
        func hear(kitchen: Double, living: Double, count: Int) async throws {
            for _ in 0..<count {
                try await aggregator.measure(beaconID, [("kitchen-1", "kitchen", kitchen), ("living-1", "living", living)], alias: "alice-band")
                try await aggregator.advance(by: 0.5)
            }
        }
        func room(_ message: MQTTMessage) -> String? { try? object(message).string("room") }
        try await hear(kitchen: 1, living: 4, count: 4)
        #expect(try await reader.until { room($0) == "kitchen" }.count == 1)
        let turn = aggregator.clock.now()
        try await hear(kitchen: 5, living: 1, count: 8)
        try await hear(kitchen: 1, living: 4, count: 16)
        try await hear(kitchen: 5, living: 1, count: 32)
        let living = try object(try await reader.until { room($0) == "living" }.last!)
        return (try #require(living.string("since")), turn)
    }

    private func run(announced: Bool) async throws -> (since: String, turn: Instant) {
        let broker = try await TestBroker.start()
        try broker.mosquittoPub(
            topic: "presence/config/beacons",
            message: #"{"revision":1,"beacons":[{"beacon":"\#(beaconID)","id":"alice-band","worn":true}]}"#, qos: 1, retain: true)
        let client = try await observer(broker)
        var result = (since: "", turn: startTime)
        func decide() async throws {
            // Started after the agents, as after a restart: their info is retained on the broker.
            let band = MessageReader(try await client.subscribe("presence/locations/alice-band"))
            let aggregator = try await LiveAggregator.start(on: broker, client: client)
            let service = aggregator.service
            try await eventually("the retained list and the nodes' info handled") {
                service.statistics.pushedBeaconLists == 1 && service.statistics.nodeInfos >= (announced ? Self.nodes.count : 0)
            }
            result = try await firstHall(aggregator, band)
            try await aggregator.stop()
        }
        if announced {
            // The real agents (the simulator's demo building, whose clock never moves: they connect
            // and publish their retained status and info, and hear nothing).
            try await SimulatedAgents.run(on: broker, nodes: Self.nodes, clock: ManualClock(now: startTime)) { _ in
                let infos = MessageReader(try await client.subscribe("presence/nodes/+/info"))
                var announcing = Set<String>()
                while announcing.count < Self.nodes.count {
                    let info = try object(try await infos.next())
                    // The agent's own retained info says it reports rises.
                    if info["riseReports"] == .bool(true), let node = info.string("node") { announcing.insert(node) }
                }
                try await decide()
            }
        } else {
            try await decide()
        }
        return result
    }

    @Test func anAggregatorStartedAfterItsAgentsGivesTheirWornBeaconTheRiseRuleAtOnce() async throws {
        // Announced: a 4-s lead with no rise is no move (the rise rule has no fast clock); the
        // band goes to the living room on the real move, after the rule's 10-s dwell.
        func after(_ turn: Instant, _ seconds: Double) -> String { ISO8601Timestamp.string(from: Instant(seconds: turn.seconds + seconds)) }
        let announced = try await run(announced: true)
        #expect(announced.since >= after(announced.turn, 12 + 10), "first in the living room at \(announced.since)")
        // Not announced (agents older than the field, or their info not yet read): the worn
        // profile's fast clock takes the 4-s lead as a move.
        let learned = try await run(announced: false)
        #expect(learned.since < after(learned.turn, 4), "first in the living room at \(learned.since)")
    }
}
