import BeaconCore
import Evaluation
import Foundation
import Testing
import TestSupport

/// Repeated broker outages during a long replay: the built agent replays a 13-minute capture at 20×
/// with its capture clock while the broker (no persistence: everything retained is really lost) is
/// killed with SIGKILL and started again four times on the same port. Every enter and exit the
/// capture makes the agent raise arrives at a QoS 1 subscriber at least once, and after each
/// reconnect every retained topic of the node is back.
@Suite(.serialized) struct AgentOutageTests {
    static let uuid: [UInt8] = [0xFD, 0xA5, 0x06, 0x93, 0xA4, 0xE2, 0x4F, 0xB1, 0xAF, 0xCF, 0xC6, 0xEB, 0x07, 0x64, 0x78, 0x25]
    static let uuidText = "fda50693-a4e2-4fb1-afcf-c6eb07647825"
    static let beacons = 3
    static let minutes = 12
    static let regions = #"{"revision":1,"regions":["# + (0..<beacons).map { #"{"id":"r\#($0)","uuid":"\#(uuidText)","major":\#($0)}"# }
        .joined(separator: ",") + "]}"

    /// One legacy LE Advertising Report of the iBeacon with `major`, as HCI event bytes.
    static func event(major: UInt16, rssi: Int8) -> [UInt8] {
        IBeaconReport.event(address: 0xC000_0000_0000 | UInt64(major & 0xFF), uuid: uuid, major: major, minor: 1, rssi: rssi)
    }

    /// Beacon b (major b) is heard once a second for 10 s of every minute, from second 20·b; then
    /// silent for 50 s, longer than the 30 s exit delay. So each beacon enters and exits its
    /// region once a minute: 2 · beacons · minutes events. A beacon in no region (major 99) is
    /// heard a minute after the end, so the clock reaches the last exits.
    static func capture() -> (bytes: [UInt8], events: Int) {
        let writer = BtsnoopWriter(datalink: .hciUART)
        var out = writer.header
        let start = 1_800_000_000.0
        var timed: [(Double, [UInt8])] = []
        for minute in 0..<minutes {
            for beacon in 0..<beacons {
                for second in 0..<10 {
                    let time = start + Double(minute * 60 + beacon * 20 + second)
                    timed.append((time, event(major: UInt16(beacon), rssi: -60)))
                }
            }
        }
        timed.append((start + Double(minutes * 60 + 60), event(major: 99, rssi: -60)))
        for (time, bytes) in timed.sorted(by: { $0.0 < $1.0 }) {
            writer.append(HCIPacket(type: .event, bytes: bytes[...]), direction: .received, timestamp: Instant(seconds: time), to: &out)
        }
        return (out, 2 * beacons * minutes)
    }

    static func events(_ messages: [TopicRecorder.Message]) -> [TopicRecorder.Message] {
        messages.filter { $0.topic.hasSuffix("/event") && $0.topic.hasPrefix("presence/nodes/test/regions/") }
    }
    static func distinctEvents(_ messages: [TopicRecorder.Message]) -> Int { Set(events(messages).map(\.description)).count }

    /// Region, event and time of each distinct event, sorted by time: for a failure message.
    static func eventSummary(_ messages: [TopicRecorder.Message]) -> String {
        Set(messages.map { message in
            let text = message.text
            func field(_ name: String) -> String {
                guard let start = text.range(of: "\"\(name)\":\"") else { return "?" }
                return String(text[start.upperBound...].prefix { $0 != "\"" })
            }
            return "\(field("at")) \(field("region")) \(field("event"))"
        }).sorted().joined(separator: "\n")
    }

    static let retainedTopics: Set<String> = Set(
        ["presence/nodes/test/status", "presence/nodes/test/info", "presence/nodes/test/config/status"]
            + (0..<beacons).map { "presence/nodes/test/regions/r\($0)/state" })

    @Test func everyEventArrivesAndTheRetainedStateIsWholeAfterEachOfFourOutages() async throws {
        let (bytes, expectedEvents) = Self.capture()
        let capture = NSTemporaryDirectory() + "outages-\(UUID().uuidString).btsnoop"
        try Data(bytes).write(to: URL(fileURLWithPath: capture))
        defer { try? FileManager.default.removeItem(atPath: capture) }

        let broker = try await TestBroker.start()  // persistence false: a restart loses every retained message
        defer { broker.kill() }
        let recorder = try await TopicRecorder.start(broker, filter: "presence/#", clientID: "outage-recorder", persistentSession: true)
        try broker.mosquittoPub(topic: "presence/config/regions", message: Self.regions, qos: 1, retain: true)
        let agent = try AgentProcess.start(broker, capture: capture, speed: "20", extra: ["--exit-at-end"])

        var measured: [(queued: Int, brokerUpToOnline: Duration, onlineToWhole: Duration)] = []
        for outage in 1...4 {
            // Kill the broker once a fifth more of the events has arrived: outages spread over the replay.
            try await recorder.wait(for: "event \(outage * expectedEvents / 5)", timeout: .seconds(60)) {
                Self.distinctEvents($0) >= outage * expectedEvents / 5
            }
            // The agent is frozen while the broker is down and back, so the recorder is subscribed
            // again before the agent can publish (the broker has forgotten every session); the
            // capture's clock runs on meanwhile, so the agent catches up with a burst of events
            // while it is still reconnecting (its backoff starts at 1 s). Each second frozen is 20 s
            // of capture: at 60× a loaded machine's slow outage let the capture end before the
            // fourth reconnect.
            agent.signal(SIGSTOP)
            // What the broker already acknowledged to the agent is handed on before the kill: a
            // broker without persistence that dies holding an acknowledged message loses it, which
            // is QoS 1's hop-by-hop promise and not the agent's to keep.
            try await recorder.probe(through: broker, "drain-\(outage)")
            broker.kill()
            try await broker.restart()
            let brokerUp = ContinuousClock.now
            try await recorder.probe(through: broker, "back-\(outage)")
            let before = recorder.messages.count
            agent.signal(SIGCONT)

            let messages = try await recorder.wait(for: "the agent online after outage \(outage)", timeout: .seconds(30)) {
                $0.dropFirst(before).contains { $0.topic == "presence/nodes/test/status" && $0.text == "online" }
            }
            let onlineIndex = try #require(messages.indices.dropFirst(before).first {
                messages[$0].topic == "presence/nodes/test/status" && messages[$0].text == "online"
            })
            let online = messages[onlineIndex]
            // The client sends what waited in its outbox first, then the agent says `online`: the
            // events before it were raised while the agent had no broker.
            let queued = Self.events(Array(messages[before..<onlineIndex])).count
            #expect(queued > 0, "outage \(outage): no event was raised while the broker was away")
            // Every retained topic published again after `online`; measure the last of them.
            let whole = try await recorder.wait(for: "the retained state after outage \(outage)", timeout: .seconds(10)) { all in
                Self.retainedTopics.isSubset(of: Set(all.dropFirst(before).map(\.topic)))
            }
            let arrivals = Self.retainedTopics.compactMap { topic in whole.dropFirst(before).first { $0.topic == topic }?.receivedAt }
            let last = try #require(arrivals.max())
            measured.append((queued, online.receivedAt - brokerUp, last - online.receivedAt))
            #expect(last - online.receivedAt < .seconds(1), "retained state whole \(last - online.receivedAt) after online")

            // A newcomer finds every retained topic on the broker that lost them all.
            let newcomer = try await TopicRecorder.start(broker, filter: "presence/nodes/test/#", clientID: "newcomer-\(outage)")
            try await newcomer.wait(for: "every retained topic after outage \(outage)", timeout: .seconds(5)) {
                Self.retainedTopics.isSubset(of: Set($0.filter(\.retain).map(\.topic)))
            }
            await newcomer.stop()
        }

        #expect(try await agent.exitStatus() == 0, "\(agent.output)")
        try await recorder.wait(forTopic: "presence/nodes/test/status") { $0.text == "offline" }
        let all = Self.events(recorder.messages)
        let distinct = Set(all.map(\.description))
        let enters = distinct.filter { $0.contains(#""event":"enter""#) }.count
        let exits = distinct.filter { $0.contains(#""event":"exit""#) }.count
        #expect(enters == Self.beacons * Self.minutes)
        #expect(exits == Self.beacons * Self.minutes)
        #expect(distinct.count == expectedEvents, "\(Self.eventSummary(all))")
        print("""
            outages: \(expectedEvents) events expected, \(distinct.count) distinct arrived (\(enters) enter, \(exits) exit), \
            \(all.count - distinct.count) duplicates; per outage: events queued while away, broker up → agent online, \
            online → retained whole: \(measured.map { "\($0.queued), \($0.brokerUpToOnline), \($0.onlineToWhole)" }.joined(separator: " | "))
            """)
        await recorder.stop()
    }
}
