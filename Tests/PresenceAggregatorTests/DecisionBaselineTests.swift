import BeaconCore
import RoomDecisions
import Foundation
import PresenceAggregator
import Testing
import TestSupport

/// Proof that a refactor changed no decision and no payload: every shared recording is replayed
/// through the physics decision and through the live aggregator core (what it publishes, topic by
/// topic, on the recording's own clock), with and without a site model learned from the site, and
/// each output's digest is compared with `Tests/Baselines/decisions.txt`.
///
/// A change meant to alter decisions or payloads (new defaults, a new field) re-records the file:
/// `RECORD_DECISION_BASELINE=1 swift test --filter DecisionBaselineTests`, and its commit says why.
@Suite struct DecisionBaselineTests {
    static let sites = ["traces", "traces-sal", "traces-flat"]

    @Test func replayedDecisionsAndPublishedPayloadsMatchTheRecordedBaseline() throws {
        var lines: [String] = []
        for site in Self.sites {
            let directory = try RecordedData.path(site)
            let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            let recordings = try SiteModelEvaluation.loadRecordings(directory: directory, names: names)
            let model = SiteModelEvaluation.learn(recordings)
            for recording in recordings {
                for (mode, siteModel) in [("physics", nil), ("model", model)] as [(String, SiteModel?)] {
                    let decisions = Self.decisionRows(recording, model: siteModel)
                    lines.append(Self.row(site, recording.name, "decisions-\(mode)", decisions))
                    let published = Self.coreRows(recording, model: siteModel)
                    lines.append(Self.row(site, recording.name, "core-\(mode)", published))
                }
            }
        }
        let text = lines.joined(separator: "\n") + "\n"
        let path = RecordedData.packageRoot().appendingPathComponent("Tests/Baselines/decisions.txt").path
        if ProcessInfo.processInfo.environment["RECORD_DECISION_BASELINE"] != nil {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }
        let recorded = try String(contentsOfFile: path, encoding: .utf8)
        let changed = zip(recorded.split(separator: "\n"), text.split(separator: "\n")).filter { $0 != $1 }
        #expect(recorded == text, """
            decisions or payloads differ from Tests/Baselines/decisions.txt (\(changed.count) outputs); \
            first: \(changed.first.map { "recorded \($0.0), now \($0.1)" } ?? "line count"). \
            If the change is meant, re-record with RECORD_DECISION_BASELINE=1 and say why in the commit.
            """)
    }

    /// `site recording mode lines digest`: the digest is FNV-1a (64 bit) over the output's lines.
    static func row(_ site: String, _ recording: String, _ mode: String, _ output: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for line in output {
            for byte in line.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            hash = (hash ^ 0x0a) &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "\(site) \(recording) \(mode) \(output.count) \(String(repeating: "0", count: 16 - hex.count))\(hex)"
    }

    /// Every decision of `TraceReplay` (what `replay` and `evaluate` score), all its fields.
    static func decisionRows(_ recording: SiteModelEvaluation.Recording, model: SiteModel?) -> [String] {
        TraceReplay.decisions(of: recording.samples, model: model).map { time, decision in
            let candidates = decision.candidates.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            return "\(time) \(decision.beacon) \(decision.room) \(decision.distance.map { "\($0)" } ?? "-") "
                + "\(decision.proximity) \(decision.node ?? "-") \(decision.since) \(decision.confidence) "
                + candidates.joined(separator: ",")
        }
    }

    /// What the live aggregator core publishes for the measurements the recording's nodes
    /// published, ticked once a second on the recording's clock as the service ticks it.
    static func coreRows(_ recording: SiteModelEvaluation.Recording, model: SiteModel?) -> [String] {
        var configuration = AggregatorConfiguration.default
        configuration.siteModel = model
        var core = AggregatorCore(configuration: configuration, softwareVersion: "baseline")
        var rows: [String] = []
        func append(_ publications: [AggregatorPublication], _ time: Instant) {
            for publication in publications {
                rows.append("\(time) \(publication.qos) \(publication.retain ? "r" : "-") \(publication.topic) \(publication.payload)")
            }
        }
        append(core.announceAggregator(), Instant(seconds: 0))
        var nextTick: Instant?
        for measurement in SiteModelEvaluation.published(recording) {
            while let tick = nextTick, tick <= measurement.time {
                append(core.tick(at: tick), tick)
                nextTick = tick + 1
            }
            if nextTick == nil { nextTick = measurement.time + 1 }
            let evidence = measurement.evidence
            let received = ReceivedMeasurement(
                beacon: evidence.beacon, node: evidence.node, room: evidence.room, rssiFiltered: evidence.rssiFiltered,
                sigma: evidence.sigma, distance: evidence.distance, proximity: evidence.proximity)
            append(core.receive(received, at: measurement.time), measurement.time)
        }
        // Past the end: the away timeout and the last room messages.
        if let last = nextTick {
            for second in 0..<40 { append(core.tick(at: last + Double(second)), last + Double(second)) }
        }
        append(core.retainedState(), Instant(seconds: 0))
        return rows
    }
}
