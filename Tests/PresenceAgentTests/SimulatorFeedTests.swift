import BeaconCore
import BluetoothHCI
import Glibc
import PresenceAgent
import Testing
import Timekeeping

/// Issue 18 (7): the simulator as a source waits for its next advertisement, as a radio's read
/// waits for the controller, instead of polling in a loop (a whole core per demo agent). These
/// tests measure pacing, so they take real time: two seconds each.
@Suite struct SimulatorFeedTests {
    struct Polled {
        var adverts = 0
        var polls = 0
        /// Advertisements delivered before their time, and a second or more after it (a loaded
        /// machine may not run the thread for a while; a spin is not late, it is busy).
        var early = 0
        var late = 0
        var firstTime: Double?
        var lastTime: Double?
        var cpuSeconds = 0.0
        var wallSeconds = 0.0
    }

    static func threadCPUSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// Polls the demo building, heard from `office-1`, for `seconds` of wall time at `speed`.
    static func poll(speed: Double, seconds: Double) throws -> Polled {
        var options = FeedOptions()
        options.speed = speed
        options.simulatedNode = "office-1"
        let feed = try AdvertisementFeeds.open(.simulate(scenarioPath: nil), options: options)
        let simulatedStart = feed.now.seconds
        let wallStart = SystemClock().now().seconds
        let cpuStart = threadCPUSeconds()
        var polled = Polled()
        while SystemClock().now().seconds - wallStart < seconds {
            polled.polls += 1
            _ = try feed.poll(timeout: 0.2) { advert in
                polled.adverts += 1
                let due = wallStart + (advert.time.seconds - simulatedStart) / speed
                let lag = SystemClock().now().seconds - due
                if lag < -0.001 { polled.early += 1 }
                if lag > 1 { polled.late += 1 }
                polled.firstTime = polled.firstTime ?? advert.time.seconds
                polled.lastTime = advert.time.seconds
            }
        }
        polled.cpuSeconds = threadCPUSeconds() - cpuStart
        polled.wallSeconds = SystemClock().now().seconds - wallStart
        return polled
    }

    @Test(arguments: [1.0, 10.0]) func thePollWaitsForTheNextAdvertisement(speed: Double) throws {
        let polled = try Self.poll(speed: speed, seconds: 2)
        // The demo: three people advertising 5 times a second, about one in ten lost; office-1 hears most.
        #expect(polled.adverts >= Int(5 * 2 * speed), "\(polled)")
        // One poll per advertisement (or per timeout), not thousands.
        #expect(polled.polls <= polled.adverts + 15, "\(polled)")
        // A spinning poll used the whole two seconds; waiting leaves the core idle.
        #expect(polled.cpuSeconds < 0.2, "\(polled)")
        #expect(polled.early == 0 && polled.late == 0, "\(polled)")
        // Simulated time runs `speed` times as fast as the wall clock.
        let span = (polled.lastTime ?? 0) - (polled.firstTime ?? 0)
        #expect(span > (polled.wallSeconds - 0.5) * speed && span <= polled.wallSeconds * speed, "\(polled)")
    }
}
