import Foundation
import PresenceAggregator
import TestSupport
import Testing

/// `presence-aggregator learn --config FILE` learns a beacon that FILE's `beacons:` marks `worn` from
/// what its agents publish of it (its level, `WornLevel`), as `replay --config FILE` decides it: the
/// model is the one learned from the same walks replayed with `replay --config FILE --output
/// published`. A configuration it cannot read is named. The real binary on two of the flat's walks,
/// their tag renamed to a canonical id a known-beacon entry can name.
@Suite struct WornLearnCommandTests {
    private static let band = "mac-c4a1b2c3d4e5"
    private static let walks = ["flat-calib3", "flat-calib4"]

    /// `presence-aggregator ARGUMENTS`, expected to succeed: its standard output.
    @discardableResult
    private func run(_ arguments: [String]) throws -> String {
        let result = try ToolRunner.run(try BuildProducts.executable(named: "presence-aggregator"), arguments, separateErrors: true)
        #expect(result.status == 0, "\(arguments): \(result.errors)")
        return result.output
    }

    /// The two walks with the band renamed, under `work/raw`, and a file marking it worn.
    private func site(_ work: String) throws -> (raw: String, config: String) {
        try RecordedData.write("traces-flat", stems: Self.walks, renamingBeaconTo: Self.band, to: work + "/raw")
        let config = work + "/worn.yaml"
        try "beacons:\n  - {beacon: \(Self.band), id: alice-band, worn: true}\n".write(toFile: config, atomically: true, encoding: .utf8)
        return (work + "/raw", config)
    }

    @Test func aBeaconMarkedWornIsLearnedFromItsLevelAsItsAgentsPublishIt() throws {
        let work = try TestBroker.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let (raw, config) = try site(work)
        try run(["learn", "--traces", raw, "--config", config, "--output", work + "/config.json", "--no-score"])

        // What a user would otherwise do: replay the walks as the worn band's agents publish them, learn from that.
        let published = work + "/published"
        try FileManager.default.createDirectory(atPath: published, withIntermediateDirectories: true)
        for walk in Self.walks {
            let rows = try run(["replay", "--config", config, "--trace", raw + "/\(walk).trace.csv", "--output", "published"])
            #expect(rows.contains(",level\n"))
            try rows.write(toFile: published + "/\(walk).trace.csv", atomically: true, encoding: .utf8)
            try FileManager.default.copyItem(atPath: raw + "/\(walk).truth.csv", toPath: published + "/\(walk).truth.csv")
        }
        try run(["learn", "--traces", published, "--output", work + "/published.json", "--no-score"])
        try run(["learn", "--traces", raw, "--output", work + "/unmarked.json", "--no-score"])

        let fromConfig = try String(contentsOfFile: work + "/config.json", encoding: .utf8)
        #expect(fromConfig == (try String(contentsOfFile: work + "/published.json", encoding: .utf8)))
        // Without the file the band is learned from its Kalman level, as a beacon not marked worn: another model.
        #expect(fromConfig != (try String(contentsOfFile: work + "/unmarked.json", encoding: .utf8)))

        // Judged leave-one-out with the file too: each walk decided on the band's level.
        let judged = try run(["learn", "--traces", raw, "--config", config, "--output", work + "/judged.json"])
        #expect(judged.contains("leave-one-recording-out"), "\(judged)")
        #expect(judged.contains("verdict: "), "\(judged)")
    }

    @Test func aConfigurationItCannotReadIsNamedAndNothingIsWritten() throws {
        let work = try TestBroker.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let (raw, _) = try site(work)
        let tool = try BuildProducts.executable(named: "presence-aggregator")
        let missing = work + "/missing.yaml"
        let result = try ToolRunner.run(tool, ["learn", "--traces", raw, "--config", missing, "--output", work + "/model.json"],
                                        separateErrors: true)
        #expect(result.status == 2)
        #expect(result.errors == "learn: \(missing): cannot read the configuration file (No such file or directory)\n")
        #expect(!FileManager.default.fileExists(atPath: work + "/model.json"))

        // A file it can read with a mistake in it: the mistake named by file, line and field.
        let wrong = work + "/wrong.yaml"
        try "beacons:\n  - {beacon: \(Self.band), worn: maybe}\n".write(toFile: wrong, atomically: true, encoding: .utf8)
        let mistaken = try ToolRunner.run(tool, ["learn", "--traces", raw, "--config", wrong, "--output", work + "/model.json"],
                                          separateErrors: true)
        #expect(mistaken.status == 2)
        #expect(mistaken.errors.hasPrefix("learn: \(wrong):2"), "\(mistaken.errors)")
        #expect(mistaken.errors.contains("worn"), "\(mistaken.errors)")
        #expect(!FileManager.default.fileExists(atPath: work + "/model.json"))
    }
}
