import Testing
@testable import BeaconCore

@Suite struct MeasurementPublishPolicyTests {
    @Test func steadyBeaconPublishesOnlyAtHeartbeat() {
        var policy = MeasurementPublishPolicy() // heartbeat 5 s
        var times: [Double] = []
        for i in 0..<600 { // 10 adverts/s for a minute
            let t = Double(i) / 10
            if policy.shouldPublish(proximity: .near, distance: 2, at: Instant(seconds: t)) { times.append(t) }
        }
        #expect(times == stride(from: 0.0, to: 60, by: 5).map { $0 })
    }

    @Test func proximityChangePublishesAtOnce() {
        var policy = MeasurementPublishPolicy()
        func publish(_ p: Proximity, _ d: Double, _ t: Double) -> Bool { policy.shouldPublish(proximity: p, distance: d, at: Instant(seconds: t)) }
        #expect(publish(.near, 2.9, 0))
        #expect(!publish(.near, 2.9, 0.1))
        #expect(publish(.far, 2.95, 0.2))
        #expect(publish(.unknown, 2.95, 0.3))
    }

    @Test func distanceStepPublishes() {
        var policy = MeasurementPublishPolicy()
        func publish(_ p: Proximity, _ d: Double, _ t: Double) -> Bool { policy.shouldPublish(proximity: p, distance: d, at: Instant(seconds: t)) }
        // step 0.3 of the last published distance, ≥ 1 s apart
        #expect(publish(.far, 4, 0))
        #expect(!publish(.far, 6, 0.5), "not within 1 s")
        #expect(!publish(.far, 5.1, 1.5))
        #expect(publish(.far, 5.3, 1.6))
        #expect(!publish(.far, 4.0, 3), "24 % of 5.3 m")
        #expect(publish(.far, 3.6, 3.1))
    }

    @Test func neverOncePerAdvertEvenWhenTheDistanceJumps() {
        var policy = MeasurementPublishPolicy()
        var published = 0
        for i in 0..<600 { // 10 adverts/s for 60 s, every advert a 200 % jump
            let d = i % 2 == 0 ? 1.0 : 3.0 - 0.5
            if policy.shouldPublish(proximity: .near, distance: d, at: Instant(seconds: Double(i) / 10)) { published += 1 }
        }
        // At most one per minimumInterval (1 s) plus the first.
        #expect(published <= 61)
        #expect(published >= 30)
    }

    @Test func nonFiniteTimeNeverPublishes() {
        var policy = MeasurementPublishPolicy()
        func publish(_ p: Proximity, _ d: Double, _ t: Double) -> Bool { policy.shouldPublish(proximity: p, distance: d, at: Instant(seconds: t)) }
        #expect(!publish(.near, 1, .nan))
        #expect(publish(.near, 1, 0))
        #expect(!publish(.far, .nan, .infinity))
        #expect(!publish(.near, .nan, 2))
    }
}
