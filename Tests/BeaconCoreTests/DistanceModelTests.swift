import Testing
@testable import BeaconCore

@Suite struct DistanceModelTests {
    @Test func matchesHandComputedValues() {
        let model = DistanceModel(pathLossExponent: 2, rssiOffset: 0, defaultMeasuredPower: -59)
        #expect(abs(model.distance(rssi: -59, measuredPower: nil) - 1) < 1e-12)
        #expect(abs(model.distance(rssi: -79, measuredPower: nil) - 10) < 1e-12)
        #expect(abs(model.distance(rssi: -53, measuredPower: nil) - 0.501187) < 1e-6)
        let indoor = DistanceModel(pathLossExponent: 2.7, defaultMeasuredPower: -59)
        // 10^(27/27) = 10 m.
        #expect(abs(indoor.distance(rssi: -86, measuredPower: nil) - 10) < 1e-12)
    }

    @Test func offsetAndPerBeaconMeasuredPower() {
        let node = DistanceModel(pathLossExponent: 2, rssiOffset: -3, defaultMeasuredPower: -59)
        // A receiver that hears 3 dB weaker: −62 dBm is 1 m.
        #expect(abs(node.distance(rssi: -62, measuredPower: nil) - 1) < 1e-12)
        // The beacon's own P₁ (advertised or configured) replaces the default.
        #expect(abs(node.distance(rssi: -68, measuredPower: -65) - 1) < 1e-12)
        #expect(abs(node.distance(rssi: -88, measuredPower: -65) - 10) < 1e-12)
    }

    @Test func garbageGivesFiniteDistances() {
        let model = DistanceModel.default
        #expect(model.distance(rssi: .nan, measuredPower: nil) == DistanceModel.maximumDistance)
        #expect(model.distance(rssi: -.infinity, measuredPower: nil) == DistanceModel.maximumDistance)
        #expect(model.distance(rssi: .infinity, measuredPower: nil) == DistanceModel.maximumDistance)
        #expect(model.distance(rssi: 1e308, measuredPower: nil) == 0)
        #expect(model.distance(rssi: -1e308, measuredPower: nil) == DistanceModel.maximumDistance)
        let broken = DistanceModel(pathLossExponent: 0, rssiOffset: .nan, defaultMeasuredPower: .infinity)
        #expect(broken.distance(rssi: -60, measuredPower: .nan).isFinite)
        #expect(abs(broken.distance(rssi: -60, measuredPower: nil) - 1) < 1e-12,
                "falls back to the default exponent and P₁ (−60 dBm)")
        var random = TrackingTestSupport.SeededRandom(seed: 11)
        for _ in 0..<10_000 {
            let m = DistanceModel(pathLossExponent: Double.random(in: -5...10, using: &random),
                                  rssiOffset: Double.random(in: -100...100, using: &random),
                                  defaultMeasuredPower: Double.random(in: -200...100, using: &random))
            let d = m.distance(rssi: Double.random(in: -300...300, using: &random),
                               measuredPower: Bool.random(using: &random) ? nil : Double.random(in: -128...127, using: &random))
            #expect(d >= 0 && d <= DistanceModel.maximumDistance)
        }
    }
}
