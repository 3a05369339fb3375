import Foundation
import Testing
@testable import BeaconCore

@Suite struct BeaconTrackTests {
    @Test func firstAdvertGivesAFullMeasurementAndPublishes() {
        var track = BeaconTrack(parameters: .default)
        let u = track.observe(rssi: -60, measuredPower: -60, at: Instant(seconds: 0))
        #expect(u.rssi == -60)
        #expect(u.rssiFiltered == -60)
        #expect(u.sigma == 8.0.squareRoot())
        #expect(u.measuredPower == -60)
        #expect(abs((u.distance ?? -1) - 1) < 1e-12)
        #expect(u.proximity == .near)
        #expect(u.shouldPublish)
        #expect(track.lastHeard == Instant(seconds: 0))
    }

    @Test func measuredPowerPrecedenceConfiguredThenAdvertisedThenDefault() {
        var parameters = TrackingParameters.default
        parameters.distance = DistanceModel(pathLossExponent: 2, rssiOffset: 0, defaultMeasuredPower: -59)
        var byDefault = BeaconTrack(parameters: parameters)
        #expect(abs(byDefault.observe(rssi: -79, measuredPower: nil, at: Instant(seconds: 0)).distance! - 10) < 1e-9)
        var advertised = BeaconTrack(parameters: parameters)
        let a = advertised.observe(rssi: -79, measuredPower: -69, at: Instant(seconds: 0))
        #expect(abs(a.distance! - 10.0.squareRoot()) < 1e-9)
        #expect(a.measuredPower == -69)
        var configured = BeaconTrack(parameters: parameters, configuredMeasuredPower: -79)
        let c = configured.observe(rssi: -79, measuredPower: -69, at: Instant(seconds: 0))
        #expect(abs(c.distance! - 1) < 1e-9)
        #expect(c.measuredPower == -79)
    }

    @Test func tenAdvertsPerSecondForAMinutePublishWithinThePolicyBound() {
        var track = BeaconTrack(parameters: .default)
        var random = TrackingTestSupport.SeededRandom(seed: 3)
        var published = 0
        var proximityChanges = 0
        var previous: Proximity?
        for i in 0..<600 {
            // A beacon at about 3 m (−67 dBm with n 1.5, P₁ −60) with ±6 dB of noise.
            let rssi = -67 + Int.random(in: -6...6, using: &random)
            let u = track.observe(rssi: rssi, measuredPower: nil, at: Instant(seconds: Double(i) / 10))
            if u.shouldPublish { published += 1 }
            if let previous, previous != u.proximity { proximityChanges += 1 }
            previous = u.proximity
        }
        // Heartbeat and distance steps: at most one per second plus the first; plus proximity changes.
        #expect(published <= 61 + proximityChanges)
        #expect(published < 100, "600 adverts, \(published) publishes")
        #expect(proximityChanges <= 4, "hysteresis keeps a beacon on the boundary from flapping")
    }

    @Test func theClassIsTheClassOfTheDistanceItIsPublishedWith() {
        // Issue 54: a walk from 0.3 m out to 8 m and back, two adverts a second with ±4 dB of
        // noise. Every update's class is the rule's class for its own distance from the class
        // before (hysteresis 0.3), and every change of class is published at once.
        var track = BeaconTrack(parameters: .default)
        var random = TrackingTestSupport.SeededRandom(seed: 54)
        var previous = Proximity.unknown
        var seen: Set<Proximity> = []
        for i in 0..<240 {
            let metres = 0.3 + 7.7 * (1 - abs(Double(i) - 120) / 120)
            let rssi = -60 - Int((15 * log10(metres)).rounded()) + Int.random(in: -4...4, using: &random)
            let u = track.observe(rssi: rssi, measuredPower: nil, at: Instant(seconds: Double(i) / 2))
            guard let distance = u.distance else { Issue.record("advert \(i): no distance"); continue }
            #expect(u.proximity == ProximityClassifier.next(from: previous, distance: distance, parameters: .default),
                    "advert \(i): \(u.proximity) at \(distance) m after \(previous)")
            if u.proximity != previous { #expect(u.shouldPublish, "advert \(i): a class change publishes") }
            previous = u.proximity
            seen.insert(u.proximity)
        }
        #expect(seen == [.immediate, .near, .far])
    }

    @Test func silenceTurnsUnknownThenTheTrackStartsAfresh() {
        var track = BeaconTrack(parameters: .default)
        for i in 0..<20 { _ = track.observe(rssi: -90, measuredPower: nil, at: Instant(seconds: Double(i) * 0.5)) }
        #expect(track.proximity(at: Instant(seconds: 9.5 + 5)) == .far)
        #expect(track.proximity(at: Instant(seconds: 9.5 + 5.1)) == .unknown)
        #expect(track.estimate(at: Instant(seconds: 9.5 + 10.1)) == nil)
        let u = track.observe(rssi: -62, measuredPower: nil, at: Instant(seconds: 30))
        #expect(u.rssiFiltered == -62, "restarted filter takes the sample as it is")
        #expect(u.proximity == .near)
        #expect(u.shouldPublish)
    }

    @Test func silenceIsPublishedOnceAsUnknownWithoutDistance() throws {
        var track = BeaconTrack(parameters: .default)
        #expect(track.checkSilence(at: Instant(seconds: 0)) == nil, "never heard")
        for i in 0..<20 { _ = track.observe(rssi: -70, measuredPower: -59, at: Instant(seconds: Double(i) * 0.5)) }
        // Last heard at 9.5 s; unknownAfter 5 s.
        #expect(track.checkSilence(at: Instant(seconds: 10.5)) == nil)
        #expect(track.checkSilence(at: Instant(seconds: 14.5)) == nil, "not past 5 s yet")
        let checked = track.checkSilence(at: Instant(seconds: 14.6))
        let silence = try #require(checked)
        #expect(silence.proximity == .unknown)
        #expect(silence.distance == nil && silence.isSilence)
        #expect(silence.shouldPublish)
        #expect(silence.rssi == -70 && silence.measuredPower == -59)
        #expect(abs(silence.rssiFiltered + 70) < 1e-9)
        #expect(track.checkSilence(at: Instant(seconds: 15.6)) == nil, "once")
        // Heard again before the filter restarts: publishes at once, and silence can come again.
        let back = track.observe(rssi: -70, measuredPower: -59, at: Instant(seconds: 16))
        #expect(back.shouldPublish && back.proximity != .unknown)
        #expect(track.checkSilence(at: Instant(seconds: 21.1))?.proximity == .unknown)
    }

    @Test func garbageNeverCrashes() {
        var track = BeaconTrack(parameters: .default)
        var random = TrackingTestSupport.SeededRandom(seed: 99)
        var t = 0.0
        for _ in 0..<20_000 {
            t += Double.random(in: -3...3, using: &random) * (Int.random(in: 0..<50, using: &random) == 0 ? 1e6 : 1)
            let rssi = Int.random(in: 0..<30, using: &random) == 0
                ? [Int.min, Int.max, 127, -128, 0].randomElement(using: &random)!
                : Int.random(in: -110 ... -20, using: &random)
            let power: Int? = Bool.random(using: &random) ? nil : [Int.min, Int.max, 0, -59, 127].randomElement(using: &random)!
            let time = Int.random(in: 0..<100, using: &random) == 0 ? Instant(seconds: .nan) : Instant(seconds: t)
            let u = track.observe(rssi: rssi, measuredPower: power, at: time)
            #expect(u.distance.map { $0 >= 0 && $0 <= DistanceModel.maximumDistance } == true)
            _ = track.checkSilence(at: time)
            #expect(!u.sigma.isNaN)
            _ = track.proximity(at: time)
        }
    }
}
