import BeaconCore
import Foundation
import PresenceAggregator
import TestSupport
import Testing

/// `presence-aggregator watch` as users run it: the built executable against a real broker, its
/// output going to a pipe or a file (not a terminal), so it prints plain snapshots.
@Suite(.serialized) struct WatchCommandTests {
    private static let alice = BeaconID(rawValue: "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-1-1")

    @Test func badFlagsExitWithStatus2() throws {
        let executable = try BuildProducts.executable(named: "presence-aggregator")
        let broker = try ToolRunner.run(executable, ["watch", "--broker", "foo"], separateErrors: true)
        #expect(broker.status == 2)
        #expect(broker.errors == "watch: --broker: 'foo' is not mqtt://host[:port], mqtts://host[:port] or unix:///path/to/socket\n")
        #expect(broker.output.isEmpty)
        let duration = try ToolRunner.run(executable, ["watch", "--duration=-1"], separateErrors: true)
        #expect(duration.status == 64)
        #expect(duration.errors.contains("--duration must be a positive number of seconds"))
    }

    /// The retained state of a site, as the aggregator leaves it, is shown in one snapshot; a change
    /// gives another; SIGTERM ends the program with status 0.
    @Test func printsASnapshotPerChangeAndStopsOnSIGTERM() async throws {
        let broker = try await TestBroker.start()
        defer { broker.stop() }
        let location = BeaconLocation(
            id: "alice", beacon: Self.alice, name: "Alice", room: "kitchen", distance: 1.24, proximity: .near,
            node: "kitchen-1", since: Instant(seconds: 1_795_316_146), confidence: 0.9, candidates: ["kitchen": 1.24])
        try broker.mosquittoPub(topic: "site/aggregator/status", message: "online", qos: 1, retain: true)
        try broker.mosquittoPub(topic: "site/nodes/kitchen-1/status", message: "online", qos: 1, retain: true)
        try broker.mosquittoPub(
            topic: "site/nodes/kitchen-1/info", message: #"{"node":"kitchen-1","room":"kitchen","version":"0.1.0","source":"hci0"}"#,
            qos: 1, retain: true)
        try broker.mosquittoPub(topic: "site/locations/alice", message: location.json, qos: 1, retain: true)
        try broker.mosquittoPub(topic: "site/locations/alice/room", message: "kitchen", qos: 1, retain: true)
        try broker.mosquittoPub(
            topic: "site/rooms/kitchen",
            message: #"{"room":"kitchen","occupants":[{"id":"alice","name":"Alice","since":"2026-11-22T02:55:46.000Z","distance":1.24}],"count":1}"#,
            qos: 1, retain: true)

        // --once: one snapshot of what is retained, then exit 0.
        let executable = try BuildProducts.executable(named: "presence-aggregator")
        let url = "mqtt://127.0.0.1:\(broker.port)"
        let once = try ToolRunner.run(executable, ["watch", "--once", "--broker", url, "--root", "site"], separateErrors: true)
        #expect(once.status == 0)
        #expect(once.errors.isEmpty)
        let lines = once.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first?.hasPrefix("site @ mqtt://127.0.0.1:\(broker.port) · aggregator online · ") == true)
        #expect(lines.contains("  kitchen  Alice"))
        #expect(lines.contains { $0.hasPrefix("  Alice  kitchen  1.24 m    near       kitchen-1  02:55:46  ") })
        #expect(lines.contains("  kitchen-1  kitchen  online"))
        #expect(once.output.components(separatedBy: "aggregator online").count == 2)  // one snapshot

        // Live: a snapshot, then another after a change; SIGTERM stops it with status 0.
        let programs = try SpawnedPrograms()
        try programs.start("watch", executable, ["watch", "--broker", url, "--root", "site"])
        @Sendable func snapshots() -> [String] {
            let text = programs.log(of: "watch")
            return text.components(separatedBy: "\nsite @ ").filter { $0.hasSuffix("malformed ignored\n") }
        }
        // Snapshots come at most once a second, so the retained state may take more than one on a
        // busy machine: wait for one that shows all of it, then change something.
        try await waitUntil("a snapshot of the retained site") {
            snapshots().contains { $0.contains("  kitchen  Alice") && $0.contains("  kitchen-1  kitchen  online") }
        }
        try broker.mosquittoPub(topic: "site/nodes/kitchen-1/status", message: "offline", qos: 1, retain: true)
        try broker.mosquittoPub(topic: "site/events", message: "not json", qos: 1)
        try await waitUntil("a snapshot with the change") {
            snapshots().contains { $0.contains("  kitchen-1  kitchen  OFFLINE") && $0.hasSuffix("· 1 malformed ignored\n") }
        }
        #expect(try await programs.terminate("watch") == 0)
    }

    /// Polls a file-backed condition (the program's output) with a failure guard.
    private func waitUntil(_ what: String, _ condition: @escaping @Sendable () -> Bool) async throws {
        _ = try await within(what, timeout: .seconds(10)) {
            while !condition() { try await Task.sleep(for: .milliseconds(20)) }
            return true
        }
    }
}
