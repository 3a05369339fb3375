import Testing
@testable import BeaconCore

@Suite struct RSSIKalmanFilterTests {
    let parameters = RSSIKalmanFilter.Parameters(processNoise: 0.75, measurementNoise: 8, restartAfter: 10)

    @Test func convergesTowardAConstantSignalWhileSigmaShrinks() {
        var filter = RSSIKalmanFilter(parameters: parameters)
        var sigmas: [Double] = []
        var last = RSSIEstimate(rssi: 0, sigma: 0)
        for i in 0..<120 {
            // −70 dBm with ±3 dB of alternating noise, two adverts per second.
            last = filter.update(rssi: -70 + (i % 2 == 0 ? 3 : -3), at: Instant(seconds: Double(i) * 0.5))
            sigmas.append(last.sigma)
        }
        #expect(abs(last.rssi + 70) < 1.5)
        #expect(sigmas[0] == 8.0.squareRoot())
        #expect(sigmas[1] < sigmas[0])
        #expect(last.sigma < 8.0.squareRoot() / 2)
        // Steady state: σ stops shrinking but stays positive.
        #expect(abs(sigmas[119] - sigmas[117]) < 1e-6)
        #expect(last.sigma > 0)
    }

    @Test func followsAStepWithinABoundedNumberOfSamples() {
        var filter = RSSIKalmanFilter(parameters: parameters)
        var t = 0.0
        for _ in 0..<200 {
            _ = filter.update(rssi: -80, at: Instant(seconds: t))
            t += 0.5
        }
        var samplesToFollow: Int?
        for k in 1...40 {
            let e = filter.update(rssi: -60, at: Instant(seconds: t))
            t += 0.5
            if k == 1 { #expect(e.rssi < -70, "one advert must not move the filter all the way") }
            if abs(e.rssi + 60) < 3 { samplesToFollow = k; break }
        }
        let k = try! #require(samplesToFollow)
        #expect(k <= 15, "a 20 dB step is followed to within 3 dB in \(k) samples (7.5 s at 2/s)")
    }

    @Test func sigmaGrowsWithATimeGapByQTimesDeltaT() throws {
        var filter = RSSIKalmanFilter(parameters: parameters)
        for i in 0..<20 { _ = filter.update(rssi: -65, at: Instant(seconds: Double(i))) }
        let now = try #require(filter.estimate(at: Instant(seconds: 19)))
        let later = try #require(filter.estimate(at: Instant(seconds: 23)))
        #expect(later.rssi == now.rssi)
        #expect(abs(later.sigma * later.sigma - (now.sigma * now.sigma + 0.75 * 4)) < 1e-9)
        // The next sample after the gap weighs more than one after a short interval.
        var short = filter, long = filter
        let afterShort = short.update(rssi: -55, at: Instant(seconds: 20))
        let afterLong = long.update(rssi: -55, at: Instant(seconds: 28))
        #expect(afterLong.rssi > afterShort.rssi)
    }

    @Test func restartsAfterSilence() {
        var filter = RSSIKalmanFilter(parameters: parameters)
        for i in 0..<20 { _ = filter.update(rssi: -65, at: Instant(seconds: Double(i))) }
        #expect(filter.estimate(at: Instant(seconds: 19 + 10)) != nil)
        #expect(filter.estimate(at: Instant(seconds: 19 + 10.01)) == nil)
        let fresh = filter.update(rssi: -90, at: Instant(seconds: 40))
        #expect(fresh == RSSIEstimate(rssi: -90, sigma: 8.0.squareRoot()))
        #expect(filter.lastSampleTime == Instant(seconds: 40))
        #expect(RSSIKalmanFilter().estimate(at: Instant(seconds: 0)) == nil)
    }

    @Test func outOfOrderSamplesCountAsNoTimePassing() throws {
        var filter = RSSIKalmanFilter(parameters: parameters)
        _ = filter.update(rssi: -70, at: Instant(seconds: 100))
        let before = try #require(filter.estimate(at: Instant(seconds: 100)))
        let late = filter.update(rssi: -70, at: Instant(seconds: 90))
        #expect(filter.lastSampleTime == Instant(seconds: 100))
        // Δt = 0: no process noise added, so the variance shrinks by a pure update.
        let expected = before.sigma * before.sigma * 8 / (before.sigma * before.sigma + 8)
        #expect(abs(late.sigma * late.sigma - expected) < 1e-9)
    }

    @Test func garbageNeverCrashesOrPoisonsTheState() throws {
        var filter = RSSIKalmanFilter(parameters: parameters)
        let empty = filter.update(rssi: .nan, at: Instant(seconds: 0))
        #expect(empty.rssi.isNaN && empty.sigma == .infinity)
        #expect(filter.lastSampleTime == nil)
        _ = filter.update(rssi: -70, at: Instant(seconds: 1))
        for bad in [Double.nan, .infinity, -.infinity] {
            let e = filter.update(rssi: bad, at: Instant(seconds: 2))
            #expect(e.rssi == -70)
            let f = filter.update(rssi: -60, at: Instant(seconds: bad))
            #expect(f.rssi == -70)
        }
        #expect(filter.lastSampleTime == Instant(seconds: 1))
        // Garbage parameters fall back to the defaults field by field.
        let sane = RSSIKalmanFilter(parameters: .init(processNoise: -1, measurementNoise: .nan, restartAfter: -5)).parameters
        #expect(sane == .default)

        var random = TrackingTestSupport.SeededRandom(seed: 7)
        var fuzzed = RSSIKalmanFilter(parameters: parameters)
        var t = 0.0
        for _ in 0..<20_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0: t -= Double.random(in: 0...100, using: &random)
            case 1: t += Double.random(in: 0...1e7, using: &random)
            default: t += Double.random(in: 0...2, using: &random)
            }
            let rssi = Int.random(in: 0..<20, using: &random) == 0
                ? [Double.nan, .infinity, -.infinity, 1e308, -1e308].randomElement(using: &random)!
                : Double.random(in: -127...20, using: &random)
            let e = fuzzed.update(rssi: rssi, at: Instant(seconds: t))
            if e.rssi.isNaN {
                // Only garbage in, with no estimate held, gives the documented "no estimate".
                #expect(!rssi.isFinite && e.sigma == .infinity)
            } else {
                #expect(e.rssi.isFinite && e.sigma.isFinite && e.sigma >= 0)
            }
        }
    }
}
