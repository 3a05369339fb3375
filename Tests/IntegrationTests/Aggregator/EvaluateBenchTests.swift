import Foundation
import TestSupport
import Testing

/// `presence-bench evaluate` as the Room decisions article runs it, on two short walks of the hall:
/// the at-rest message rate it reports (the budget of 2 per beacon per node per minute) must be the
/// one of the node filter it replays, not the defaults' whatever the flags say; and its body-fade
/// stress test (`--body-fades`) is reported and refuses a meaningless interval.
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

    @Test("--body-fades reports the fades it added and changes what is decided; an interval under a second or no number is refused by name")
    func bodyFades() throws {
        let site = try TwoWalks()
        defer { site.remove() }
        let plain = try site.evaluate([])
        let faded = try site.evaluate(["--body-fades", "5"])
        let fades = try #require(faded["bodyFades"] as? [String: Any])
        #expect((fades["meanInterval"] as? NSNumber)?.doubleValue == 5)
        #expect((fades["depth"] as? [NSNumber])?.map(\.doubleValue) == [10, 20])
        #expect(plain["bodyFades"] == nil)
        func summary(_ report: [String: Any]) -> NSDictionary? {
            let sites = report["sites"] as? [String: Any]
            let modes = (sites?.values.first as? [String: Any])?["modes"] as? [String: Any]
            return (modes?["defaults"] as? [String: Any])?["summary"] as? NSDictionary
        }
        #expect(summary(plain) != nil && summary(plain) != summary(faded))
        for bad in ["0", "-3", "0.001", "nan"] {
            let result = try ToolRunner.run(site.bench, ["evaluate", "--traces", site.directory.path, "--body-fades=\(bad)"],
                                            separateErrors: true)
            #expect(result.status != 0)
            #expect(result.errors.contains("--body-fades"), "\(result.errors)")
        }
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
