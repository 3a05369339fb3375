import BeaconCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The real clock: `CLOCK_REALTIME` for the time, `nanosleep` for a thread's wait, a task's sleep
/// between ticks. The one place the programs read the system's clocks (`read`).
public struct SystemClock: ServiceClock {
    public init() {}

    public func now() -> Instant {
        Instant(seconds: Self.read(CLOCK_REALTIME))
    }

    /// Seconds on a clock that never jumps. For timeouts of I/O (a controller's answer to a
    /// command, a scan's `--duration`): they wait for a device, not for the programs' time, so they
    /// stay on the system even when a test injects its own clock.
    @Sendable public static func monotonic() -> Double {
        read(CLOCK_MONOTONIC)
    }

    public func sleep(until deadline: Instant) {
        let seconds = deadline - now()
        guard seconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        var remaining = timespec()
        // A signal (SIGTERM to stop the agent) interrupts the sleep; the rest is slept.
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    public func ticks(every interval: Double) -> AsyncStream<Instant> {
        let clock = self
        return AsyncStream { continuation in
            let task = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(Int((interval * 1000).rounded())))
                    if Task.isCancelled { break }
                    continuation.yield(clock.now())
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private static func read(_ id: clockid_t) -> Double {
        var spec = timespec()
        clock_gettime(id, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
