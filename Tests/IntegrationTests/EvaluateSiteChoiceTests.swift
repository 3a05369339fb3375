import Foundation
import TestSupport
import Testing

/// `presence-bench evaluate --site` picks sites by name and scores them in every mode; a name or a
/// setting it does not know is an error naming it.
@Suite struct EvaluateSiteChoiceTests {
    @Test func siteNamesASiteAndUnknownNamesAreErrors() throws {
        let bench = try BuildProducts.executable(named: "presence-bench")
        // A data directory holding two of the flat's real walks, so it stays quick.
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("sites-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        try FileManager.default.createDirectory(atPath: data + "/traces-flat", withIntermediateDirectories: true)
        let flat = try RecordedData.path("traces-flat")
        for name in ["flat-calib2", "flat-test_robot"] {
            for kind in [".trace.csv", ".truth.csv"] {
                try FileManager.default.copyItem(atPath: flat + "/" + name + kind, toPath: data + "/traces-flat/" + name + kind)
            }
        }
        let result = try ToolRunner.run(bench, ["evaluate", "--data", data, "--site", "flat"], separateErrors: true)
        #expect(result.status == 0, "\(result.errors)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let sites = try #require(report["sites"] as? [String: Any])
        #expect(Set(sites.keys) == ["flat"])
        let modes = try #require((sites["flat"] as? [String: Any])?["modes"] as? [String: Any])
        #expect(modes["defaults"] != nil && modes["learned"] != nil && modes["learnedModelAlone"] != nil)
        // Per room, what the learned mode had right.
        #expect(((modes["learnedModelAlone"] as? [String: Any])?["rooms"] as? [String: Any])?["bathroom"] != nil)

        let setting = try ToolRunner.run(bench, ["evaluate", "--data", data, "--site", "flat", "--site-model-parameter", "switchOdds=0"],
                                         separateErrors: true)
        #expect(setting.status != 0)
        #expect(setting.errors.contains("--site-model-parameter: 'switchOdds=0'"), "\(setting.errors)")

        let unknown = try ToolRunner.run(bench, ["evaluate", "--data", data, "--site", "attic"], separateErrors: true)
        #expect(unknown.status != 0)
        #expect(unknown.errors.contains("--site: 'attic' is not one of danis, sal, flat, house, house-pir, house-rooms, house-rooms-pir"),
                "\(unknown.errors)")
        let house = try ToolRunner.run(bench, ["evaluate", "--data", data, "--site", "house-rooms"], separateErrors: true)
        #expect(house.status != 0)
        #expect(house.errors.contains("--site house-rooms: give the house's folder with --house"), "\(house.errors)")
    }
}
