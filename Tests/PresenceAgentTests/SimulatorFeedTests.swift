import BeaconCore
import BluetoothHCI
import PresenceAgent
import Synchronization
import Testing
import TestSupport

/// Issue 18 (7): the simulator as a source waits for its next advertisement, as a radio's read
/// waits for the controller, instead of polling in a loop (a whole core per demo agent).
///
/// On a `ManualClock` (issue 27): the test moves the clock in steps, each once the polling thread
/// is asleep on it again. A poll that spun instead of waiting would never be asleep and fail the
/// test's wait for it; nothing waits for wall time.
@Suite struct SimulatorFeedTests {
    struct Polled: Sendable {
        var adverts = 0
        var polls = 0
        /// Advertisements delivered before their time, and more than a step after it.
        var early = 0
        var late = 0
        var firstTime: Double?
        var lastTime: Double?
    }

    final class StopFlag: Sendable {
        private let stopped = Atomic<Bool>(false)
        func stop() { stopped.store(true, ordering: .releasing) }
        var isStopped: Bool { stopped.load(ordering: .acquiring) }
    }

    /// Polls the demo building, heard from `office-1`, at `speed` on a thread of its own, while the
    /// test moves the clock through `seconds` in steps of `step`.
    static func poll(speed: Double, seconds: Double, step: Double = 0.05) async throws -> Polled {
        let clock = ManualClock(now: Instant(seconds: 1_800_000_000))
        let flag = StopFlag()
        let polling = Task {
            try await onOwnThread { () throws -> Polled in
                var options = FeedOptions()
                options.speed = speed
                options.simulatedNode = "office-1"
                options.clock = clock
                let feed = try AdvertisementFeeds.open(.simulate(scenarioPath: nil), options: options)
                let simulatedStart = feed.now.seconds
                let clockStart = clock.now().seconds
                var polled = Polled()
                while !flag.isStopped {
                    polled.polls += 1
                    _ = try feed.poll(timeout: 0.2) { advert in
                        polled.adverts += 1
                        let due = clockStart + (advert.time.seconds - simulatedStart) / speed
                        let lag = clock.now().seconds - due
                        if lag < -0.001 { polled.early += 1 }
                        if lag > step + 0.001 { polled.late += 1 }
                        polled.firstTime = polled.firstTime ?? advert.time.seconds
                        polled.lastTime = advert.time.seconds
                    }
                }
                return polled
            }
        }
        try await within("the first poll asleep") { try await clock.asleep() }
        try await within("\(seconds) s of the clock", timeout: .seconds(60)) {
            for _ in 0..<Int((seconds / step).rounded()) {
                clock.advance(by: step)
                try await clock.asleep()
            }
        }
        // The poll asleep wakes at the next step and sees the stop.
        flag.stop()
        clock.advance(by: step)
        return try await polling.value
    }

    @Test(arguments: [1.0, 10.0]) func thePollWaitsForTheNextAdvertisement(speed: Double) async throws {
        let seconds = 2.0
        let step = 0.05
        let polled = try await Self.poll(speed: speed, seconds: seconds, step: step)
        // The demo: three people advertising 5 times a second, about one in ten lost; office-1 hears most.
        #expect(polled.adverts >= Int(5 * seconds * speed), "\(polled)")
        // One poll per advertisement or per wake-up (a step), not thousands: a poll either sleeps
        // until the clock moves or has an advertisement due.
        #expect(polled.polls <= polled.adverts + Int(seconds / step) + 2, "\(polled)")
        #expect(polled.early == 0 && polled.late == 0, "\(polled)")
        // Simulated time runs `speed` times as fast as the clock.
        let span = (polled.lastTime ?? 0) - (polled.firstTime ?? 0)
        #expect(span > (seconds - 0.5) * speed && span <= (seconds + step) * speed, "\(polled)")
    }
}
