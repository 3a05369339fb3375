import Testing
@testable import BeaconCore

@Suite struct MeasurementPublishPolicyTests {
    /// Steps 3 dB at rest, 1 dB for 5 s after a step, heartbeat 60 s, ≥ 1 s apart, no σ term.
    let parameters = MeasurementPublishPolicy.Parameters(rssiStep: 3, sigmaMultiple: 0, heartbeat: 60,
                                                         minimumInterval: 1, movingStep: 1, movingFor: 5)

    @Test func steadyBeaconPublishesOnlyAtHeartbeat() {
        var policy = MeasurementPublishPolicy(parameters: parameters)
        var times: [Double] = []
        for i in 0..<3000 { // 10 adverts/s for five minutes, ±1.4 dB of wander
            let t = Double(i) / 10
            let rssi = -70 + 1.4 * Double((i / 7) % 3 - 1)
            if policy.shouldPublish(proximity: .near, rssi: rssi, sigma: 1.2, at: Instant(seconds: t)) { times.append(t) }
        }
        #expect(times == [0, 60, 120, 180, 240])
    }

    @Test func proximityChangePublishesAtOnce() {
        var policy = MeasurementPublishPolicy(parameters: parameters)
        func publish(_ p: Proximity, _ t: Double) -> Bool { policy.shouldPublish(proximity: p, rssi: -70, sigma: 1, at: Instant(seconds: t)) }
        #expect(publish(.near, 0))
        #expect(!publish(.near, 0.1))
        #expect(publish(.far, 0.2))
        #expect(publish(.near, 0.3))
    }

    @Test func stepIsADecibelChangeThenFinerWhileMoving() {
        var policy = MeasurementPublishPolicy(parameters: parameters)
        func publish(_ rssi: Double, _ t: Double) -> Bool { policy.shouldPublish(proximity: .far, rssi: rssi, sigma: 1, at: Instant(seconds: t)) }
        #expect(publish(-70, 0))
        #expect(!publish(-75, 0.5), "not within 1 s")
        #expect(!publish(-72.9, 1.5), "2.9 dB is noise at rest")
        #expect(publish(-73.1, 1.6), "beyond 3 dB: a move")
        #expect(!publish(-73.9, 2.7), "0.8 dB")
        #expect(publish(-74.2, 2.8), "1.1 dB while moving")
        #expect(!publish(-75.3, 3.5), "still ≥ 1 s apart")
        #expect(publish(-75.3, 3.8))
        // 5 s after the last 3 dB step (1.6 s) the fine step is over.
        #expect(!publish(-77.5, 7), "2.2 dB at rest again")
        #expect(publish(-78.4, 8), "3.1 dB from the last published −75.3")
    }

    @Test func sigmaMultipleRaisesTheStep() {
        var policy = MeasurementPublishPolicy(parameters: .init(rssiStep: 1, sigmaMultiple: 3, heartbeat: 60))
        #expect(policy.step(sigma: 0.2) == 1)
        #expect(policy.step(sigma: 2) == 6)
        #expect(policy.step(sigma: .nan) == 1)
        func publish(_ rssi: Double, _ t: Double) -> Bool { policy.shouldPublish(proximity: .near, rssi: rssi, sigma: 2, at: Instant(seconds: t)) }
        #expect(publish(-60, 0))
        #expect(!publish(-65, 2), "5 dB is within 3σ = 6 dB")
        #expect(publish(-66.5, 3))
    }

    @Test func silencePublishesOnceThenTheNextMeasurementAtOnce() {
        var policy = MeasurementPublishPolicy(parameters: parameters)
        func silence(_ t: Double) -> Bool { policy.shouldPublishSilence(at: Instant(seconds: t)) }
        func heard(_ t: Double) -> Bool { policy.shouldPublish(proximity: .near, rssi: -70, sigma: 1, at: Instant(seconds: t)) }
        #expect(!silence(0), "nothing published yet")
        #expect(heard(0))
        #expect(silence(6))
        #expect(!silence(7), "once")
        #expect(heard(8))
    }

    @Test func neverOncePerAdvertEvenWhenTheRSSIJumps() {
        var policy = MeasurementPublishPolicy()
        var published = 0
        for i in 0..<600 { // 10 adverts/s for 60 s, every advert a 20 dB jump
            let rssi = i % 2 == 0 ? -60.0 : -80
            if policy.shouldPublish(proximity: .near, rssi: rssi, sigma: 1, at: Instant(seconds: Double(i) / 10)) { published += 1 }
        }
        // At most one per minimumInterval (1 s) plus the first.
        #expect(published <= 61)
        #expect(published >= 30)
    }

    @Test func nonFiniteInputNeverPublishesNorTraps() {
        var policy = MeasurementPublishPolicy()
        func publish(_ p: Proximity, _ rssi: Double, _ t: Double) -> Bool {
            policy.shouldPublish(proximity: p, rssi: rssi, sigma: .infinity, at: Instant(seconds: t))
        }
        #expect(!publish(.near, -60, .nan))
        #expect(publish(.near, -60, 0))
        #expect(!publish(.far, .nan, .infinity))
        #expect(!publish(.near, .nan, 2))
        let silenceAtNaN = policy.shouldPublishSilence(at: Instant(seconds: .nan))
        #expect(!silenceAtNaN)
    }
}
