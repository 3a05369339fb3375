import BeaconCore
import BluetoothHCI
import Foundation
import MQTTClient
import PresenceAggregator
import Testing
import TestSupport

/// Issue 40's level query end to end (docs/MQTT.md, `<root>/nodes/<node>/level`): two real agents
/// hear a scripted building (`simulate`) and the real aggregator decides, on one real mosquitto and
/// one manual clock. Each half has its own test against hand-made messages (`LevelQueryServiceTests`,
/// `AgentLevelQueryServiceTests`); here the aggregator's query must reach a real agent and that
/// agent's answer must reach the decision, so any mismatch between the halves (the beacon's id form
/// in the query, the topic, QoS, when the agent subscribes, how `levelRssi` is read) fails.
///
/// The script: a worn band (known by its alias) sits in the kitchen, whose node hears it at
/// −70 dBm, and steps into the living room, whose node then hears it at −67 dBm (a rise from
/// about −89 or −82). As the rise rule meets it, the living room leads the kitchen's last
/// published −70 by 3 dB: 2 dB short of the 5-dB lead, a near miss, so the aggregator asks the
/// kitchen's node. Either the kitchen's node no longer hears the band at all (its answer says
/// `null`) or it still hears it at −70 (the band stood in the doorway by that node).
@Suite(.serialized) struct LevelQueryEndToEndTests {
    static let nodes = [("kitchen-1", "kitchen"), ("living-1", "living")]
    static let query = "presence/nodes/kitchen-1/level"
    static let answer = "presence/beacons/alice-band/kitchen-1"
    static let room = "presence/locations/alice-band/room"

    /// The building. Rooms are 2-cm boxes, so the simulator's spot in a room is a fixed point: the
    /// kitchen's at (2.56, 0); 30-s stays; a step between rooms (1,000 km/s, so no advert falls
    /// mid-way); no noise, so every level is exact. With the kitchen quiet, the living room's spot is
    /// 12 m from the kitchen's node (−94 dBm through a wall, under the −91 dBm sensitivity);
    /// with it loud, 1.53 m (−70 dBm through the wall).
    static func building(kitchenStillLoud loud: Bool) throws -> SimulationScenario {
        func box(_ id: String, _ x: Double, _ y: Double) -> String {
            #"{"id":"\#(id)","x":\#(x - 0.01),"y":\#(y - 0.01),"width":0.02,"height":0.02}"#
        }
        let living = loud ? box("living", 0, 1.532) : box("living", 11.98, 0)
        let livingNode = loud ? #""x":0,"y":3.512"# : #""x":10,"y":0"#
        // As a `simulate:FILE` scenario is written.
        let json = #"""
            {"rooms":[\#(box("kitchen", 2.56, 0)),\#(living)],
             "nodes":[{"id":"kitchen-1","room":"kitchen","x":0,"y":0},{"id":"living-1","room":"living",\#(livingNode)}],
             "people":[{"name":"Alice","uuid":"fda50693-a4e2-4fb1-afcf-c6eb07647825","major":5,"minor":6,
                        "measuredPower":-59,"address":"c4:a1:b2:c3:d4:56"}],
             "seed":2026,"pathLossExponent":2.7,"noiseSigma":0,"wallLoss":6,"advertisingInterval":0.2,
             "sensitivity":-91,"dwellMin":30,"dwellMax":30,"walkingSpeed":1000000}
            """#
        let scenario = try JSONDecoder().decode(SimulationScenario.self, from: Data(json.utf8))
        #expect(scenario.validationErrors() == [])
        return scenario
    }

    /// When the band steps from the kitchen to the living room: the first 30-s slot boundary after
    /// 2027-01-15 with a kitchen stay before it and a living-room stay after (the walk is hashed
    /// from the seed; the step itself takes microseconds).
    static func move(in scenario: SimulationScenario) throws -> Double {
        let simulator = try #require(BeaconSimulator(scenario: scenario, nodeID: "kitchen-1"))
        func room(_ time: Double) -> String? { simulator.truth(at: Instant(seconds: time))["Alice"] ?? nil }
        for slot in 1...200 {
            let boundary = 1_800_000_000 + 30 * Double(slot)
            if room(boundary - 15) == "kitchen" && room(boundary + 15) == "living" { return boundary }
        }
        throw TimedOut(what: "a step from the kitchen to the living room in 200 slots")
    }

    /// Whether our agents publish on `topic`: their nodes' topics but the aggregator's level
    /// queries, and measurements.
    static func isAgents(_ topic: String) -> Bool {
        topic.hasPrefix("presence/beacons/") || (topic.hasPrefix("presence/nodes/") && !topic.hasSuffix("/level"))
    }

    /// The levels (dBm) `node` hears of the band in `[from, to)`, as the simulator makes them.
    static func heard(_ scenario: SimulationScenario, _ node: String, from: Double, to: Double) -> Set<Int> {
        guard let simulator = BeaconSimulator(scenario: scenario, nodeID: node) else { return [] }
        return Set(simulator.advertisements(from: Instant(seconds: from), to: Instant(seconds: to)).map(\.rssi))
    }

    /// What a user and the test saw: the band's room messages, the aggregator's queries and the
    /// kitchen's answers (by `mosquitto_sub`-like recording), the band's retained room at the end
    /// (by `mosquitto_sub` itself), and when the band stepped.
    struct Seen {
        var rooms: [(room: String, since: String)] = []
        var queries: [TopicRecorder.Message] = []
        var answers: [TopicRecorder.Message] = []
        var retainedRoom: [String] = []
        var move = 0.0
    }

    /// Runs the script from 12 s before the step to 4 s after it, 0.1 s at a time: at each step
    /// every agent has heard all that was due and the aggregator has handled the tick and every
    /// measurement the recorder saw, so the aggregator's time is the agents' time within a step.
    func run(kitchenStillLoud loud: Bool) async throws -> Seen {
        let scenario = try Self.building(kitchenStillLoud: loud)
        var seen = Seen()
        seen.move = try Self.move(in: scenario)
        let move = seen.move
        // The script's premises, from the simulator itself.
        #expect(Self.heard(scenario, "kitchen-1", from: move - 12, to: move) == [-70])
        #expect(Self.heard(scenario, "living-1", from: move - 12, to: move) == [loud ? -82 : -89])
        #expect(Self.heard(scenario, "living-1", from: move, to: move + 4) == [-67])
        #expect(Self.heard(scenario, "kitchen-1", from: move, to: move + 4) == (loud ? [-70] : []))

        let broker = try await TestBroker.start()
        defer { broker.kill() }
        // The band is worn, and known by its alias: agents publish under it, the query may use either.
        try broker.mosquittoPub(
            topic: "presence/config/beacons",
            message: #"{"revision":1,"beacons":[{"beacon":"\#(beaconID)","id":"alice-band","worn":true}]}"#, qos: 1, retain: true)
        let recorder = try await TopicRecorder.start(broker, filter: "presence/#", clientID: "end-to-end-recorder")
        let clock = ManualClock(now: Instant(seconds: move - 12))
        try await SimulatedAgents.run(on: broker, nodes: Self.nodes, clock: clock, scenario: scenario) { agents in
            try await recorder.wait(for: "both agents announcing rise reports") { messages in
                Self.nodes.allSatisfy { node, _ in
                    messages.contains { $0.topic == "presence/nodes/\(node)/info" && $0.text.contains(#""riseReports":true"#) }
                }
            }
            try await agents.asleep(timeout: .seconds(30))
            let client = try await observer(broker)
            // The product's `staleAfter`: a band at rest is published only at the agents' 60-s heartbeat.
            let aggregator = try await LiveAggregator.start(on: broker, clock: clock, client: client) {
                $0.decision.staleAfter = AggregatorConfiguration.default.decision.staleAfter
            }
            let service = aggregator.service
            try await eventually("the retained list and the nodes' info handled") {
                service.statistics.pushedBeaconLists == 1 && service.statistics.nodeInfos >= Self.nodes.count
            }
            func step() async throws {
                let ticks = service.statistics.ticks
                try await agents.hear(0.1, step: 0.1)
                try await eventually("the tick handled") { service.statistics.ticks > ticks }
                // Everything the agents published has passed the broker (the recorder has it), and
                // the aggregator has handled every measurement among it.
                let published = agents.published
                try await recorder.wait(for: "the agents' \(published) publications") { messages in
                    messages.filter { Self.isAgents($0.topic) }.count >= published
                }
                let measurements = recorder.messages.filter { $0.topic.hasPrefix("presence/beacons/") }.count
                try await eventually("the measurements handled") {
                    service.statistics.measurements + service.statistics.malformedMeasurements >= measurements
                }
            }
            while clock.now().seconds < move - 0.05 { try await step() }
            #expect(recorder.texts(Self.room).last == "kitchen", "\(recorder.texts(Self.room))")
            while clock.now().seconds < move + 4 { try await step() }
            try await aggregator.stop()
            await client.disconnect(flushTimeout: .seconds(1))
        }
        await recorder.stop()
        for message in recorder.messages where message.topic == "presence/locations/alice-band" && !message.payload.isEmpty {
            let location = try #require(try? JSONParser.parse(message.payload))
            guard case .object(let fields) = location, let room = fields.string("room"), let since = fields.string("since") else { continue }
            if seen.rooms.last?.room != room { seen.rooms.append((room, since)) }
        }
        seen.queries = recorder.messages.filter { $0.topic == Self.query }
        seen.answers = recorder.messages.filter { $0.topic == Self.answer && $0.text.contains("levelRssi") }
        seen.retainedRoom = try broker.mosquittoSub(topic: Self.room, count: 1)
        return seen
    }

    /// The queries: on the kitchen's node's level topic, naming the band by its canonical id, QoS 0,
    /// not retained; and each was answered by that real agent on the band's alias topic.
    func expectAskedAndAnswered(_ seen: Seen) throws {
        #expect(!seen.queries.isEmpty, "no level query on \(Self.query)")
        for query in seen.queries {
            #expect(query.text == #"{"beacon":"\#(beaconID.rawValue)"}"#)
            #expect(query.qos == 0 && !query.retain)
        }
        #expect(!seen.answers.isEmpty, "the kitchen's agent did not answer")
        for answer in seen.answers {
            let fields = try #require(JSONFieldReader(lenient: answer.payload))
            #expect(fields.lenientString("beacon") == beaconID.rawValue && fields.lenientString("id") == "alice-band")
            #expect(answer.qos == 0 && !answer.retain)
        }
    }

    @Test func theRoomLeftGoneQuietSaysSoAndTheBandMovesAtOnce() async throws {
        let seen = try await run(kitchenStillLoud: false)
        try expectAskedAndAnswered(seen)
        // The kitchen's node heard nothing in its last second: `levelRssi` null.
        #expect(seen.answers.contains { $0.text.contains(#""levelRssi":null"#) }, "\(seen.answers)")
        #expect(seen.rooms.map(\.room) == ["kitchen", "living"], "\(seen.rooms)")
        // At once: within the second after the kitchen's last advert aged out of its answer. Without
        // the answer, the kitchen's last published −70 holds the band until that node says it lost
        // it, 5 s after the step.
        func after(_ seconds: Double) -> String { ISO8601Timestamp.string(from: Instant(seconds: seen.move + seconds)) }
        let since = try #require(seen.rooms.last?.since)
        #expect(since > after(0) && since < after(2.5), "in the living room at \(since), the step at \(after(0))")
        #expect(seen.retainedRoom == ["living"])
    }

    @Test func theRoomLeftStillLoudSaysSoAndTheBandStays() async throws {
        let seen = try await run(kitchenStillLoud: true)
        try expectAskedAndAnswered(seen)
        // The kitchen's node still hears the band at −70: the living room's −67 does not lead by 5 dB.
        for answer in seen.answers {
            #expect(try #require(JSONFieldReader(lenient: answer.payload)).lenientNumber("levelRssi") == -70, "\(answer.text)")
        }
        #expect(seen.rooms.map(\.room) == ["kitchen"], "\(seen.rooms)")
        #expect(seen.retainedRoom == ["kitchen"])
    }
}
