import BeaconCore
import Evaluation
import BluetoothHCI
import Foundation
import IdentityCrypto
import Testing
import TestSupport

/// Phones and watches known by their IRK, end to end (issue 19): captures of two nodes in which
/// phones rotate their resolvable private addresses under known keys (the Core spec's sample key
/// and another), a phone whose key nobody has, and a flood of one-off random addresses, replayed
/// by the built agent into a real broker; the recorded traces then replayed by the aggregator on
/// the captures' clock.
@Suite struct PhoneResolutionTests {
    static let aliceKey = "ec0234a357c8ad05341010a60a397d9b"
    static let bobKey = "9c1e22d6fa4b3e0c77a9510b2f6d8e31"
    static let strangerKey = "0f0e0d0c0b0a09080706050403020100"
    static let uuid = "fda50693-a4e2-4fb1-afcf-c6eb07647825"

    /// Two rooms side by side, a node in each; everyone stays put for the capture's 240 s (the
    /// first dwell lasts 1,000 s), so the truth is one room per person.
    static let scenario: SimulationScenario = {
        func person(_ name: String, _ minor: Int, irk: String?) -> String {
            #"{"name":"\#(name)","uuid":"\#(uuid)","major":1,"minor":\#(minor),"measuredPower":-59,"#
                + #""address":"c4:a1:b2:c3:d4:0\#(minor)""# + (irk.map { #","irk":"\#($0)""# } ?? "") + "}"
        }
        let json = #"{"rooms":[{"id":"kitchen","x":0,"y":0,"width":5,"height":4},{"id":"hall","x":5,"y":0,"width":6,"height":4}],"#
            + #""nodes":[{"id":"kitchen-1","room":"kitchen","x":2.5,"y":2},{"id":"hall-1","room":"hall","x":8,"y":2}],"people":["#
            + [person("Alice", 1, irk: aliceKey), person("Bob", 2, irk: bobKey), person("Dave", 4, irk: strangerKey),
               person("Carol", 3, irk: nil)].joined(separator: ",")
            + #"],"seed":19,"pathLossExponent":2.7,"noiseSigma":3,"wallLoss":6,"advertisingInterval":0.2,"sensitivity":-98,"#
            + #""dwellMin":1000,"dwellMax":1000,"walkingSpeed":1.2,"addressRotation":40}"#
        return try! JSONDecoder().decode(SimulationScenario.self, from: Data(json.utf8))
    }()
    static let duration = 240.0

    /// Alice's key as the spec writes it, Bob's as an Apple keychain shows it (base64, reversed).
    static var beaconsMessage: String {
        let bobKeychain = Data(HexDigits.bytes(bobKey)!.reversed()).base64EncodedString()
        return #"{"revision":1,"beacons":[{"irk":"\#(aliceKey)","id":"alice-phone","name":"Alice's iPhone"},"#
            + #"{"irk":"\#(bobKeychain)","id":"bob-watch","name":"Bob's watch","awayTimeout":600},"#
            + #"{"beacon":"ibeacon-\#(uuid)-1-3","id":"carol","name":"Carol"}]}"#
    }

    /// Every spelling of the known keys that must appear nowhere but the state file.
    static var secrets: [String] {
        [aliceKey, bobKey].flatMap { hex -> [String] in
            let bytes = HexDigits.bytes(hex)!
            return [hex, hex.uppercased(), HexDigits.string(bytes.reversed()), HexDigits.string(bytes.reversed()).uppercased(),
                    Data(bytes.reversed()).base64EncodedString(), Data(bytes).base64EncodedString()]
        }
    }

    /// The node's capture: the simulator's adverts, and 3,000 one-off random addresses (no beacon,
    /// each heard once, resolvable-looking: top bits 01) spread over the capture.
    static func capture(node: String) throws -> String {
        let simulator = try #require(BeaconSimulator(scenario: scenario, nodeID: node))
        var records: [(Instant, [UInt8])] = simulator.advertisements(from: Instant(seconds: 0), to: Instant(seconds: duration))
            .map { ($0.time, Array($0.packet.dropFirst())) }
        var random = SeededRandom(seed: UInt64(node.utf8.count) &* 0x9E37_79B9)
        for index in 0..<3_000 {
            let address = 0x4000_0000_0000 | random.next() & 0x3FFF_FFFF_FFFF
            let wire = (0..<6).map { UInt8(truncatingIfNeeded: address >> UInt64(8 * $0)) }
            let data: [UInt8] = [0x02, 0x01, 0x1A, 0x03, 0xFF, 0x75, 0x00]
            var report: [UInt8] = [0x02, 0x01, 0x00, 0x01] + wire + [UInt8(data.count)] + data
            report.append(UInt8(bitPattern: -80))
            records.append((Instant(seconds: Double(index) * duration / 3_000), [0x3E, UInt8(report.count)] + report))
        }
        records.sort { $0.0 < $1.0 }
        let writer = BtsnoopWriter(datalink: .hciUART)
        var out = writer.header
        for (time, bytes) in records {
            writer.append(HCIPacket(type: .event, bytes: bytes[...]), direction: .received,
                          timestamp: Instant(seconds: 1_795_000_000 + time.seconds), to: &out)
        }
        let path = NSTemporaryDirectory() + "phones-\(node)-\(UUID().uuidString).btsnoop"
        try Data(out).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func phonesRotatingUnderKnownKeysAreOneIdentityEachAndTheKeysStayInTheStateFile() async throws {
        let broker = try await TestBroker.start()
        defer { broker.kill() }
        let recorder = try await TopicRecorder.start(broker, filter: "#")
        try broker.mosquittoPub(topic: "presence/config/beacons", message: Self.beaconsMessage, qos: 1, retain: true)

        var traces: [String] = []
        var logs: [String] = []
        var stateDirs: [String] = []
        var scratch: [String] = []  // every file and directory the agents were given, removed at the end
        defer { for path in scratch { try? FileManager.default.removeItem(atPath: path) } }
        let programs = try SpawnedPrograms()
        for (node, room) in [("kitchen-1", "kitchen"), ("hall-1", "hall")] {
            let capture = try Self.capture(node: node)
            let stateDir = NSTemporaryDirectory() + "agent-state-\(UUID().uuidString)"
            let trace = NSTemporaryDirectory() + "trace-\(node)-\(UUID().uuidString).csv"
            try programs.start(
                node, try BuildProducts.executable(named: "presence-agent"),
                ["run", "--node", node, "--room", room, "--source", "btsnoop:" + capture, "--speed", "0", "--exit-at-end",
                 "--broker", "mqtt://127.0.0.1:\(broker.port)", "--state-dir", stateDir, "--record", trace])
            #expect(try await programs.waitForExit(node) == 0)
            traces.append(trace)
            logs.append(try String(contentsOfFile: programs.logFile(of: node), encoding: .utf8))
            stateDirs.append(stateDir)
            scratch += [capture, trace, stateDir]
        }
        try await recorder.probe(through: broker, "after both agents")

        // One measurement stream per known device and node, under its alias; none for the phone
        // whose key nobody has, none for the flood, none under an address.
        let beaconTopics = Set(recorder.messages.map(\.topic).filter { $0.hasPrefix("presence/beacons/") })
        #expect(beaconTopics == [
            "presence/beacons/alice-phone/kitchen-1", "presence/beacons/alice-phone/hall-1",
            "presence/beacons/bob-watch/kitchen-1", "presence/beacons/bob-watch/hall-1",
            "presence/beacons/carol/kitchen-1", "presence/beacons/carol/hall-1",
        ])
        // Across every address the phone used: 240 s at one address per 40 s.
        let simulator = try #require(BeaconSimulator(scenario: Self.scenario, nodeID: "kitchen-1"))
        let aliceAddresses = Set(stride(from: 0.0, to: Self.duration, by: 40).map { simulator.address(person: 0, at: $0).description })
        #expect(aliceAddresses.count == 6)
        var heardAddresses = Set<String>()
        for message in recorder.messages where message.topic == "presence/beacons/alice-phone/kitchen-1" {
            guard case .object(let object) = try JSONParser.parse(message.payload) else {
                Issue.record("not an object: \(message.text)")
                continue
            }
            #expect(object["id"] == .string("alice-phone"))
            #expect(object["beacon"] == .string("irk-54903897edb0"))
            #expect(object["name"] == .string("Alice's iPhone"))
            if case .string(let address)? = object["address"] { heardAddresses.insert(address) }
        }
        // Measurements go out on change and heartbeat, not per advert: most addresses show.
        #expect(heardAddresses.isSubset(of: aliceAddresses) && heardAddresses.count >= 3, "\(heardAddresses)")
        // One track: it fell silent at no rotation (a silence is a measurement without rssi).
        let silences = recorder.texts("presence/beacons/alice-phone/kitchen-1").filter { !$0.contains("\"rssi\"") }
        #expect(silences.isEmpty)

        // The key is nowhere: no topic, payload, log line or trace; only the state file, mode 0600.
        let trace = try traces.map { try String(contentsOfFile: $0, encoding: .utf8) }.joined()
        // Every advert the node heard from the phone, whichever address, is the one device's.
        let aliceHeard = simulator.advertisements(from: Instant(seconds: 0), to: Instant(seconds: Self.duration))
            .filter { $0.person == "Alice" }.count
        #expect(trace.split(separator: "\n").filter { $0.contains(",kitchen-1,") && $0.contains(",irk-54903897edb0,") }.count == aliceHeard)
        for secret in Self.secrets {
            for message in recorder.messages where message.topic != "presence/config/beacons" {
                #expect(!message.topic.contains(secret) && !message.text.contains(secret), "\(message.topic)")
            }
            for log in logs { #expect(!log.contains(secret)) }
            #expect(!trace.contains(secret))
        }
        for stateDir in stateDirs {
            let saved = try String(contentsOfFile: stateDir + "/beacons.json", encoding: .utf8)
            #expect(saved.contains(Self.aliceKey))
            let mode = try FileManager.default.attributesOfItem(atPath: stateDir + "/beacons.json")[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }

        // The aggregator decides each device's room on the captures' clock, as the simulator placed them.
        let merged = NSTemporaryDirectory() + "trace-both-\(UUID().uuidString).csv"
        let lines = trace.split(separator: "\n").filter { !$0.hasPrefix("time,") }
        let header = try String(contentsOfFile: traces[0], encoding: .utf8).split(separator: "\n")[0]
        let sorted = lines.sorted { Double($0.split(separator: ",")[0])! < Double($1.split(separator: ",")[0])! }
        try ([header] + sorted).joined(separator: "\n").appending("\n").write(toFile: merged, atomically: true, encoding: .utf8)
        let replay = try ToolRunner.run(try BuildProducts.executable(named: "presence-aggregator"), ["replay", "--trace", merged])
        #expect(replay.status == 0, "\(replay.output)")
        var lastRoom: [String: String] = [:]
        for line in replay.output.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            if fields.count >= 3 { lastRoom[String(fields[1])] = String(fields[2]) }
        }
        let truth = simulator.truth(at: Instant(seconds: Self.duration - 1))
        #expect(lastRoom["irk-54903897edb0"] == truth["Alice"] ?? nil)
        let bob = BeaconID(try IdentityResolvingKey(parsing: Self.bobKey).canonicalID(sha256: LibCrypto().sha256)).rawValue
        #expect(lastRoom[bob] == truth["Bob"] ?? nil)
        #expect(Set(lastRoom.keys) == ["irk-54903897edb0", bob, "ibeacon-\(Self.uuid)-1-3"])
        await recorder.stop()
    }
}
