import Foundation
import TestSupport
import Testing

/// `presence-bench evaluate` as the Room decisions article runs it, on two short walks of the hall:
/// the at-rest message rate it reports (the budget of 2 per beacon per node per minute) must be the
/// one of the node filter it replays, not the defaults' whatever the flags say.
@Suite struct EvaluateBenchTests {
    @Test("the at-rest rate follows the node filter replayed: within the budget by default, far above it with q = 3")
    func atRestFollowsTheFilter() throws {
        let bench = try BuildProducts.executable(named: "presence-bench")
        let data = try SharedData.path("")
        // Two of the hall's shortest walks, linked into a site of their own.
        let site = FileManager.default.temporaryDirectory.appendingPathComponent("evaluate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: site) }
        for walk in ["danis-straight_03", "danis-straight_04"] {
            for kind in ["trace", "truth"] {
                try FileManager.default.createSymbolicLink(
                    atPath: site.appendingPathComponent("\(walk).\(kind).csv").path,
                    withDestinationPath: data + "/traces/\(walk).\(kind).csv")
            }
        }
        func evaluate(_ flags: [String]) throws -> [String: Any] {
            let result = try ToolRunner.run(bench, ["evaluate", "--data", data, "--traces", site.path] + flags,
                                            separateErrors: true)
            #expect(result.status == 0, "\(result.errors)")
            return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        }
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
}
