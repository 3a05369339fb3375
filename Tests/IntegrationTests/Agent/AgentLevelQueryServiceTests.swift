import BeaconCore
import Foundation
import MQTTClient
import Testing
import TestSupport

/// A level query on a real mosquitto (docs/MQTT.md, `<root>/nodes/<node>/level`; issue 40, eighth
/// round): a client asks the node for a worn beacon's level now and gets, at once, the beacon's
/// measurement with `levelRssi`. The agent hears the demo building (`simulate`) on a manual clock,
/// so no test waits for time: the clock moves when the test says.
@Suite(.serialized) struct AgentLevelQueryServiceTests {
    static let alice = "ibeacon-\(ContractTests.uuid)-1-1"
    static let bob = "ibeacon-\(ContractTests.uuid)-1-2"
    static let queries = "presence/nodes/kitchen-1/level"

    @Test func aQueryForAWornBeaconIsAnsweredAtOnceWithItsLevelAndNothingElseIs() async throws {
        let broker = try await TestBroker.start()
        defer { broker.kill() }
        // Alice wears her tag; Bob's is not marked worn.
        try broker.mosquittoPub(topic: "presence/config/beacons", message: #"""
            {"revision":1,"beacons":[{"beacon":"\#(Self.alice)","id":"alice","worn":true},{"beacon":"\#(Self.bob)","id":"bob"}]}
            """#, qos: 1, retain: true)
        let recorder = try await TopicRecorder.start(broker, filter: "presence/#", clientID: "level-recorder")

        let clock = ManualClock(now: Instant(seconds: 1_800_000_000))
        try await SimulatedAgents.run(on: broker, nodes: [("kitchen-1", "kitchen")], clock: clock) { agent in
            try await recorder.wait(forTopic: "presence/nodes/kitchen-1/info") { $0.text.contains(#""riseReports":true"#) }
            try await agent.asleep(timeout: .seconds(30))
            try await agent.hear(3)
            try await recorder.wait(forTopic: "presence/beacons/alice/kitchen-1")
            try await recorder.wait(forTopic: "presence/beacons/bob/kitchen-1")

            let client = try await observer(broker, "level-asker")
            func ask(_ payload: String) async throws {
                try await client.publish(topic: Self.queries, string: payload, qos: .atMostOnce).acknowledged()
            }
            // Bob is not worn: no answer. A malformed query: a warning, nothing else. Alice: answered.
            try await ask(#"{"beacon":"\#(Self.bob)"}"#)
            try await ask(#"{"beacon":5}"#)
            try await ask(#"{"beacon":"\#(Self.alice)"}"#)
            let answer = try await recorder.wait(forTopic: "presence/beacons/alice/kitchen-1") { $0.text.contains("levelRssi") }
            let fields = try #require(JSONFieldReader(lenient: answer.payload))
            #expect(fields.lenientNumber("levelRssi").map { $0 < 0 } == true, "\(answer.text)")
            #expect(fields.lenientString("beacon") == Self.alice && fields.lenientString("proximity") != "unknown")
            #expect(fields.object["rise"] == nil && fields.object["riseRssi"] == nil)
            #expect(answer.qos == 0 && !answer.retain)

            // A flood at the same instant: none answered (alice answered just now); a quarter second
            // later, by her alias, answered again.
            for _ in 0..<20 { try await ask(#"{"beacon":"\#(Self.alice)"}"#) }
            try await agent.hear(0.25)
            try await ask(#"{"beacon":"alice"}"#)
            try await recorder.wait(for: "the second answer") { messages in
                messages.filter { $0.topic == "presence/beacons/alice/kitchen-1" && $0.text.contains("levelRssi") }.count >= 2
            }
            // The agent's messages arrive in order: an answer to the flood would be here by now.
            let answers = recorder.messages.filter { $0.text.contains("levelRssi") }
            #expect(answers.map(\.topic) == ["presence/beacons/alice/kitchen-1", "presence/beacons/alice/kitchen-1"])
            await client.disconnect(flushTimeout: .seconds(1))
        }
        await recorder.stop()
    }
}
