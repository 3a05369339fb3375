import Testing
@testable import BeaconCore

@Suite struct ProximityClassifierTests {
    func fresh(_ d: Double) -> Proximity {
        var c = ProximityClassifier()
        return c.classify(distance: d, at: Instant(seconds: 0))
    }

    @Test func thresholdsOfCoreLocation() {
        #expect(fresh(0) == .immediate)
        #expect(fresh(0.49) == .immediate)
        #expect(fresh(0.5) == .near)
        #expect(fresh(2.99) == .near)
        #expect(fresh(3) == .far)
        #expect(fresh(40) == .far)
        var c = ProximityClassifier()
        #expect(c.proximity(at: Instant(seconds: 0)) == .unknown, "nothing heard yet")
    }

    @Test func beaconOscillatingAroundThreeMetresDoesNotFlap() {
        for start in [2.8, 3.2] {
            var c = ProximityClassifier()
            var classes: Set<Proximity> = []
            for i in 0..<600 {
                let d = i == 0 ? start : (i % 2 == 0 ? 2.8 : 3.2)
                classes.insert(c.classify(distance: d, at: Instant(seconds: Double(i) * 0.1)))
            }
            #expect(classes.count == 1, "started at \(start) m: \(classes)")
        }
    }

    @Test func hysteresisIsAFractionOfTheThreshold() {
        var c = ProximityClassifier(parameters: .init(immediateBelow: 0.5, nearBelow: 3, hysteresis: 0.1, unknownAfter: 5))
        var t = 0.0
        func step(_ d: Double) -> Proximity { t += 0.5; return c.classify(distance: d, at: Instant(seconds: t)) }
        #expect(step(2) == .near)
        #expect(step(3.25) == .near)   // within 3 m × 1.1
        #expect(step(3.35) == .far)    // beyond 3.3 m
        #expect(step(2.75) == .far)    // not yet below 2.7 m
        #expect(step(2.65) == .near)
        #expect(step(0.52) == .near)   // not below 0.45 m
        #expect(step(0.44) == .immediate)
        #expect(step(0.54) == .immediate) // within 0.55 m
        #expect(step(0.56) == .near)
        #expect(step(0.4) == .immediate)
        #expect(step(3.5) == .far, "a jump across both thresholds lands in the right class")
        #expect(step(0.1) == .immediate)
    }

    @Test func unknownAfterSilenceAndAFreshStartAfterIt() {
        var c = ProximityClassifier() // unknownAfter 5 s, h 0.3
        #expect(c.classify(distance: 5, at: Instant(seconds: 0)) == .far)
        #expect(c.proximity(at: Instant(seconds: 5)) == .far)
        #expect(c.proximity(at: Instant(seconds: 5.01)) == .unknown)
        // After silence the class starts afresh: 2.8 m is `near` although `far` would have held it.
        #expect(c.classify(distance: 2.8, at: Instant(seconds: 6)) == .near)
        var held = ProximityClassifier()
        _ = held.classify(distance: 5, at: Instant(seconds: 0))
        #expect(held.classify(distance: 2.8, at: Instant(seconds: 1)) == .far)
    }

    @Test func garbageDistancesChangeNothing() {
        var c = ProximityClassifier()
        _ = c.classify(distance: 1, at: Instant(seconds: 0))
        for bad in [Double.nan, .infinity, -1] {
            #expect(c.classify(distance: bad, at: Instant(seconds: 1)) == .near)
        }
        // Garbage does not count as hearing the beacon.
        _ = c.classify(distance: .nan, at: Instant(seconds: 4))
        #expect(c.proximity(at: Instant(seconds: 6)) == .unknown)
        // Times going backwards or non-finite never trap.
        #expect(c.classify(distance: 1, at: Instant(seconds: .nan)) == .near)
        #expect(c.classify(distance: 1, at: Instant(seconds: -1e300)) == .near)
    }
}
