import BeaconCore
import RoomDecisions
import BluetoothHCI
import Foundation
import PresenceAggregator
import TestSupport
import Testing

/// The operator's loop, end to end, in the simulated building whose truth is known: four
/// `presence-agent run --source simulate:FILE` nodes and `presence-aggregator run --record` on a
/// private mosquitto; the truth labelled from the simulator as a person typing each room they
/// enter would (`TruthLabeler`, on the record's clock); `learn` on the two halves of the walk;
/// `replay --model` of the whole recording scored against the truth. The simulator runs in wall
/// time, so the walk takes its 36 s; people stay 5–9 s per room here. Timeouts are failure guards.
@Suite(.serialized) struct SiteModelLoopTests {
    static let uuid = "fda50693-a4e2-4fb1-afcf-c6eb07647825"

    @Test func recordLabelLearnReplay() async throws {
        let site = try await ProgramSite.start()
        defer { site.stop() }
        let (agent, aggregator, broker, work, url) = (site.agent, site.aggregator, site.broker, site.work, site.url)

        var scenario = SimulationScenario.demo
        scenario.dwellMin = 5
        scenario.dwellMax = 9
        scenario.walkingSpeed = 2
        try JSONEncoder().encode(scenario).write(to: URL(fileURLWithPath: work + "/building.json"))
        // Carol carries a phone known by its key (SimulationScenario.demoPhoneKey, canonical id
        // irk-2178bafcf505): the nodes get the key, the record and the replay name her by that id.
        let people = scenario.people.map { person in
            (name: person.name, beacon: person.irk == nil ? "ibeacon-\(person.uuid)-\(person.major)-\(person.minor)" : "irk-2178bafcf505")
        }
        let beacons = zip(scenario.people, people).map { person, entry in
            person.irk.map { #"{"irk":"\#($0)","id":"\#(person.name.lowercased())"}"# } ?? #"{"beacon":"\#(entry.beacon)"}"#
        }
        try broker.mosquittoPub(topic: "presence/config/beacons",
                                message: #"{"revision":1,"beacons":[\#(beacons.joined(separator: ","))]}"#, qos: 1, retain: true)
        try "source: simulate:\(work)/building.json\ntracking:\n  pathLossExponent: 2.7\n"
            .write(toFile: work + "/agent.yaml", atomically: true, encoding: .utf8)
        try "broker: \(url)\ndecision:\n  pathLossExponent: 2.7\nhomeAssistant:\n  discovery: false\n"
            .write(toFile: work + "/aggregator.yaml", atomically: true, encoding: .utf8)

        let programs = SpawnedPrograms(directory: work)
        let record = work + "/walk.trace.csv"
        try programs.start("aggregator", aggregator, ["run", "--config", work + "/aggregator.yaml", "--record", record])
        let status = try await TopicRecorder.start(broker, filter: "presence/aggregator/status", clientID: "loop-status")
        try await status.wait(forTopic: "presence/aggregator/status") { $0.text == "online" }
        await status.stop()
        for node in scenario.nodes {
            try programs.start(node.id, agent, [
                "run", "--config", work + "/agent.yaml", "--node", node.id, "--room", node.room, "--broker", url,
                "--state-dir", work + "/state-\(node.id)",
            ])
        }
        // Labelled as the person would: the room they enter, as they cross its doorway (the room
        // holding the simulated position).
        let simulator = try #require(BeaconSimulator(scenario: scenario, nodeID: scenario.nodes[0].id))
        let rooms = scenario.rooms
        @Sendable func labels(from first: Instant, to last: Instant) -> [TruthSample] {
            var labelers = people.map { TruthLabeler(beacon: BeaconID(rawValue: $0.beacon), interval: 0.25) }
            var truth: [TruthSample] = []
            var time = first
            while time <= last {
                for index in people.indices {
                    let position = simulator.position(person: index, at: time)
                    guard let room = rooms.first(where: { $0.contains(position) })?.id,
                        labelers[index].current?.room != room
                    else { continue }
                    truth += labelers[index].enter(room, at: time)
                }
                time = time.advanced(by: 0.25)
            }
            for index in labelers.indices { truth += labelers[index].finish(at: last) }
            return truth.sorted { $0.time < $1.time }
        }
        // The walk: until the record spans 36 s (the record is flushed row by row) and the people
        // changed rooms at least 6 times in it, enough to judge; the simulated walk's moves depend
        // on the hour it runs at, and 36 s held only 5 once.
        try await eventually("a 36 s recording with 6 moves", timeout: .seconds(120)) {
            guard let samples = try? TraceFile.samples(path: record), let first = samples.first, let last = samples.last,
                last.time.since(first.time) >= 36
            else { return false }
            let truth = labels(from: first.time, to: last.time)
            let moves = people.map { person in
                let rooms = truth.filter { $0.beacon.rawValue == person.beacon }.map(\.room)
                return zip(rooms, rooms.dropFirst()).filter { $0 != $1 }.count
            }
            return moves.reduce(0, +) >= 6
        }
        for (name, exit) in try await programs.terminateAll() {
            #expect(exit == 0, "\(name) exited with \(exit)")
        }

        // The record: published measurements (a proximity column), on the Unix clock.
        let samples = try TraceFile.samples(path: record)
        #expect(samples.allSatisfy { $0.publication != nil })
        let first = try #require(samples.first?.time), last = try #require(samples.last?.time)
        #expect(abs(first.seconds - Date().timeIntervalSince1970) < 120)

        let truth = labels(from: first, to: last)

        // Two halves of the walk, as two labelled recordings.
        let middle = first.advanced(by: last.since(first) / 2)
        let recordLines = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n").dropFirst()
        let learnDirectory = work + "/walks"
        try FileManager.default.createDirectory(atPath: learnDirectory, withIntermediateDirectories: true)
        for (name, inHalf) in [("first", { (t: Instant) in t < middle }), ("second", { (t: Instant) in t >= middle })] {
            let rows = recordLines.filter { line in
                Double(line.prefix { $0 != "," }).map { inHalf(Instant(seconds: $0)) } ?? false
            }
            try ([ReplayCSV.recordHeader] + rows.map(String.init)).joined(separator: "\n")
                .write(toFile: "\(learnDirectory)/\(name).trace.csv", atomically: true, encoding: .utf8)
            try ([TruthLabeler.header] + truth.filter { inHalf($0.time) }.map(TruthLabeler.row)).joined(separator: "\n")
                .write(toFile: "\(learnDirectory)/\(name).truth.csv", atomically: true, encoding: .utf8)
        }
        let model = work + "/building.model.json"
        let learned = try ToolRunner.run(aggregator, ["learn", "--traces", learnDirectory, "--output", model], separateErrors: true)
        #expect(learned.status == 0, "\(learned.errors)")
        #expect(learned.output.contains("nodes (4): bedroom-1, kitchen-1, living-1, office-1"), "\(learned.output)")
        #expect(learned.output.contains("leave-one-recording-out"), "\(learned.output)")
        #expect(learned.output.contains("verdict: "), "\(learned.output)")

        // replay --model of the whole recording follows the people, at least as well as the
        // physics decision does on the same recording.
        func score(_ arguments: [String]) throws -> RoomDecisionScore {
            let replay = try ToolRunner.run(aggregator, ["replay", "--trace", record] + arguments, separateErrors: true)
            #expect(replay.status == 0, "\(replay.errors)")
            var decisions: [String: [(time: Instant, room: String)]] = [:]
            for line in replay.output.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                guard fields.count >= 3, let seconds = Double(fields[0]) else { continue }
                decisions[String(fields[1]), default: []].append((Instant(seconds: seconds), String(fields[2])))
            }
            return RoomDecisionScore.pooled(people.map { person in
                RoomDecisionScore(decisions: decisions[person.beacon] ?? [],
                                  truth: truth.filter { $0.beacon.rawValue == person.beacon })
            })
        }
        let learnedScore = try score(["--model", model])
        let physicsScore = try score(["--config", work + "/aggregator.yaml"])
        #expect(learnedScore.trueChanges >= 6, "a walk with too few moves to judge: \(learnedScore)")
        // Measured: 0.81 model / 0.76 physics on a quiet machine, 0.69 / 0.60 with the whole test
        // suite running beside it (the simulated nodes publish late), and 0.596 / 0.556 in one CI
        // run whose walk (it depends on the hour) was harder for both. The floor only says the
        // model decides (four rooms at random: about 0.25); the line below compares it with physics.
        #expect(learnedScore.accuracy >= 0.5, "model \(learnedScore), physics \(physicsScore)\n\(learned.output)")
        #expect(learnedScore.accuracy >= physicsScore.accuracy - 0.03, "model \(learnedScore), physics \(physicsScore)\n\(learned.output)")
        print("site model loop: model accuracy \(learnedScore.accuracy) flaps \(learnedScore.flaps) latency \(learnedScore.medianSwitchLatency ?? -1); physics \(physicsScore.accuracy) \(physicsScore.flaps) \(physicsScore.medianSwitchLatency ?? -1)")
    }
}
