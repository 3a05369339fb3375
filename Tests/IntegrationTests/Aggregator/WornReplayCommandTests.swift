import BeaconCore
import Foundation
import PresenceAggregator
import RoomDecisions
import TestSupport
import Testing

/// `presence-aggregator replay --config FILE` decides a beacon that FILE's `beacons:` marks `worn`
/// as any other, and a FILE written before the worn profile was removed (its `decision.worn`
/// settings) still loads, with a warning naming them, and decides the same: the real binary on a
/// recorded walk (a hall walk, its tag renamed to a canonical id a known-beacon entry can name).
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

    /// `replay`'s decisions, and the warnings on its stderr (the walk's note of a line out of order aside).
    private func replay(_ trace: String, config: String?) throws -> (output: String, warnings: [String]) {
        let tool = try BuildProducts.executable(named: "presence-aggregator")
        let result = try ToolRunner.run(tool, ["replay", "--trace", trace] + (config.map { ["--config", $0] } ?? []),
                                        separateErrors: true)
        #expect(result.status == 0, "\(result.errors)")
        return (result.output, result.errors.split(separator: "\n").map(String.init).filter { $0.contains("warning") })
    }

    /// What the library decides on the same trace with the defaults.
    private func expected(_ trace: String) throws -> String {
        var replay = TraceReplay()
        var rows: [String] = [ReplayCSV.decisionHeader]
        for sample in try TraceFile.samples(path: trace) {
            for timed in replay.step(sample).decisions { rows.append(ReplayCSV.decisionRow(timed.decision, at: timed.time)) }
        }
        return rows.joined(separator: "\n") + "\n"
    }

    @Test func aBeaconMarkedWornIsDecidedAsAnyOtherAndOldWornSettingsOnlyWarn() throws {
        let (directory, trace) = try walk()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let plain = try replay(trace, config: nil)
        #expect(plain.output == (try expected(trace)))
        #expect(plain.warnings.isEmpty)

        let marked = directory + "/worn.yaml"
        try """
            beacons:
              - {beacon: \(Self.beacon), id: alice-band, worn: true}
            """.write(toFile: marked, atomically: true, encoding: .utf8)
        let worn = try replay(trace, config: marked)
        #expect(worn.output == plain.output)
        #expect(worn.warnings.isEmpty)

        // A file from before: its decision.worn settings are ignored with one warning naming them.
        let old = directory + "/old.yaml"
        try """
            decision:
              worn:
                dwell: 2
                fastLead: off
            beacons:
              - {beacon: \(Self.beacon), id: alice-band, worn: true}
            """.write(toFile: old, atomically: true, encoding: .utf8)
        let fromBefore = try replay(trace, config: old)
        #expect(fromBefore.output == plain.output)
        #expect(fromBefore.warnings.count == 1, "\(fromBefore.warnings)")
        #expect(fromBefore.warnings.first?.hasPrefix("replay: warning: \(old):2: decision.worn: removed (dwell, fastLead), ignored: ") == true,
                "\(fromBefore.warnings)")
    }
}
