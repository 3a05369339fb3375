import BeaconCore
import Foundation
import RoomDecisions
import TestSupport
import Testing

/// The body fades `presence-bench evaluate --body-fades` adds, on a real recording of the flat: a
/// stress test is only worth its figures if it is the same on every run and does exactly what it says.
@Suite struct SimulatedBodyFadesTests {
    static func flatRecording() throws -> [TraceSample] {
        // The shared traces end their lines with CR LF, one Character to Swift: split on any newline.
        var parser = TraceParser()
        return try RecordedData.text("traces-flat/flat-calib3.trace.csv").split(whereSeparator: \.isNewline)
            .compactMap { try parser.parse(line: $0) }
    }

    @Test("each fade lowers one node's adverts by 10–20 dB for 2–6 s, and nothing else changes")
    func fadesDoWhatTheySay() throws {
        let samples = try Self.flatRecording()
        let (faded, fades) = SimulatedBodyFades(meanInterval: 30).apply(to: samples, name: "flat-calib3")
        let first = try #require(samples.first), last = try #require(samples.last)
        let span = last.time.seconds - first.time.seconds
        // A Poisson process at one per 30 s: some, and not wildly more than the span allows.
        #expect(fades.count >= 2 && fades.count <= Int(span / 30) * 3, "\(fades.count) fades in \(span) s")
        for fade in fades {
            #expect((10...20).contains(fade.depth))
            #expect(fade.end - fade.start >= 2 && fade.end - fade.start <= 6)
        }
        #expect(faded.count == samples.count)
        var lowered = 0
        for (before, after) in zip(samples, faded) {
            let loss = fades.filter { $0.node == before.node && $0.start <= before.time.seconds && before.time.seconds < $0.end }
                .reduce(0) { $0 + $1.depth }
            #expect(after.rssi == max(-127, before.rssi - loss))
            #expect(after.time == before.time && after.node == before.node && after.beacon == before.beacon)
            if loss > 0 { lowered += 1 }
        }
        #expect(lowered > 0)
    }

    @Test("the same recording always gets the same fades; another recording other ones")
    func seededByName() throws {
        let samples = try Self.flatRecording()
        let fades = SimulatedBodyFades(meanInterval: 20)
        #expect(fades.fades(in: samples, name: "flat-calib3") == fades.fades(in: samples, name: "flat-calib3"))
        #expect(fades.fades(in: samples, name: "flat-calib3") != fades.fades(in: samples, name: "flat-calib4"))
    }

    @Test("no fades for an interval that is not a positive number, and none for a recorded trace's published rows")
    func nothingToFade() throws {
        let samples = try Self.flatRecording()
        for interval in [0, -5, .nan, .infinity] {
            #expect(SimulatedBodyFades(meanInterval: interval).fades(in: samples, name: "x").isEmpty)
        }
        let published = samples.prefix(50).map { sample -> TraceSample in
            var copy = sample
            copy.publication = RecordedMeasurement(rssiFiltered: Double(sample.rssi), distance: 2, proximity: .near)
            return copy
        }
        let (faded, fades) = SimulatedBodyFades(meanInterval: 1).apply(to: Array(published), name: "x")
        #expect(fades.isEmpty)
        #expect(faded == Array(published))
        // A tiny interval is taken as a second: a bounded number of fades, not a hang.
        let tiny = SimulatedBodyFades(meanInterval: 1e-12).fades(in: samples, name: "x")
        let span = samples.last!.time.seconds - samples.first!.time.seconds
        #expect(!tiny.isEmpty && Double(tiny.count) < span * 3, "\(tiny.count)")
    }
}
