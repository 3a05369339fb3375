import BeaconCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The aggregator's time: what time it is, and when to let time pass. Injected into
/// `AggregatorService`, so tests drive dwell, away and forget timers without sleeping.
public protocol AggregatorClock: Sendable {
    /// Now, as Unix seconds (payload timestamps are ISO-8601 of this).
    func now() -> Instant
    /// Yields the time whenever the service should tick the decider: the live clock every
    /// `interval` seconds; a test clock whenever the test moves it. Ends when the consumer stops.
    func ticks(every interval: Double) -> AsyncStream<Instant>
}

/// The real clock: `CLOCK_REALTIME`, ticking every interval.
public struct SystemAggregatorClock: AggregatorClock {
    public init() {}

    public func now() -> Instant {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Instant(seconds: Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9)
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
}

/// A clock the test moves by hand: `advance(by:)` sets the time and yields one tick to every
/// ticks stream.
public final class ManualAggregatorClock: AggregatorClock {
    private struct State {
        var now: Instant
        var continuations: [Int: AsyncStream<Instant>.Continuation] = [:]
        var nextID = 0
    }

    private let state: Mutex<State>

    public init(now: Instant) {
        state = Mutex(State(now: now))
    }

    public func now() -> Instant {
        state.withLock { $0.now }
    }

    public func ticks(every interval: Double) -> AsyncStream<Instant> {
        let (stream, continuation) = AsyncStream<Instant>.makeStream()
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.continuations[state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Moves the time forward by `seconds` and ticks.
    public func advance(by seconds: Double) {
        let (time, continuations) = state.withLock { state in
            state.now = state.now.advanced(by: seconds)
            return (state.now, Array(state.continuations.values))
        }
        for continuation in continuations { continuation.yield(time) }
    }
}
