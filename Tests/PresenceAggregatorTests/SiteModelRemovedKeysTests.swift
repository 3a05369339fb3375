import BeaconCore
import Foundation
import PresenceAggregator
import RoomDecisions
import Testing

/// A model file an older `learn` wrote carries the keys of settings since removed (fixed-lag
/// smoothing, per-room leaving rates and their stays, shrinking rooms walked little: each measured
/// off, docs/research/2026-12-07-rejected-settings.md). Such a file still loads, deciding as it
/// did (they were off), with one warning naming the keys.
@Suite struct SiteModelRemovedKeysTests {
    /// A two-room model as an older `learn` wrote it: `old` with the removed keys, else without.
    static func file(old: Bool) -> String {
        let removed = old ? #", "smoothingLag": 0, "stayRateExponent": 0, "roomShrinkSeconds": 0"# : ""
        func stay(_ seconds: String) -> String { old ? #""stay": \#(seconds), "# : "" }
        return """
            {
              "format": "beacon-presence-site-model",
              "version": 2,
              "decision": "model",
              "parameters": {"sampleInterval": 0.1, "evidenceRate": 4, "switchRate": 1, "unwalkedMoveShare": 0.05\(removed)},
              "rooms": [
                {"name": "hall", "samples": 300, \(stay("19.5"))"neighbours": ["kitchen"], "nodes": {
                  "h1": {"heard": 0.99, "mean": -2.5, "sigma": 3.1},
                  "k1": {"heard": 0.8, "mean": 2.5, "sigma": 4}
                }},
                {"name": "kitchen", "samples": 300, \(stay("30"))"neighbours": ["hall"], "nodes": {
                  "h1": {"heard": 0.8, "mean": 2.5, "sigma": 4},
                  "k1": {"heard": 0.99, "mean": -2.5, "sigma": 3.1}
                }}
              ]
            }

            """
    }

    @Test("an old model file with removed keys loads as it decided, with one warning naming every key")
    func oldFileLoadsWithOneWarning() throws {
        let old = try temporaryFile(Self.file(old: true), name: "old.model.json")
        var warnings: [String] = []
        let model = try SiteModelFile.load(path: old, warnings: &warnings)
        #expect(model == (try SiteModel(json: Array(Self.file(old: false).utf8))))
        #expect(warnings.count == 1)
        let warning = try #require(warnings.first)
        #expect(warning.hasPrefix("\(old): ignored "))
        for key in ["parameters.smoothingLag", "parameters.stayRateExponent", "parameters.roomShrinkSeconds", "rooms[].stay"] {
            #expect(warning.contains(key), "\(warning)")
        }
        // What learn writes now carries none of them, and reads back without a warning.
        #expect(!model.json.contains("smoothingLag") && !model.json.contains("\"stay\""))
        var none: [String] = []
        _ = try SiteModel(json: Array(model.json.utf8), warnings: &none)
        #expect(none.isEmpty)
    }

    @Test("the aggregator's configuration keeps the warning for its log and check-config")
    func configurationShowsTheWarning() throws {
        let old = try temporaryFile(Self.file(old: true), name: "old.model.json")
        let config = try temporaryFile("decision:\n  model: \(old)\n", name: "aggregator.yaml")
        let loaded = try AggregatorConfiguration.load(file: config, environment: [:], flags: [:])
        #expect(loaded.siteModel != nil)
        #expect(loaded.siteModelWarnings.count == 1)
        let shown = AggregatorSetting.model.setting.show(loaded)
        #expect(shown.contains("warning: \(old): ignored parameters.smoothingLag"), "\(shown)")
    }

    @Test("a key that never existed is still an error naming it")
    func unknownKeysStayErrors() {
        let typo = Self.file(old: false).replacingOccurrences(of: "\"switchRate\"", with: "\"switchRat\"")
        #expect(throws: SiteModelFileError.self) { _ = try SiteModel(json: Array(typo.utf8)) }
    }
}
