import BeaconCore
import BluetoothHCI
import Foundation
import Logging
import PresenceAgent
import ServiceLifecycle
import Testing
import TestSupport

/// Issue 15's check for the simulator source: the agent on `--source simulate:FILE` into a real
/// mosquitto runs on the simulator's clock, so each region's exit falls due the exit delay after
/// its beacon was last heard, its silence 5 s after, and each enter is the beacon's advertisement —
/// checked against the simulator itself, which is a pure function of time.
///
/// The agent runs in the test's process on a `ManualClock` (issue 27): the test moves the clock
/// a quarter second at a time and waits only for the source to be asleep again, so 240 simulated
/// seconds take what the CPU needs, never wall time, and every tick falls where it would live.
///
/// The building: the node's room, and a room 1 km away where nobody is heard; three people move
/// between them every 10–20 s (walking 1 km/s, so a move takes a second).
@Suite struct SimulatedSourceTests {
    static let scenario = #"""
    {"rooms":[{"id":"near","x":0,"y":0,"width":5,"height":4},{"id":"far","x":1000,"y":0,"width":5,"height":4}],
     "nodes":[{"id":"test","room":"near","x":2.5,"y":2}],
     "people":[
      {"name":"p1","uuid":"fda50693-a4e2-4fb1-afcf-c6eb07647825","major":1,"minor":1,"measuredPower":-59,"address":"c4:a1:b2:c3:d4:01"},
      {"name":"p2","uuid":"fda50693-a4e2-4fb1-afcf-c6eb07647825","major":1,"minor":2,"measuredPower":-59,"address":"c4:a1:b2:c3:d4:02"},
      {"name":"p3","uuid":"fda50693-a4e2-4fb1-afcf-c6eb07647825","major":1,"minor":3,"measuredPower":-59,"address":"c4:a1:b2:c3:d4:03"}],
     "seed":15,"pathLossExponent":2.7,"noiseSigma":3,"wallLoss":6,"advertisingInterval":0.5,"sensitivity":-98,
     "dwellMin":10,"dwellMax":20,"walkingSpeed":1000}
    """#
    static let regions = #"{"revision":1,"regions":["# + (1...3).map {
        #"{"id":"p\#($0)","uuid":"fda50693-a4e2-4fb1-afcf-c6eb07647825","major":1,"minor":\#($0)}"#
    }.joined(separator: ",") + "]}"
    static let exitDelay = 10.0
    /// How late an exit or a silence may be: a tick (the agent ticks when a second has passed
    /// since the last, on the clock's quarter-second steps).
    static let lateness = 1.5
    /// Simulated seconds run: about 12 moves per person.
    static let duration = 240.0
    /// The clock's step: the source wakes once a step, as it would every 0.2 s live.
    static let step = 0.25

    static func seconds(_ iso: String?) -> Double? {
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return iso.flatMap { parser.date(from: $0) }.map(\.timeIntervalSince1970)
    }

    static func field(_ key: String, in text: String) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?[key] as? String
    }

    @Test func theSimulatorsExitsAndSilencesFallDueOnItsClock() async throws {
        let path = NSTemporaryDirectory() + "scenario-\(UUID().uuidString).json"
        try Self.scenario.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let parsed = try JSONDecoder().decode(SimulationScenario.self, from: Data(Self.scenario.utf8))
        let simulator = try #require(BeaconSimulator(scenario: parsed, nodeID: "test"))

        let broker = try await TestBroker.start()
        defer { broker.kill() }
        let recorder = try await TopicRecorder.start(broker, filter: "presence/#")
        try broker.mosquittoPub(topic: "presence/config/regions", message: Self.regions, qos: 1, retain: true)
        try broker.mosquittoPub(
            topic: "presence/nodes/test/config", message: #"{"revision":1,"exitDelay":\#(Int(Self.exitDelay))}"#, qos: 1, retain: true)

        var configuration = AgentConfiguration()
        configuration.node = "test"
        configuration.room = "lab"
        configuration.broker = "mqtt://127.0.0.1:\(broker.port)"
        configuration.stateDir = NSTemporaryDirectory() + "agent-state-\(UUID().uuidString)"
        configuration.source = "simulate:" + path
        defer { try? FileManager.default.removeItem(atPath: configuration.stateDir) }
        var logger = Logger(label: "simulated-source-test")
        logger.logLevel = .error
        let clock = ManualClock(now: Instant(seconds: 1_800_000_000))
        let service = AgentService(configuration: try configuration.resolve(), logger: logger, version: "test", clock: clock)
        let group = ServiceGroup(configuration: .init(services: [.init(service: service)], logger: logger))
        let run = Task { try await group.run() }

        // The source starts once the retained configuration is in, and sleeps until its first advertisement.
        try await within("the source waiting on the clock") { try await clock.asleep() }
        try await within("\(Self.duration) simulated seconds", timeout: .seconds(120)) {
            for _ in 0..<Int(Self.duration / Self.step) {
                clock.advance(by: Self.step)
                try await clock.asleep()
            }
        }
        await group.triggerGracefulShutdown()
        try await recorder.wait(forTopic: "presence/nodes/test/status") { $0.text == "offline" }
        // The source's thread sleeps on the clock: one more step, and it sees the stop.
        clock.advance(by: Self.step)
        try await run.value

        var exits = 0
        for person in 1...3 {
            let name = "p\(person)"
            let events = recorder.texts("presence/nodes/test/regions/\(name)/event")
            let silences = recorder.texts("presence/beacons/ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-1-\(person)/test")
                .filter { $0.contains(#""proximity":"unknown""#) }.compactMap { Self.seconds(Self.field("timestamp", in: $0)) }
            for (index, event) in events.enumerated() {
                let kind = Self.field("event", in: event)
                #expect(kind == (index % 2 == 0 ? "enter" : "exit"), "\(name): \(events)")
                let at = try #require(Self.seconds(Self.field("at", in: event)))
                let heard = simulator.advertisements(from: Instant(seconds: at - 60), to: Instant(seconds: at + 0.001))
                    .filter { $0.person == name }.map(\.time.seconds)
                if kind == "enter" {
                    // The advertisement that brought the beacon back.
                    #expect(heard.contains { abs($0 - at) < 0.002 }, "\(name) entered at \(at) with no advertisement then")
                } else {
                    exits += 1
                    let last = try #require(heard.last { $0 < at }, "\(name): nothing heard before its exit at \(at)")
                    // Never early, and late by at most a tick.
                    #expect(at - last >= Self.exitDelay && at - last <= Self.exitDelay + Self.lateness, "\(name): exit \(at - last) s after its last advertisement at \(last)")
                    #expect(silences.contains { $0 - last > 5 && $0 - last <= 5 + Self.lateness }, "\(name): no silence measurement 5 s after \(last) (exit at \(at)): \(silences)")
                }
            }
        }
        #expect(exits > 0)
        await recorder.stop()
    }
}
