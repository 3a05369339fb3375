import Foundation
import TestSupport
import Testing

/// `presence-bench evaluate` as the Room decisions article runs it, on two short walks of the hall:
/// the at-rest message rate it reports (the budget of 2 per beacon per node per minute) must be the
/// one of the node filter it replays, not the defaults' whatever the flags say; Bermuda's rule is
/// scored beside ours; `--markdown` prints the results page (docs/Results.md).
@Suite struct EvaluateBenchTests {
    @Test("the at-rest rate follows the node filter replayed: within the budget by default, far above it with q = 3")
    func atRestFollowsTheFilter() throws {
        let site = try TwoWalks()
        defer { site.remove() }
        let evaluate = site.evaluate
        let defaults = try evaluate([])
        let faster = try evaluate(["--process-noise", "3"])
        let filter = try #require(faster["filter"] as? [String: Any])
        #expect((filter["processNoise"] as? NSNumber)?.doubleValue == 3)
        #expect(((defaults["filter"] as? [String: Any])?["processNoise"] as? NSNumber)?.doubleValue == 0.75)
        let atRest = try #require((defaults["messagesPerBeaconNodeMinuteAtRest"] as? NSNumber)?.doubleValue)
        let atRestFaster = try #require((faster["messagesPerBeaconNodeMinuteAtRest"] as? NSNumber)?.doubleValue)
        // 1.42 with the defaults (Tracking.md); 7.7 with q = 3 (the Room decisions article).
        #expect(atRest > 1 && atRest <= 2, "\(atRest)")
        #expect(atRestFaster > 5, "\(atRestFaster)")
    }

    @Test("Bermuda's rule is scored beside ours on every recording")
    func bermudaBesideOurs() throws {
        let site = try TwoWalks()
        defer { site.remove() }
        let plain = try site.evaluate([])
        func summary(_ report: [String: Any], _ key: String) -> NSDictionary? {
            let site = (report["sites"] as? [String: Any])?.values.first as? [String: Any]
            if key == "bermuda" { return (site?["bermuda"] as? [String: Any])?["summary"] as? NSDictionary }
            return ((site?["modes"] as? [String: Any])?[key] as? [String: Any])?["summary"] as? NSDictionary
        }
        #expect(summary(plain, "defaults") != nil)
        let bermuda = try #require(summary(plain, "bermuda"))
        #expect((bermuda["recordings"] as? NSNumber)?.intValue == 2)
    }

    @Test("evaluate --markdown prints the results page: which command and commit wrote it, then ours, Bermuda's rule, mqtt_room's and the baseline per site")
    func resultsPage() throws {
        let site = try TwoWalks()
        defer { site.remove() }
        let result = try ToolRunner.run(site.bench, ["evaluate", "--data", site.data, "--traces", site.directory.path,
                                                     "--physics-only", "--markdown"], separateErrors: true)
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first?.hasPrefix("Written by `presence-bench evaluate --markdown` on commit ") == true, "\(lines.first ?? "")")
        // The site's own table: a row per way of deciding scored (no learned model with --physics-only),
        // each with an accuracy between 0 and 1.
        let heading = try #require(lines.firstIndex(of: "## \(site.directory.lastPathComponent)"), "\(result.output)")
        let table = lines[heading...].filter { $0.hasPrefix("| ") }
        #expect(table.first == "| method | mean accuracy | flaps | median switch | missed | true changes |")
        let cells = table.dropFirst().map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(cells.map { $0.first ?? "" } == ["**this aggregator, defaults**", "Bermuda 0.8's rule (as `evaluate` replays it)",
                                                 "Home Assistant's `mqtt_room` rule (as `evaluate` replays it)",
                                                 "strongest raw RSSI in the last 1 s"])
        for row in cells {
            let accuracy = row.count > 1 ? Double(row[1]) : nil
            #expect(accuracy.map { $0 > 0 && $0 <= 1 } == true, "\(row)")
        }
        #expect(!result.output.contains("{"), "JSON printed beside the page")
    }

    /// Two of the hall's shortest walks, linked into a site of their own, and `evaluate` on it.
    struct TwoWalks {
        let bench: String
        let data: String
        let directory: URL

        init() throws {
            bench = try BuildProducts.executable(named: "presence-bench")
            data = try RecordedData.path("")
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("evaluate-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for walk in ["danis-straight_03", "danis-straight_04"] {
                for kind in ["trace", "truth"] {
                    try FileManager.default.createSymbolicLink(
                        atPath: directory.appendingPathComponent("\(walk).\(kind).csv").path,
                        withDestinationPath: data + "/traces/\(walk).\(kind).csv")
                }
            }
        }

        func evaluate(_ flags: [String]) throws -> [String: Any] {
            let result = try ToolRunner.run(bench, ["evaluate", "--data", data, "--traces", directory.path] + flags,
                                            separateErrors: true)
            #expect(result.status == 0, "\(result.errors)")
            return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }
}
