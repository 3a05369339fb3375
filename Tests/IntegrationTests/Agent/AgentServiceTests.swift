import BeaconCore
import Evaluation
import Foundation
import Testing
import TestSupport

/// `presence-agent run` as operators run it: the built binary, a real mosquitto, the real capture.
@Suite struct AgentServiceTests {
    static let uuid = "494e5445-4c4c-495f-524f-434b535f4857"
    static let beacon = "ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20594-62207"
    static let region = #"{"revision":7,"regions":[{"id":"office","uuid":"494e5445-4c4c-495f-524f-434b535f4857"}]}"#

    typealias Agent = AgentProcess

    /// Starts the built agent on the horizon capture (or `capture`) at full speed.
    func startAgent(
        _ broker: TestBroker, capture: String? = nil, stateDir: String? = nil, extra: [String] = [], output: Int32? = nil
    ) throws -> Agent {
        try AgentProcess.start(
            broker, capture: try capture ?? RecordedData.path(RecordedData.horizonCapture), stateDir: stateDir, extra: extra, output: output)
    }

    /// The horizon capture's first 20 s, as a file: the beacon is last heard 12.8 s in, so this
    /// capture ends with it still in its region (its exit falls due 30 s after that, beyond the end).
    static func horizonBeginning() throws -> String {
        let reader = try BtsnoopFileReader(path: try RecordedData.path(RecordedData.horizonCapture))
        var records: [BtsnoopRecord] = []
        while let record = try reader.next(), record.timestamp - (records.first?.timestamp ?? record.timestamp) < 20 {
            records.append(record)
        }
        let path = NSTemporaryDirectory() + "horizon-20s-\(UUID().uuidString).btsnoop"
        try Data(BtsnoopWriter(datalink: .hciUART).capture(records)).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func replayIntoARealBrokerFollowsTheContract() async throws {
        let broker = try await TestBroker.start()
        defer { broker.kill() }
        let recorder = try await TopicRecorder.start(broker, filter: "presence/#")
        try broker.mosquittoPub(topic: "presence/config/regions", message: Self.region, qos: 1, retain: true)
        let agent = try startAgent(broker)

        try await recorder.wait(forTopic: "presence/nodes/test/status") { $0.text == "online" }
        try await recorder.wait(forTopic: "presence/nodes/test/regions/office/state") { $0.text == "inside" }
        let enter = try await recorder.wait(forTopic: "presence/nodes/test/regions/office/event")
        #expect(enter.text == #"{"event":"enter","region":"office","node":"test","room":"lab","beacon":"\#(Self.beacon)","at":"2021-02-01T03:27:59.789Z"}"#)
        let measurement = try await recorder.wait(forTopic: "presence/beacons/\(Self.beacon)/test")
        #expect(measurement.text.hasPrefix(#"{"id":"\#(Self.beacon)","beacon":"\#(Self.beacon)","node":"test","room":"lab","rssi":-49,"#))
        #expect(measurement.text.contains(#""measuredPower":-62"#))
        let status = try await recorder.wait(forTopic: "presence/nodes/test/config/status")
        #expect(status.text == #"{"status":"ok","topic":"presence/config/regions","revision":7,"regions":1,"appliedAt":"2021-02-01T03:27:59.092Z"}"#)
        // On the capture's clock the beacon, last heard at 03:28:11.888, has left 30 s later.
        try await recorder.wait(forTopic: "presence/nodes/test/regions/office/event") { $0.text.contains(#""event":"exit""#) }
        #expect(recorder.texts("presence/nodes/test/regions/office/event").count == 2)

        // A malformed message: an error naming the field, and the region stays monitored.
        try broker.mosquittoPub(topic: "presence/config/regions", message: #"{"revision":8,"regions":[{"id":"office","uuid":"abc"}]}"#, qos: 1, retain: true)
        let rejected = try await recorder.wait(forTopic: "presence/nodes/test/config/status") { $0.text.contains("error") }
        #expect(rejected.text == #"{"status":"error","topic":"presence/config/regions","revision":8,"error":"regions[0].uuid: 'abc' is not a UUID","keptRevision":7}"#)
        #expect(recorder.texts("presence/nodes/test/regions/office/state").last == "outside")
        let saved = try String(contentsOfFile: agent.stateDir + "/regions.json", encoding: .utf8)
        #expect(saved == Self.region)

        agent.signal(SIGTERM)
        try await recorder.wait(forTopic: "presence/nodes/test/status") { $0.text == "offline" }
        #expect(try await agent.exitStatus() == 0)
        await recorder.stop()
    }

    /// A node with thousands of regions: every region's retained state reaches the broker (the
    /// whole retained state goes out at once on connect and must fit the client's outbox).
    @Test func everyRegionStateOfAThousandsRegionNodeReachesTheBroker() async throws {
        let broker = try await TestBroker.start()
        defer { broker.kill() }
        let count = 3_000
        // r0 is the capture's beacon (major 20594); the others match nothing in the air.
        let regions = (0..<count).map { #"{"id":"r\#($0)","uuid":"\#(Self.uuid)","major":\#($0 == 0 ? 20594 : $0)}"# }
        // Over 128 KiB: too long for one command-line argument, so mosquitto_pub reads a file.
        let message = NSTemporaryDirectory() + "regions-\(UUID().uuidString).json"
        try Data((#"{"revision":1,"regions":["# + regions.joined(separator: ",") + "]}").utf8).write(to: URL(fileURLWithPath: message))
        let published = try ToolRunner.run(
            "/usr/bin/mosquitto_pub",
            ["-h", broker.host, "-p", "\(broker.port)", "-t", "presence/config/regions", "-f", message, "-q", "1", "-r"])
        #expect(published.status == 0)
        // The capture's beginning, which ends with r0's beacon inside.
        let capture = try Self.horizonBeginning()
        defer { try? FileManager.default.removeItem(atPath: capture) }
        let agent = try startAgent(broker, capture: capture, extra: ["--exit-at-end"])
        #expect(try await agent.exitStatus() == 0)
        #expect(!agent.output.contains("out-queue full"))
        // A newcomer reads every state retained (QoS 0, as mosquitto_sub does: a QoS 1 subscriber
        // would meet the broker's own per-client queue limit of 1,000).
        let lines = try broker.mosquittoSub(topic: "presence/nodes/test/regions/+/state", count: count, timeoutSeconds: 20, verbose: true)
        #expect(Set(lines.map { $0.split(separator: " ").first ?? "" }).count == count)
        #expect(lines.contains("presence/nodes/test/regions/r0/state inside"))
        #expect(!lines.contains("presence/nodes/test/regions/r1/state inside"))
    }

    @Test func aKilledAgentLeavesItsLastWill() async throws {
        let broker = try await TestBroker.start()
        defer { broker.kill() }
        let recorder = try await TopicRecorder.start(broker, filter: "presence/nodes/test/status")
        let agent = try startAgent(broker)
        try await recorder.wait(forTopic: "presence/nodes/test/status") { $0.text == "online" }
        agent.signal(SIGKILL)
        _ = try await agent.exitStatus()
        try await recorder.wait(forTopic: "presence/nodes/test/status") { $0.text == "offline" }
        await recorder.stop()
    }

    @Test func theLastGoodRegionsSurviveARestartWithoutTheirMessage() async throws {
        let stateDir = NSTemporaryDirectory() + "agent-state-\(UUID().uuidString)"
        let capture = try Self.horizonBeginning()
        defer { try? FileManager.default.removeItem(atPath: capture) }
        do {
            let broker = try await TestBroker.start()
            defer { broker.kill() }
            try broker.mosquittoPub(topic: "presence/config/regions", message: Self.region, qos: 1, retain: true)
            let agent = try startAgent(broker, capture: capture, stateDir: stateDir, extra: ["--exit-at-end"])
            #expect(try await agent.exitStatus() == 0)
        }
        // The capture ended with the beacon in the region: the state was saved with the regions.
        #expect(try String(contentsOfFile: stateDir + "/region-states.json", encoding: .utf8) == #"{"office":"inside"}"#)

        // A new broker that has never seen the regions message: the agent monitors from its state
        // directory, and the beacon still being there is told by the state, not by a second enter.
        let broker = try await TestBroker.start()
        defer { broker.kill() }
        let recorder = try await TopicRecorder.start(broker, filter: "presence/#")
        let agent = try startAgent(broker, capture: capture, stateDir: stateDir, extra: ["--exit-at-end"])
        #expect(try await agent.exitStatus() == 0)
        try await recorder.wait(forTopic: "presence/nodes/test/status") { $0.text == "offline" }
        #expect(recorder.texts("presence/nodes/test/regions/office/state") == ["inside"])
        #expect(recorder.texts("presence/nodes/test/regions/office/event").isEmpty)
        #expect(recorder.texts("presence/nodes/test/config/status").isEmpty)
        #expect(!recorder.texts("presence/beacons/\(Self.beacon)/test").isEmpty)

        // Without the saved states (a first start with saved regions) the first match is an enter.
        try FileManager.default.removeItem(atPath: stateDir + "/region-states.json")
        let again = try startAgent(broker, capture: capture, stateDir: stateDir, extra: ["--exit-at-end"])
        #expect(try await again.exitStatus() == 0)
        try await recorder.wait(forTopic: "presence/nodes/test/regions/office/event") { $0.text.contains(#""event":"enter""#) }
        await recorder.stop()
    }

    /// The operator clears the regions (QoS 1, as the docs say) while the node is off: the broker
    /// keeps the clearing message in the node's session, and the node, back with its saved regions,
    /// clears them too rather than monitoring regions nobody configures any more.
    @Test func regionsClearedWhileTheAgentWasOffAreClearedWhenItReturns() async throws {
        let broker = try await TestBroker.start()
        defer { broker.kill() }
        let stateDir = NSTemporaryDirectory() + "agent-state-\(UUID().uuidString)"
        let capture = try Self.horizonBeginning()
        defer { try? FileManager.default.removeItem(atPath: capture) }
        try broker.mosquittoPub(topic: "presence/config/regions", message: Self.region, qos: 1, retain: true)
        let first = try startAgent(broker, capture: capture, stateDir: stateDir, extra: ["--exit-at-end"])
        #expect(try await first.exitStatus() == 0)
        #expect(FileManager.default.fileExists(atPath: stateDir + "/regions.json"))

        try broker.mosquittoPub(topic: "presence/config/regions", message: "", qos: 1, retain: true)
        let recorder = try await TopicRecorder.start(broker, filter: "presence/nodes/test/#")
        let again = try startAgent(broker, capture: capture, stateDir: stateDir, extra: ["--exit-at-end"])
        #expect(try await again.exitStatus() == 0)
        let status = try await recorder.wait(forTopic: "presence/nodes/test/config/status") { $0.text.contains("cleared") }
        #expect(status.text.hasPrefix(#"{"status":"ok","topic":"presence/config/regions","cleared":true,"#))
        #expect(!FileManager.default.fileExists(atPath: stateDir + "/regions.json"))
        #expect(!recorder.texts("presence/nodes/test/regions/office/event").contains { $0.contains(#""event":"enter""#) })
        await recorder.stop()
    }

    /// A lost broker does not stop scanning or region monitoring: the capture is replayed while the
    /// broker is down, and once it is back every event raised meanwhile arrives (QoS 1), once, with
    /// the retained state and `online`. The recorder keeps a persistent session on a broker with
    /// persistence, so what was published while it was away waits for it too.
    @Test func eventsRaisedWhileTheBrokerIsDownArriveAfterItReturns() async throws {
        let broker = try await TestBroker.start(TestBroker.Configuration(persistence: true))
        defer { broker.kill() }
        let recorder = try await TopicRecorder.start(broker, filter: "presence/#", clientID: "outage-recorder", persistentSession: true)
        let stateDir = NSTemporaryDirectory() + "agent-state-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: stateDir, withIntermediateDirectories: true)
        try Self.region.write(toFile: stateDir + "/regions.json", atomically: true, encoding: .utf8)
        broker.terminate()  // a clean stop: the recorder's session is saved

        // The agent starts with no broker: its saved regions and the capture are enough to monitor.
        // Its log says when the whole capture has been replayed; only then does the broker return.
        var pipeEnds: [Int32] = [-1, -1]
        #expect(pipe(&pipeEnds) == 0)
        let agent = try startAgent(broker, stateDir: stateDir, extra: ["--wait-for-config", "0"], output: pipeEnds[1])
        close(pipeEnds[1])
        let logReader = pipeEnds[0]
        _ = try await within("the agent to replay the capture with no broker") {
            var log = ""
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !log.contains("the source ended") {
                let count = read(logReader, &buffer, buffer.count)
                guard count > 0 else { throw TimedOut(what: "the source to end (log closed: \(log))") }
                log += String(decoding: buffer[0..<count], as: UTF8.self)
            }
            return log
        }
        // Keep reading the log so the agent never blocks on a full pipe.
        Thread { var sink = [UInt8](repeating: 0, count: 4096); while read(logReader, &sink, sink.count) > 0 {}; close(logReader) }.start()
        try await broker.restart()
        let enter = try await recorder.wait(forTopic: "presence/nodes/test/regions/office/event")
        #expect(enter.text.contains(#""event":"enter""#) && enter.text.contains(#""at":"2021-02-01T03:27:59.789Z""#))
        // On the capture's clock the beacon has left 30 s after its last advertisement, broker or not.
        let exit = try await recorder.wait(forTopic: "presence/nodes/test/regions/office/event") { $0.text.contains(#""event":"exit""#) }
        #expect(exit.text.contains(#""at":"2021-02-01T03:28:4"#))
        try await recorder.wait(forTopic: "presence/nodes/test/status") { $0.text == "online" && !$0.retain }
        try await recorder.wait(forTopic: "presence/nodes/test/regions/office/state") { $0.text == "outside" }

        // A second outage in the middle: the retained state is whole again after the reconnect.
        // First a probe's round trip, so the broker has the recorder's acknowledgements of the events
        // before it stops: QoS 1 is at least once, and a broker stopped before an acknowledgement
        // arrived keeps the message for the recorder's session and delivers it again.
        try await recorder.probe(through: broker, "events-acknowledged")
        let statesBefore = recorder.texts("presence/nodes/test/regions/office/state").count
        broker.terminate()
        try await broker.restart()
        let states = try await recorder.wait(for: "the state again after the second outage") { messages in
            messages.filter { $0.topic == "presence/nodes/test/regions/office/state" }.count > statesBefore
        }
        #expect(states.last { $0.topic == "presence/nodes/test/regions/office/state" }?.text == "outside")
        #expect(states.filter { $0.topic == "presence/nodes/test/regions/office/event" }.count == 2)
        agent.signal(SIGTERM)
        #expect(try await agent.exitStatus() == 0)
        await recorder.stop()
    }

    /// A state directory that cannot be written: logged, and the agent runs on with its
    /// configuration in memory (applied, answered, monitored).
    @Test func anUnusableStateDirectoryIsLoggedAndTheAgentRunsOn() async throws {
        let broker = try await TestBroker.start()
        defer { broker.kill() }
        let recorder = try await TopicRecorder.start(broker, filter: "presence/#")
        try broker.mosquittoPub(topic: "presence/config/regions", message: Self.region, qos: 1, retain: true)
        let agent = try startAgent(broker, stateDir: "/proc/presence-agent-state", extra: ["--exit-at-end"])
        #expect(try await agent.exitStatus() == 0)
        try await recorder.wait(forTopic: "presence/nodes/test/config/status") { $0.text.contains(#""status":"ok""#) }
        try await recorder.wait(forTopic: "presence/nodes/test/regions/office/event") { $0.text.contains("enter") }
        #expect(agent.output.contains("state directory unusable; configuration is kept in memory only"))
        await recorder.stop()
    }

    /// A full disk while saving: the agent's save of a new regions message fails with a real ENOSPC
    /// (its temporary file `regions.json.tmp` is a link to /dev/full, the kernel's always-full
    /// device, so the write goes through the agent's own code and fails there). The failure is
    /// logged, the new regions are in force in memory (answered `ok`, the beacon enters), and the
    /// previous good file is byte for byte what it was.
    @Test func aFullDiskWhileSavingIsLoggedAndTheOldFileStays() async throws {
        let broker = try await TestBroker.start()
        defer { broker.kill() }
        let stateDir = NSTemporaryDirectory() + "agent-state-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: stateDir, withIntermediateDirectories: true)
        let previous = #"{"revision":6,"regions":[{"id":"hall","uuid":"fda50693-a4e2-4fb1-afcf-c6eb07647825"}]}"#
        try previous.write(toFile: stateDir + "/regions.json", atomically: true, encoding: .utf8)
        #expect(symlink("/dev/full", stateDir + "/regions.json.tmp") == 0)

        let recorder = try await TopicRecorder.start(broker, filter: "presence/#")
        try broker.mosquittoPub(topic: "presence/config/regions", message: Self.region, qos: 1, retain: true)
        let agent = try startAgent(broker, stateDir: stateDir, extra: ["--exit-at-end"])
        #expect(try await agent.exitStatus() == 0)
        let status = try await recorder.wait(forTopic: "presence/nodes/test/config/status")
        #expect(status.text.hasPrefix(#"{"status":"ok","topic":"presence/config/regions","revision":7,"regions":1,"#))
        try await recorder.wait(forTopic: "presence/nodes/test/regions/office/event") { $0.text.contains(#""event":"enter""#) }
        let log = agent.output
        #expect(log.contains("cannot save the configuration; it stays in force in memory"), "\(log)")
        #expect(log.contains("\(stateDir)/regions.json: cannot write it (No space left on device)"), "\(log)")
        #expect(try String(contentsOfFile: stateDir + "/regions.json", encoding: .utf8) == previous)
        // The failed write removed its temporary file (here: the link), so the next save can succeed.
        #expect(!FileManager.default.fileExists(atPath: stateDir + "/regions.json.tmp"))
        await recorder.stop()
    }

    /// `--record` writes what the node measured as a trace that `presence-aggregator replay` reads.
    @Test func recordingGivesATraceThatReplays() async throws {
        let broker = try await TestBroker.start()
        defer { broker.kill() }
        try broker.mosquittoPub(topic: "presence/config/regions", message: Self.region, qos: 1, retain: true)
        let trace = NSTemporaryDirectory() + "recorded-\(UUID().uuidString).csv"
        defer { try? FileManager.default.removeItem(atPath: trace) }
        let agent = try startAgent(broker, extra: ["--exit-at-end", "--record", trace])
        #expect(try await agent.exitStatus() == 0)
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        // The header and the capture's 11 iBeacon advertisements: only measured beacons are recorded.
        #expect(lines.count == 12)
        #expect(lines.first == "time,node,room,beacon,rssi,measuredPower")
        #expect(lines.dropFirst().first == "1612150079.789,test,lab,\(Self.beacon),-49,-62")

        let replay = try ToolRunner.run(try BuildProducts.executable(named: "presence-aggregator"), ["replay", "--trace", trace],
                                        separateErrors: true)
        #expect(replay.status == 0)
        let decisions = replay.output.split(separator: "\n")
        #expect(decisions.first == "time,beacon,room,distance")
        #expect(decisions.dropFirst().first?.contains(",\(Self.beacon),lab,") == true)
    }

    @Test func aBadFlagOrConfigurationIsNamed() throws {
        let binary = try BuildProducts.executable(named: "presence-agent")
        let noNode = try ToolRunner.run(binary, ["run", "--room", "lab"], separateErrors: true)
        #expect(noNode.status == 2)
        #expect(noNode.errors == "error: node: required: this receiver's id, e.g. kitchen-1\n")
        let badBroker = try ToolRunner.run(binary, ["run", "--node", "a", "--room", "b", "--broker", "tcp://x"], separateErrors: true)
        #expect(badBroker.errors == "error: broker.url (--broker): 'tcp://x' is not mqtt://host[:port], mqtts://host[:port] or unix:///path/to/socket\n")
        let file = NSTemporaryDirectory() + "agent-\(UUID().uuidString).yaml"
        try "node: a\nroom: b\ntracking:\n  heartbeet: 5\n".write(toFile: file, atomically: true, encoding: .utf8)
        let badKey = try ToolRunner.run(binary, ["run", "--config", file], separateErrors: true)
        #expect(badKey.status == 2)
        #expect(badKey.errors == "error: \(file):4: tracking.heartbeet: unknown key (known keys: heartbeat, measuredPower, pathLossExponent, rssiOffset, rssiStep)\n")
        let capture = try RecordedData.path(RecordedData.horizonCapture)
        let unwritable = try ToolRunner.run(binary, ["run", "--node", "a", "--room", "b", "--source", "btsnoop:" + capture,
                                                     "--record", "/nonexistent/trace.csv"], separateErrors: true)
        #expect(unwritable.status == 2)
        #expect(unwritable.errors == "error: --record: cannot write '/nonexistent/trace.csv' (No such file or directory)\n")
    }
}
