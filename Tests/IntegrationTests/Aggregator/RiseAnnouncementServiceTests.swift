import BeaconCore
import Foundation
import Logging
import MQTTClient
import PresenceAgent
import PresenceAggregator
import RoomDecisions
import ServiceLifecycle
import TestSupport
import Testing

/// Issue 40, seventh round: our agents announce in their retained info that they report the rises
/// of worn beacons (`riseReports: true`), so an aggregator started after them (a restart) gives a
/// worn beacon they hear the rise rule at once, before any rise arrives. What a user sees: a
/// wristband whose room leads for a few seconds without a rise (the wearer turned, no move) stays
/// where it is; without the announcement the worn profile's fast clock flaps it to that room.
@Suite(.serialized) struct RiseAnnouncementServiceTests {
    static let nodes = [("kitchen-1", "kitchen"), ("living-1", "living")]

    /// The real agents (the simulator's demo building, whose clock never moves: they connect and
    /// publish their retained status and info, and hear nothing) until `body` returns.
    private func withAgents(_ broker: TestBroker, _ body: () async throws -> Void) async throws {
        let work = try TestBroker.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let clock = ManualClock(now: startTime)
        let agents = try Self.nodes.map { node, room in
            var configuration = AgentConfiguration()
            configuration.node = node
            configuration.room = room
            configuration.broker = "mqtt://127.0.0.1:\(broker.port)"
            configuration.stateDir = work + "/state-\(node)"
            configuration.source = "simulate"
            return AgentService(configuration: try configuration.resolve(), logger: quietLogger, version: "test", clock: clock)
        }
        let group = ServiceGroup(configuration: .init(services: agents.map { .init(service: $0) }, logger: quietLogger))
        let stopped = Flag()
        let run = Task {
            defer { stopped.set() }
            try await group.run()
        }
        func stop() async {
            await group.triggerGracefulShutdown()
            // The simulated sources asleep on the clock see the stop when they wake.
            for _ in 0..<40 where !stopped.isSet {
                clock.advance(by: 0.25)
                try? await eventually("the agents to stop", timeout: .milliseconds(250)) { stopped.isSet }
            }
        }
        do {
            try await body()
        } catch {
            await stop()
            _ = try? await run.value
            throw error
        }
        await stop()
        #expect(stopped.isSet, "the agents did not stop")
        try await run.value
    }

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
            try await withAgents(broker) {
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
