import Foundation
import TestSupport
import Testing

/// `presence-bench evaluate` as the Room decisions article runs it, on two short walks of the hall:
/// the at-rest message rate it reports (the budget of 2 per beacon per node per minute) must be the
/// one of the node filter it replays, not the defaults' whatever the flags say; its worn tag
/// (`--worn-tag`) is reported and repeats; Bermuda's rule is scored beside ours; and `signal-figures`
/// prints the table the worn tag is calibrated to; `--markdown` prints the results page (docs/Results.md).
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

    @Test("--worn-tag reports the worn tag it replayed and changes what is decided; Bermuda's rule is scored beside ours")
    func wornTag() throws {
        let site = try TwoWalks()
        defer { site.remove() }
        let plain = try site.evaluate([])
        let worn = try site.evaluate(["--worn-tag"])
        let model = try #require(worn["wornTag"] as? [String: Any])
        #expect((model["interval"] as? NSNumber)?.doubleValue == 0.2)
        #expect(plain["wornTag"] == nil)
        func summary(_ report: [String: Any], _ key: String) -> NSDictionary? {
            let site = (report["sites"] as? [String: Any])?.values.first as? [String: Any]
            if key == "bermuda" { return (site?["bermuda"] as? [String: Any])?["summary"] as? NSDictionary }
            return ((site?["modes"] as? [String: Any])?[key] as? [String: Any])?["summary"] as? NSDictionary
        }
        #expect(summary(plain, "defaults") != nil && summary(plain, "defaults") != summary(worn, "defaults"))
        let bermuda = try #require(summary(plain, "bermuda"))
        #expect((bermuda["recordings"] as? NSNumber)?.intValue == 2)
        #expect(summary(plain, "bermuda") != summary(worn, "bermuda"))
        // The same run twice is the same worn tag.
        #expect(summary(try site.evaluate(["--worn-tag"]), "defaults") == summary(worn, "defaults"))
        // The worn profile (a known beacon marked worn) is scored beside the defaults on the worn
        // walks, and on the recorded ones when asked.
        #expect(summary(worn, "wornProfile") != nil && summary(plain, "wornProfile") == nil)
        #expect(summary(try site.evaluate(["--worn-profile"]), "wornProfile") != nil)
    }

    @Test("evaluate --candidate scores decision settings over draws of the worn walks, Bermuda's rule, the signal's oracles and the rise-gated ones first; a bad one is named")
    func candidateSearch() throws {
        let site = try TwoWalks()
        defer { site.remove() }
        let result = try ToolRunner.run(site.bench, ["evaluate", "--data", site.data, "--traces", site.directory.path,
                                                     "--worn-draws", "2", "--candidate", "margin=2.5,fastLead=4,fastFor=1",
                                                     "--rise-oracle", "lead=4,rise=6,slowLead=4,slowFor=10"], separateErrors: true)
        #expect(result.status == 0, "\(result.errors)")
        let lines = try result.output.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(lines.map { $0["candidate"] as? String } == [
            "bermuda", "oracle-raw", "oracle-mean1s", "oracle-held1s", "oracle-pair", "oracle-published-raw", "oracle-published-held1s",
            "rise:lead=4,rise=6,slowLead=4,slowFor=10", "rise-published:lead=4,rise=6,slowLead=4,slowFor=10",
            "margin=2.5,fastLead=4,fastFor=1",
        ])
        #expect(((lines.last?["worn"] as? [String: Any])?.values.first as? [String: Any])?["flaps"] != nil)
        // Each oracle is scored like a rule: flaps, changes missed, and a median switch unless it
        // followed no change at all (a missed change has no switch time, as the yardstick scores it).
        for line in lines where ["oracle-", "rise"].contains(where: { (line["candidate"] as? String)?.hasPrefix($0) == true }) {
            let figures = (line["worn"] as? [String: Any])?.values.first as? [String: Any]
            #expect(figures?["flaps"] is Int && figures?["missed"] is Int, "\(line)")
            #expect(figures?["medianSwitch"] is Double || (figures?["missed"] as? Int ?? 0) > 0, "\(line)")
        }
        let bad = try ToolRunner.run(site.bench, ["evaluate", "--data", site.data, "--traces", site.directory.path,
                                                  "--candidate", "margin=wide"], separateErrors: true)
        #expect(bad.status != 0 && bad.errors.contains("--candidate: 'margin=wide' is not key=number"), "\(bad.errors)")
        let badOracle = try ToolRunner.run(site.bench, ["evaluate", "--data", site.data, "--traces", site.directory.path,
                                                        "--rise-oracle", "lead=4,width=2"], separateErrors: true)
        #expect(badOracle.status != 0 && badOracle.errors.contains("--rise-oracle: 'width=2' is not one of"), "\(badOracle.errors)")
        // A report scores one draw: asking it for twelve is an error, not a one-draw figure passed off as twelve.
        let draws = try ToolRunner.run(site.bench, ["evaluate", "--data", site.data, "--traces", site.directory.path,
                                                    "--worn-tag", "--worn-draws", "12"], separateErrors: true)
        #expect(draws.status != 0 && draws.errors.contains("--worn-draws 12: only a --candidate or --rise-oracle search"), "\(draws.errors)")
    }

    @Test("signal-figures prints the house's column beside each directory's, recorded or worn")
    func signalFigures() throws {
        let site = try TwoWalks()
        defer { site.remove() }
        func figures(_ flags: [String]) throws -> [String: Any] {
            let result = try ToolRunner.run(site.bench, ["signal-figures", site.directory.path] + flags, separateErrors: true)
            #expect(result.status == 0, "\(result.errors)")
            return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        }
        let recorded = try figures([]), worn = try figures(["--worn-tag"])
        let house = try #require(recorded["house"] as? [String: Any])
        #expect((house["packetsPerSecondPerReceiver"] as? NSNumber)?.doubleValue == 2.1)
        func rate(_ report: [String: Any]) -> Double? {
            ((report["columns"] as? [String: Any])?.values.first as? [String: Any]).flatMap {
                ($0["packetsPerSecondPerReceiver"] as? NSNumber)?.doubleValue
            }
        }
        // The hall's receivers hear about two adverts a second (issue 40's table: 1.9).
        let recordedRate = try #require(rate(recorded))
        #expect(recordedRate > 1.5 && recordedRate < 2.5, "\(recordedRate)")
        #expect(rate(worn) != nil && worn["wornTag"] != nil && recorded["wornTag"] == nil)
        let bad = try ToolRunner.run(site.bench, ["signal-figures", site.directory.path + "/none"], separateErrors: true)
        #expect(bad.status != 0 && bad.errors.contains("none"), "\(bad.errors)")
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
