import BeaconCore
import Foundation
import PresenceAggregator
import RoomDecisions
import TestSupport
import Testing

/// `presence-aggregator replay --config FILE` decides a beacon that FILE's `beacons:` marks `worn`
/// with the worn profile, as the live aggregator does, and with FILE's `decision.worn` settings
/// when it gives them: the real binary on a recorded walk (a hall walk, its tag renamed to a
/// canonical id a known-beacon entry can name).
@Suite struct WornReplayCommandTests {
    private static let beacon = "mac-c4a1b2c3d4e5"

    /// A hall walk with its tag renamed to `beacon`, in a fresh directory.
    private func walk() throws -> (directory: String, trace: String) {
        let directory = try TestBroker.makeTemporaryDirectory()
        let source = try String(contentsOfFile: RecordedData.path("traces") + "/danis-straight_04.trace.csv", encoding: .utf8)
        // CRLF is one Character in Swift: make it LF before splitting.
        var lines = source.replacingOccurrences(of: "\r\n", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = lines[0].split(separator: ",").map(String.init)
        let column = try #require(header.firstIndex(of: "beacon"))
        for index in lines.indices.dropFirst() where !lines[index].isEmpty {
            var fields = lines[index].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            fields[column] = Self.beacon
            lines[index] = fields.joined(separator: ",")
        }
        let trace = directory + "/walk.trace.csv"
        try lines.joined(separator: "\n").write(toFile: trace, atomically: true, encoding: .utf8)
        return (directory, trace)
    }

    private func replay(_ trace: String, config: String?) throws -> String {
        let tool = try BuildProducts.executable(named: "presence-aggregator")
        let result = try ToolRunner.run(tool, ["replay", "--trace", trace] + (config.map { ["--config", $0] } ?? []),
                                        separateErrors: true)
        #expect(result.status == 0, "\(result.errors)")
        return result.output
    }

    /// What the library decides on the same trace with `decision` for every beacon; `worn`: the tag
    /// marked worn in the nodes' tracks too, so they report its rises (`RiseReport`), as `replay` does.
    private func expected(_ trace: String, _ decision: RoomDecisionParameters, worn: Bool = false) throws -> String {
        var replay = TraceReplay(decision: decision, wornRule: decision.rule)
        if worn { replay.knownBeacons = [KnownBeacon(beacon: BeaconID(rawValue: Self.beacon), worn: true)] }
        var rows: [String] = [ReplayCSV.decisionHeader]
        for sample in try TraceFile.samples(path: trace) {
            for timed in replay.step(sample).decisions { rows.append(ReplayCSV.decisionRow(timed.decision, at: timed.time)) }
        }
        return rows.joined(separator: "\n") + "\n"
    }

    @Test func aBeaconMarkedWornIsDecidedWithTheWornProfileAndItsSettings() throws {
        let (directory, trace) = try walk()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let plain = try replay(trace, config: nil)
        #expect(plain == (try expected(trace, .default)))

        let marked = directory + "/worn.yaml"
        try """
            beacons:
              - {beacon: \(Self.beacon), id: alice-band, worn: true}
            """.write(toFile: marked, atomically: true, encoding: .utf8)
        let worn = try replay(trace, config: marked)
        #expect(worn == (try expected(trace, RoomDecisionParameters.default.worn, worn: true)))
        #expect(worn != plain)

        // The operator's decision.worn settings over the profile's; the site's settle time stays.
        let tuned = directory + "/tuned.yaml"
        try """
            decision:
              settleTime: 2
              worn:
                dwell: 2
                fastLead: off
            beacons:
              - {beacon: \(Self.beacon), id: alice-band, worn: true}
            """.write(toFile: tuned, atomically: true, encoding: .utf8)
        var rule = SwitchingRule.worn
        rule.dwell = 2
        rule.fastLead = .infinity
        var site = RoomDecisionParameters.default
        site.settleTime = 2
        let tunedOutput = try replay(trace, config: tuned)
        #expect(tunedOutput == (try expected(trace, site.with(rule: rule), worn: true)))
        #expect(tunedOutput != worn)

        // Not marked, the same file's worn settings change nothing.
        let unmarked = directory + "/unmarked.yaml"
        try """
            decision:
              worn: {dwell: 2}
            beacons:
              - {beacon: \(Self.beacon), id: alice-band}
            """.write(toFile: unmarked, atomically: true, encoding: .utf8)
        #expect(try replay(trace, config: unmarked) == plain)
    }
}
