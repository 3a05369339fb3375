import Foundation
import TestSupport
import Testing

/// `presence-bench evaluate` scores the stand-in for a home with rooms that have no receiver (issue
/// 36), `flat-no-bath-kitchen`, beside the other sites, in both modes; `--site` picks sites by name.
@Suite struct EvaluateStandInTests {
    @Test func theStandInIsASiteBesideTheFlatInBothModes() throws {
        let bench = try BuildProducts.executable(named: "presence-bench")
        // A data directory holding two of the flat's real walks, the ones with the bathroom and the
        // kitchen (calib2, test_robot), so it stays quick.
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("stand-in-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        try FileManager.default.createDirectory(atPath: data + "/traces-flat", withIntermediateDirectories: true)
        let flat = try RecordedData.path("traces-flat")
        for name in ["flat-calib2", "flat-test_robot"] {
            for kind in [".trace.csv", ".truth.csv"] {
                try FileManager.default.copyItem(atPath: flat + "/" + name + kind, toPath: data + "/traces-flat/" + name + kind)
            }
        }
        let result = try ToolRunner.run(bench, ["evaluate", "--data", data, "--site", "flat", "--site", "flat-no-bath-kitchen"],
                                        separateErrors: true)
        #expect(result.status == 0, "\(result.errors)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let sites = try #require(report["sites"] as? [String: Any])
        #expect(Set(sites.keys) == ["flat", "flat-no-bath-kitchen"])
        let standIn = try #require(sites["flat-no-bath-kitchen"] as? [String: Any])
        #expect((standIn["directory"] as? String)?.hasSuffix("traces-flat without anchor5, anchor6") == true)
        let modes = try #require(standIn["modes"] as? [String: Any])
        #expect(modes["defaults"] != nil && modes["learned"] != nil && modes["learnedModelAlone"] != nil)
        // learn's own figure for the two together, and per room what each learned mode had right:
        // the rooms without a receiver are there.
        let together = try #require(modes["learnTogether"] as? [String: Any])
        let rooms = try #require(together["rooms"] as? [String: Any])
        #expect(rooms["bathroom"] != nil && rooms["kitchen"] != nil)
        #expect(((modes["learnedModelAlone"] as? [String: Any])?["rooms"] as? [String: Any])?["bathroom"] != nil)

        let setting = try ToolRunner.run(bench, ["evaluate", "--data", data, "--site", "flat", "--site-model-parameter", "switchOdds=0"],
                                         separateErrors: true)
        #expect(setting.status != 0)
        #expect(setting.errors.contains("--site-model-parameter: 'switchOdds=0'"), "\(setting.errors)")

        let unknown = try ToolRunner.run(bench, ["evaluate", "--data", data, "--site", "attic"], separateErrors: true)
        #expect(unknown.status != 0)
        #expect(unknown.errors.contains("--site: 'attic' is not one of danis, sal, flat, flat-no-bath-kitchen"), "\(unknown.errors)")
    }
}
