import BeaconCore
import RoomDecisions
import Foundation
import PresenceAggregator
import TestSupport
import Testing

/// A recorded trace replays as it was received.
@Suite struct RecordedTraceTests {
    @Test func publishedOutputIsARecordedTraceThatReplaysAsReceived() throws {
        let trace = try RecordedData.path("traces/danis-straight_01.trace.csv")
        var published: [String] = []
        try TraceReplayRunner.run(path: trace, output: .published) { published.append($0) }
        #expect(published.first == ReplayCSV.recordHeader)
        let recorded = try temporaryFile(published.joined(separator: "\n") + "\n", name: "recorded.trace.csv")
        // The recorded trace decides the rooms the raw one does: the same measurements reach the
        // decision (only the instants of the ticks between them differ).
        var fromRaw: [String] = [], fromRecord: [String] = []
        try TraceReplayRunner.run(path: trace, output: .decisions) { fromRaw.append($0) }
        try TraceReplayRunner.run(path: recorded, output: .decisions) { fromRecord.append($0) }
        #expect(fromRaw.count > 2)
        #expect(fromRaw.map { $0.split(separator: ",")[2] } == fromRecord.map { $0.split(separator: ",")[2] })
    }
}

@Suite struct TruthLabelerTests {
    @Test func fillsEachRoomAtTheIntervalUntilTheNextOne() {
        var labeler = TruthLabeler(beacon: BeaconID(rawValue: "keys"), interval: 1)
        var rows = labeler.enter("kitchen", at: Instant(seconds: 100))
        rows += labeler.enter("hall", at: Instant(seconds: 102.5))
        rows += labeler.finish(at: Instant(seconds: 104))
        #expect(rows.map(\.time.seconds) == [100, 101, 102, 102.5, 103.5, 104])
        #expect(rows.map(\.room) == ["kitchen", "kitchen", "kitchen", "hall", "hall", "hall"])
        #expect(rows.map(TruthLabeler.row).first == "100.000,keys,kitchen")
    }

    @Test func acceptsNumbersAndNamesOfTheGivenRoomsOnly() throws {
        let labeler = TruthLabeler(beacon: BeaconID(rawValue: "keys"), rooms: ["kitchen", "hall"])
        #expect(try labeler.room(named: "2") == "hall")
        #expect(try labeler.room(named: " kitchen ") == "kitchen")
        #expect(try labeler.room(named: "") == nil)
        #expect(throws: TruthLabeler.LineError.self) { _ = try labeler.room(named: "3") }
        #expect(throws: TruthLabeler.LineError.self) { _ = try labeler.room(named: "cellar") }
    }
}

@Suite struct SiteModelConfigurationTests {
    @Test func decisionModelLoadsTheModelAndABadOneNamesTheKeyAndTheFile() throws {
        let model = try #require(SiteModelEvaluation.learn(
            try SiteModelEvaluation.loadRecordings(
                directory: try RecordedData.path("traces"),
                names: ["danis-straight_01.trace.csv", "danis-straight_01.truth.csv"])))
        let good = try temporaryFile(model.json, name: "site.model.json")
        let config = try temporaryFile("decision:\n  model: \(good)\n", name: "aggregator.yaml")
        let loaded = try AggregatorConfiguration.load(file: config, environment: [:], flags: [:])
        #expect(loaded.siteModel == model.roundTripped)

        let bad = try temporaryFile("{\"format\": \"beacon-presence-site-model\",\n\"version\": 7}", name: "bad.json")
        let badConfig = try temporaryFile("decision:\n  model: \(bad)\n", name: "aggregator.yaml")
        #expect(throws: AggregatorConfigurationProblems.self) {
            _ = try AggregatorConfiguration.load(file: badConfig, environment: [:], flags: [:])
        }
        do {
            _ = try AggregatorConfiguration.load(file: badConfig, environment: [:], flags: [:])
        } catch {
            #expect("\(error)" == "\(badConfig):2: decision.model: \(bad): version: version 7 is not supported (this program reads versions 1 and 2)")
        }
        do {
            _ = try AggregatorConfiguration.load(file: nil, environment: ["PRESENCE_MODEL": bad], flags: [:])
        } catch {
            #expect("\(error)".hasPrefix("PRESENCE_MODEL: \(bad): version: "))
        }
    }
}

extension SiteModel {
    /// The model as its file reads back (numbers rounded as written).
    var roundTripped: SiteModel? { try? SiteModel(json: Array(json.utf8)) }
}
