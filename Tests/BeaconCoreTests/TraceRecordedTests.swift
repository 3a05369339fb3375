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
        // Recorded before `rssiAdvert`: the `rssi` column's whole dBm stands for the advert, as before.
        #expect(samples[0].publication == RecordedMeasurement(rssiFiltered: -70.4, distance: 3.1, proximity: .far, rssi: -70))
        #expect(samples[1].publication?.isSilence == true)
    }

    /// `run --record` writes the measurement's advert (`rssiAdvert`). A trace recorded while agents
    /// reported a worn beacon's rises has two more columns (`rise`, `riseRssi`): read as any other.
    @Test func rowsCarryTheAdvertAndOlderRiseColumnsAreIgnored() throws {
        let samples = try parse("""
            time,node,room,beacon,rssi,measuredPower,rssiFiltered,distance,proximity,rssiAdvert,rise,riseRssi
            1.000,n1,hall,b1,-70,,-70.40,3.10,far,-64.00,7.25,-63.50
            1.500,n1,hall,b1,-70,,-70.10,3.00,far,-71.00,,
            2.000,n1,hall,b1,-127,,,,unknown,,,
            """)
        #expect(samples[0].publication == RecordedMeasurement(rssiFiltered: -70.4, distance: 3.1, proximity: .far, rssi: -64))
        #expect(samples[1].publication == RecordedMeasurement(rssiFiltered: -70.1, distance: 3, proximity: .far, rssi: -71))
        #expect(samples[2].publication == RecordedMeasurement(rssiFiltered: nil, distance: nil, proximity: .unknown))
    }

    @Test func aBadAdvertNamesTheLineAndTheColumn() {
        let header = "time,node,room,beacon,rssi,rssiFiltered,distance,proximity,rssiAdvert\n"
        #expect(throws: TraceError(line: 2, problem: "rssiAdvert '-6x' is not a number")) {
            _ = try parse(header + "0,n1,hall,b1,-70,-70,1,near,-6x")
        }
        #expect(throws: TraceError(line: 3, problem: "rssiAdvert 'inf' is not a number")) {
            _ = try parse(header + "0,n1,hall,b1,-70,-70,1,near,-66\n1,n1,hall,b1,-70,-70,1,near,inf")
        }
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
