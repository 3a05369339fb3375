import BeaconCore
import Evaluation
import Foundation
import RoomDecisions
import TestSupport
import Testing

/// The rise reports a minimum baseline (`RiseReport.Parameters.baseline`, issue 40, eighth round)
/// drops, on the shared walks worn (`WornTagSignal`): the reports whose mean before rested on one
/// advert name the wrong room far more often than the reports kept.
@Suite struct WornRiseBaselineTests {
    /// One site's recordings: (name, advertisements without `drop`'s nodes, truth).
    static func site(_ dir: String, drop: Set<String> = []) throws -> [(String, [TraceSample], [TruthSample])] {
        let root = try RecordedData.path(dir)
        let names = try FileManager.default.contentsOfDirectory(atPath: root).filter { $0.hasSuffix(".trace.csv") }.sorted()
        return try names.map { file in
            let name = String(file.dropLast(".trace.csv".count))
            // The shared traces end their lines with CR LF, one Character to Swift: split on any newline.
            var trace = TraceParser(), truth = TruthParser()
            let samples = try RecordedData.text("\(dir)/\(file)").split(whereSeparator: \.isNewline)
                .compactMap { try trace.parse(line: $0) }.filter { !drop.contains($0.node) }
            let rows = try RecordedData.text("\(dir)/\(name).truth.csv").split(whereSeparator: \.isNewline)
                .compactMap { try truth.parse(line: $0) }
            return (name, samples, rows.sorted { $0.time < $1.time })
        }
    }

    /// Rise reports on every node of the worn walks with no baseline: (all, wrong) and, of those a
    /// `baseline` would drop, (dropped, wrong). Wrong: the tag's true room is not the node's.
    static func reports(_ recordings: [(String, [TraceSample], [TruthSample])], draws: Range<Int>, baseline: Double)
        -> (all: Int, wrong: Int, dropped: Int, droppedWrong: Int)
    {
        var bare = RiseReport.Parameters.default
        bare.baseline = 0
        var guarded = bare
        guarded.baseline = baseline
        var result = (all: 0, wrong: 0, dropped: 0, droppedWrong: 0)
        for (draw, (name, samples, truth)) in draws.flatMap({ draw in recordings.map { (draw, $0) } }) {
            let worn = WornTagSignal().apply(to: samples, truth: truth, name: draw == 0 ? name : "\(name)#\(draw)")
            var detectors: [String: (bare: RiseReport.Detector, guarded: RiseReport.Detector)] = [:]
            for advert in worn {
                let key = "\(advert.beacon)|\(advert.node)"
                var pair = detectors[key] ?? (RiseReport.Detector(), RiseReport.Detector())
                let time = advert.time.seconds
                let reported = pair.bare.observe(rssi: Double(advert.rssi), at: time, bare) != nil
                let kept = pair.guarded.observe(rssi: Double(advert.rssi), at: time, guarded) != nil
                detectors[key] = pair
                guard reported else { continue }
                let wrong = truth.last { $0.time.seconds <= time }?.room != advert.room
                result.all += 1
                if wrong { result.wrong += 1 }
                if !kept {
                    result.dropped += 1
                    if wrong { result.droppedWrong += 1 }
                }
            }
        }
        return result
    }

    @Test("a 0.5-s baseline drops few reports, and those name the wrong room more often than all reports do",
          arguments: ["traces", "traces-sal", "traces-flat", "stand-in"])
    func droppedReportsAreMostlyWrong(site: String) throws {
        let recordings = site == "stand-in"
            ? try Self.site("traces-flat", drop: RecordedData.standInDroppedNodes) : try Self.site(site)
        // Over the twelve draws the Room decisions article counts (one draw drops too few to tell).
        let r = Self.reports(recordings, draws: 0..<12, baseline: 0.5)
        #expect(r.all > 100)
        #expect(r.dropped > 0 && r.dropped * 20 < r.all, "\(r)")
        #expect(Double(r.droppedWrong) / Double(r.dropped) > 2 * Double(r.wrong) / Double(r.all), "\(r)")
    }
}
