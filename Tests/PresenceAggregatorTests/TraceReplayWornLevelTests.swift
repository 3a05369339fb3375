import BeaconCore
import PresenceAggregator
import RoomDecisions
import Testing

/// `presence-aggregator replay` with a known beacon marked worn: the replayed nodes publish its
/// level (`WornLevel`, the measurement's `level`) as live agents do, `--output published` shows it,
/// a site model reads it, and a beacon not marked publishes exactly as before.
@Suite struct TraceReplayWornLevelTests {
    /// A wristband (`band`, worn) and keys (`keys`, not marked) five times a second at the kitchen's
    /// and the hall's receivers: 40 s in the kitchen (−62 / −84 dBm), 40 s in the pantry, which has
    /// no receiver (−72 / −78), 80 s in the hall (the kitchen's receiver does not hear it: −62 at
    /// the hall; long enough for the hall's heartbeat, so a recorded trace has rows after the move),
    /// each with a ±2 dB wobble. The keys stay in the kitchen.
    static let trace: String = {
        var lines = ["time,node,room,beacon,rssi,measuredPower"]
        let wobble = [0, 2, -1, 1, -2, 0, 1, -1, 2, -2]
        for i in 0..<800 {
            let t = Double(i) / 5
            let (kitchen, hall): (Int?, Int) = t < 40 ? (-62, -84) : t < 80 ? (-72, -78) : (nil, -62)
            if let kitchen { lines.append(String(format: "%.3f,k1,kitchen,band,%d,-59", t, kitchen + wobble[i % 10])) }
            lines.append(String(format: "%.3f,h1,hall,band,%d,-59", t + 0.05, hall + wobble[(i + 3) % 10]))
            lines.append(String(format: "%.3f,k1,kitchen,keys,%d,-59", t + 0.1, -66 + wobble[(i + 5) % 10]))
        }
        return lines.joined(separator: "\n") + "\n"
    }()

    static let truth: [TruthSample] = stride(from: 0.0, to: 160, by: 0.5).map {
        TruthSample(time: Instant(seconds: $0), beacon: "band", room: $0 < 40 ? "kitchen" : $0 < 80 ? "pantry" : "hall")
    }

    static let band = [KnownBeacon(beacon: "band", worn: true)]

    func rows(_ path: String, _ output: TraceReplayRunner.Output, known: [KnownBeacon] = band, model: SiteModel? = nil)
        throws -> [[String]]
    {
        var rows: [String] = []
        try TraceReplayRunner.run(path: path, output: output, knownBeacons: known, model: model) { rows.append($0) }
        return rows.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    }

    @Test("marked worn, the published rows carry each node's level and a quick \"not heard\"; the keys publish as without the mark")
    func publishedRowsCarryTheLevel() throws {
        let path = try temporaryFile(Self.trace)
        let published = try rows(path, .published)
        #expect(published[0].last == "level")
        let level = try #require(published[0].firstIndex(of: "level"))
        let band = published.dropFirst().filter { $0[3] == "band" }
        let heard = band.filter { $0[8] != "unknown" }
        #expect(!heard.isEmpty && heard.allSatisfy { Double($0[level]) != nil })
        // The kitchen's receiver stops hearing the band at 80 s: "not heard" 2.5–3.5 s later, without a level.
        let silence = try #require(band.first { $0[8] == "unknown" })
        #expect(silence[1] == "k1" && silence[level].isEmpty)
        let after = try #require(Double(silence[0])) - 79.8
        #expect(after > 2.5 && after <= 3.5)
        // At rest (the first 40 s in the kitchen) few messages per node: the first and no more than one a minute.
        #expect(heard.filter { Double($0[0])! < 39 && $0[1] == "k1" }.count <= 2)

        let keys = published.filter { $0[3] == "keys" }
        let keysUnmarked = try rows(path, .published, known: []).filter { $0[3] == "keys" }
        #expect(!keys.isEmpty)
        #expect(keys == keysUnmarked)
        #expect(keys.allSatisfy { $0[level].isEmpty })
    }

    @Test("a model learned from the published walk reads the levels, and decides the recorded trace as the raw one")
    func modelReadsTheLevel() throws {
        let path = try temporaryFile(Self.trace)
        var replay = TraceReplay()
        replay.knownBeacons = Self.band
        replay.keepsPublished = true
        for sample in try TraceFile.samples(path: path) { _ = replay.step(sample) }
        let measurements = replay.takePublished().filter { $0.evidence.beacon == "band" }
        #expect(measurements.contains { $0.evidence.level != nil })
        #expect(measurements.allSatisfy { $0.evidence.isSilence || $0.evidence.siteModelLevel == $0.evidence.level })
        var learner = SiteModelLearner()
        learner.add(measurements: measurements, truth: Self.truth)
        let model = try #require(learner.model())
        #expect(model.levels)

        let fromRaw = try rows(path, .decisions, model: model).dropFirst().filter { $0[1] == "band" }
        let published = try rows(path, .published).map { $0.joined(separator: ",") }
        let recorded = try temporaryFile(published.joined(separator: "\n") + "\n", name: "recorded.trace.csv")
        let fromRecord = try rows(recorded, .decisions, known: [], model: model).dropFirst().filter { $0[1] == "band" }
        #expect(fromRaw.map { $0[2] }.contains("pantry"))
        // The same rooms in the same order (a recorded trace ticks only between its rows, so a
        // decision that falls due on a tick may come at another instant).
        #expect(fromRaw.map { $0[2] } == fromRecord.map { $0[2] })
    }
}
