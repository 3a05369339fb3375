import Testing
@testable import BeaconCore

/// A worn beacon's level as its node publishes it (`WornLevel`): the mean of the last second's
/// adverts, published on a step at most once a second, and "not heard" after a short silence.
/// Times are the adverts' own (an injected clock): a wristband heard five times a second.
@Suite struct WornLevelTests {
    static let p = WornLevel.Parameters.default

    static func hear(_ level: inout WornLevel, _ rssi: Int, filtered: Double? = nil, at time: Double) -> Bool {
        level.observe(rssi: rssi, filtered: filtered ?? Double(rssi), at: Instant(seconds: time), heartbeat: 60, p)
    }

    static func silent(_ level: inout WornLevel, at time: Double) -> Bool {
        level.checkSilence(at: Instant(seconds: time), p)
    }

    /// Five adverts a second from `start` to `end`, each at `level(t)` with a ±2 dB wobble; the
    /// times at which the level published.
    static func published(
        _ level: inout WornLevel, from start: Double, to end: Double, rssi: (Double) -> Double
    ) -> [(time: Double, level: Double)] {
        let wobble = [0.0, 2, -1, 1, -2]
        var out: [(Double, Double)] = []
        var i = 0
        while start + Double(i) * 0.2 < end {
            let t = start + Double(i) * 0.2
            let advert = Int((rssi(t) + wobble[i % wobble.count]).rounded())
            if level.observe(rssi: advert, filtered: rssi(t), at: Instant(seconds: t), heartbeat: 60, p) {
                out.append((t, level.publishedLevel ?? .nan))
            }
            i += 1
        }
        return out
    }

    @Test("the level is the mean of the last second's adverts, to 0.1 dB, and the first advert publishes")
    func levelIsTheSecondsMean() {
        var level = WornLevel()
        let result1 = Self.hear(&level, -70, at: 10)
        #expect(result1)
        #expect(level.publishedLevel == -70)
        // Within the second: no publish (a step needs a second), the mean moves on.
        let result2 = Self.hear(&level, -81, at: 10.5)
        #expect(!result2)
        #expect(level.publishedLevel == -70)
        // A second on, the advert at 10 s has left the window: (-81 + -84) / 2 = -82.5, 12.5 dB down.
        let result3 = Self.hear(&level, -84, at: 11.0)
        #expect(result3)
        #expect(level.publishedLevel == -82.5)
    }

    @Test("at rest within the step only the heartbeat publishes; a move of 10 dB publishes within two seconds")
    func restAndMove() {
        var level = WornLevel()
        let rest = Self.published(&level, from: 0, to: 120) { _ in -78 }
        // The first advert and the heartbeat a minute later.
        #expect(rest.count == 2)
        #expect(abs((rest.last?.time ?? 0) - 60) < 0.01)
        let move = Self.published(&level, from: 120, to: 130) { _ in -68 }
        #expect(move.count >= 1)
        #expect(move[0].time - 120 <= 2)
        #expect(abs(move.last!.level - (-68)) < Self.p.step)
    }

    @Test("a still tag heard twice a second, flipping between two levels 10 dB apart: its 1-s mean wanders past the step, its 5-s mean does not, so little more than the heartbeat goes out")
    func noisyStillTag() {
        var level = WornLevel()
        var published = 0
        let pattern = [-67, -67, -77, -72, -67, -77, -77, -67, -72, -67]
        for i in 0..<1200 {
            if Self.hear(&level, pattern[i % pattern.count], filtered: -71, at: Double(i) * 0.45) { published += 1 }
        }
        // 9 minutes: the first advert, the heartbeat each minute, a few wanders at most.
        #expect(published <= 18)
    }

    @Test("a second after a step, once more with the same level when the filtered RSSI has moved since")
    func settle() {
        var level = WornLevel()
        _ = Self.hear(&level, -80, filtered: -80, at: 0)
        _ = Self.hear(&level, -80, filtered: -80, at: 4)
        let step = Self.hear(&level, -68, filtered: -76, at: 5)
        #expect(step)
        let stepLevel = level.publishedLevel
        let settled = Self.hear(&level, -68, filtered: -70, at: 6)
        #expect(settled)
        #expect(level.publishedLevel == stepLevel)
        // Only once.
        let again = Self.hear(&level, -68, filtered: -68, at: 7)
        #expect(!again)
        // A step whose filtered RSSI stays put (a wander at rest) gets no second message.
        _ = Self.hear(&level, -80, filtered: -70, at: 12)
        let still = Self.hear(&level, -80, filtered: -70, at: 13.1)
        #expect(!still)
    }

    @Test("steps publish at most once a second")
    func minimumInterval() {
        var level = WornLevel()
        // A ramp of 10 dB a second: every advert's mean has moved by the step, yet one a second goes out.
        let ramp = Self.published(&level, from: 0, to: 5) { -90 + 10 * $0 }
        for (earlier, later) in zip(ramp, ramp.dropFirst()) { #expect(later.time - earlier.time >= 1 - 1e-9) }
        #expect(ramp.count >= 4)
    }

    @Test("no advert for silenceAfter: \"not heard\" once; the next advert publishes at once")
    func silence() {
        var level = WornLevel()
        let result4 = Self.hear(&level, -70, at: 0)
        #expect(result4)
        let result5 = Self.silent(&level, at: Self.p.silenceAfter)
        #expect(!result5)
        let result6 = Self.silent(&level, at: Self.p.silenceAfter + 0.1)
        #expect(result6)
        #expect(level.publishedLevel == nil)
        let result7 = Self.silent(&level, at: 10)
        #expect(!result7)
        let result8 = Self.hear(&level, -75, at: 10.2)
        #expect(result8)
        #expect(level.publishedLevel == -75)
    }

    @Test("a time that is not finite changes nothing; an advert older than the last counts at the last's time")
    func oddTimes() {
        var level = WornLevel()
        let result9 = Self.hear(&level, -70, at: .nan)
        #expect(!result9)
        #expect(level.publishedLevel == nil)
        let result10 = Self.hear(&level, -70, at: 5)
        #expect(result10)
        let result11 = Self.hear(&level, -90, at: 4)
        #expect(!result11)
        let result12 = Self.silent(&level, at: .infinity)
        #expect(!result12)
    }
}
