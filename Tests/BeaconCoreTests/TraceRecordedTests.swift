import BeaconCore
import Testing

/// A recorded trace (`run --record`): its `proximity` column makes each row a published measurement.
@Suite struct TraceRecordedTests {
    private func parse(_ text: String) throws(TraceError) -> [TraceSample] {
        var parser = TraceParser()
        var samples: [TraceSample] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let sample = try parser.parse(line: line) { samples.append(sample) }
        }
        return samples
    }

    @Test func rowsCarryWhatWasPublished() throws {
        let samples = try parse("""
            time,node,room,beacon,rssi,measuredPower,rssiFiltered,distance,proximity
            1.000,n1,hall,b1,-70,,-70.40,3.10,far
            2.000,n1,hall,b1,-70,,-70.40,,unknown
            """)
        #expect(samples[0].publication == RecordedMeasurement(rssiFiltered: -70.4, distance: 3.1, proximity: .far))
        #expect(samples[1].publication?.isSilence == true)
    }

    @Test func aPlainTraceHasNoPublication() throws {
        let samples = try parse("time,node,room,beacon,rssi\n0,n1,hall,b1,-70")
        #expect(samples[0].publication == nil)
    }

    @Test func badPublishedFieldsNameTheLine() {
        #expect(throws: TraceError(line: 2, problem: "proximity 'close' is not immediate, near, far or unknown")) {
            _ = try parse("time,node,room,beacon,rssi,distance,proximity\n0,n1,hall,b1,-70,1,close")
        }
        #expect(throws: TraceError(line: 3, problem: "distance is empty but proximity is near")) {
            _ = try parse("time,node,room,beacon,rssi,distance,proximity\n0,n1,hall,b1,-70,1,near\n1,n1,hall,b1,-70,,near")
        }
    }
}
