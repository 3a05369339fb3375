import Foundation
import TestSupport
import Testing

/// The quick-start demo's moving parts, started as `.ci/demo` starts them: a private broker, the
/// built `presence-agent run --source simulate` for every room of the demo building, the built
/// `presence-aggregator run` with the three people as known beacons, and `presence-aggregator watch
/// --once`. The simulator runs in wall time, so this takes a few seconds: people are heard within a
/// second and placed after the 1 s settle time. Timeouts are failure guards only.
@Suite(.serialized) struct DemoTests {
    static let uuid = "fda50693-a4e2-4fb1-afcf-c6eb07647825"
    static let people = [("alice", "Alice", 1), ("bob", "Bob", 2), ("carol", "Carol", 3)]
    /// The demo phone's key (SimulationScenario.demoPhoneKey; canonical id irk-2178bafcf505).
    static let carolKey = "4a1d7c0e9b3f52a86e17d04c3b9f2a65"
    static let nodes = [("kitchen-1", "kitchen"), ("living-1", "living"), ("office-1", "office"), ("bedroom-1", "bedroom")]

    @Test func everyPersonGetsARoomAndWatchShowsIt() async throws {
        let site = try await ProgramSite.start()
        defer { site.stop() }
        let (agent, aggregator, broker, work, url) = (site.agent, site.aggregator, site.broker, site.work, site.url)

        // What the demo writes: the beacons pushed to the nodes, n = 2.7 like the simulated radio.
        // Carol carries a phone: the nodes know it by its key, the aggregator by the key's id.
        let beacons = Self.people.map { alias, name, minor in
            alias == "carol"
                ? #"{"irk":"\#(Self.carolKey)","id":"\#(alias)","name":"\#(name)"}"#
                : #"{"beacon":"ibeacon-\#(Self.uuid)-1-\#(minor)","id":"\#(alias)","name":"\#(name)"}"#
        }
        try broker.mosquittoPub(
            topic: "presence/config/beacons", message: #"{"revision":1,"beacons":[\#(beacons.joined(separator: ","))]}"#,
            qos: 1, retain: true)
        try "source: simulate\ntracking:\n  pathLossExponent: 2.7\n".write(toFile: work + "/agent.yaml", atomically: true, encoding: .utf8)
        let aggregatorYAML = "broker: \(url)\nbeacons:\n"
            + Self.people.map { alias, name, minor in
                let id = alias == "carol" ? "irk-2178bafcf505" : "ibeacon-\(Self.uuid)-1-\(minor)"
                return "  - { beacon: \(id), id: \(alias), name: \(name) }\n"
            }.joined()
            + "decision:\n  pathLossExponent: 2.7\n  settleTime: 3\nhomeAssistant:\n  discovery: false\n"
        try aggregatorYAML.write(toFile: work + "/aggregator.yaml", atomically: true, encoding: .utf8)

        let rooms = try await TopicRecorder.start(broker, filter: "presence/#", clientID: "demo-recorder")
        let programs = SpawnedPrograms(directory: work)
        // The aggregator first, as the demo starts it, so it hears every node's first measurement.
        try programs.start("aggregator", aggregator, ["run", "--config", work + "/aggregator.yaml"])
        try await rooms.wait(forTopic: "presence/aggregator/status") { $0.text == "online" }
        for (node, room) in Self.nodes {
            try programs.start(node, agent, [
                "run", "--config", work + "/agent.yaml", "--node", node, "--room", room, "--broker", url,
                "--state-dir", work + "/state-\(node)",
            ])
        }

        // Every person placed in one of the building's rooms.
        let roomNames = Set(Self.nodes.map(\.1))
        let placed = try await rooms.wait(for: "a room for Alice, Bob and Carol", timeout: .seconds(15)) { messages in
            Self.people.allSatisfy { alias, _, _ in
                messages.contains { $0.topic == "presence/locations/\(alias)/room" && roomNames.contains($0.text) }
            }
        }
        await rooms.stop()

        // `watch --once` shows the retained state: each person in the room the aggregator chose
        // (unless they moved in between, then the room of their newest location).
        let watch = try ToolRunner.run(aggregator, ["watch", "--once", "--broker", url], separateErrors: true)
        #expect(watch.status == 0, "\(watch.errors)")
        #expect(watch.errors.isEmpty)
        let lines = watch.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("presence @ mqtt://127.0.0.1:\(broker.port) · aggregator online · ") == true)
        let retained = try broker.mosquittoSub(topic: "presence/locations/+/room", count: 3)
        for (alias, name, _) in Self.people {
            let decided = placed.last { $0.topic == "presence/locations/\(alias)/room" && roomNames.contains($0.text) }?.text
            let row = lines.first { $0.hasPrefix("  \(name) ") }
            #expect(row != nil, "no row for \(name) in:\n\(watch.output)")
            let room = row?.split(separator: " ").dropFirst().first.map(String.init)
            #expect(room.map { roomNames.contains($0) && (retained.contains($0) || $0 == decided) } == true,
                    "\(name): \(row ?? "-") (decided \(decided ?? "-"), retained \(retained))\n\(watch.output)")
        }
        for (node, room) in Self.nodes {
            #expect(lines.contains { $0.hasPrefix("  \(node) ") && $0.contains(" \(room) ") && $0.hasSuffix("online") },
                    "\(node) not listed online in:\n\(watch.output)")
        }
        #expect(lines.last?.hasSuffix(" 0 malformed ignored") == true)

        // SIGTERM: every program says offline and exits 0.
        for (name, status) in try await programs.terminateAll() {
            #expect(status == 0, "\(name) exited with \(status):\n\(programs.log(of: name).suffix(2000))")
        }
    }
}
