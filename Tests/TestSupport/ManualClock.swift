import BeaconCore
import Dispatch
import Synchronization
import Timekeeping

/// A clock the test moves by hand: nothing happens on it until `advance(by:)`, which sets the time,
/// wakes every thread asleep and every task waiting until then, and yields one tick to every ticks
/// stream (whatever its interval: the tests move it by at most a service's interval at a time).
///
/// `asleep(_:)` waits until the threads the test drives are asleep on the clock again, that is
/// until they have done all that was due by now: so a test can advance step by step, each step
/// complete before the next, as fast as the CPU allows and the same on a loaded machine.
public final class ManualClock: ServiceClock {
    private struct State {
        var now: Instant
        var tickers: [Int: AsyncStream<Instant>.Continuation] = [:]
        var sleepers: [Int: (deadline: Instant, wake: DispatchSemaphore)] = [:]
        var waiters: [Int: (count: Int, continuation: CheckedContinuation<Void, any Error>)] = [:]
        /// Tasks in `wait(until:)`: resumed by the `advance` that reaches their deadline, or cancelled.
        var timedWaits: [Int: (deadline: Instant, continuation: CheckedContinuation<Void, Never>)] = [:]
        var nextID = 0

        mutating func takeID() -> Int {
            defer { nextID += 1 }
            return nextID
        }

        /// Takes the waiters whose number of sleepers is reached.
        mutating func takeSatisfiedWaiters() -> [CheckedContinuation<Void, any Error>] {
            let satisfied = waiters.filter { $0.value.count <= sleepers.count }
            for id in satisfied.keys { waiters.removeValue(forKey: id) }
            return satisfied.values.map(\.continuation)
        }
    }

    private let state: Mutex<State>

    public init(now: Instant) {
        state = Mutex(State(now: now))
    }

    public func now() -> Instant {
        state.withLock { $0.now }
    }

    /// Blocks until a test's `advance` reaches `deadline`.
    public func sleep(until deadline: Instant) {
        let wake = DispatchSemaphore(value: 0)
        let satisfied = state.withLock { state -> [CheckedContinuation<Void, any Error>]? in
            guard deadline > state.now else { return nil }
            state.sleepers[state.takeID()] = (deadline, wake)
            return state.takeSatisfiedWaiters()
        }
        guard let satisfied else { return }
        for waiter in satisfied { waiter.resume() }
        wake.wait()
    }

    public func ticks(every interval: Double) -> AsyncStream<Instant> {
        let (stream, continuation) = AsyncStream<Instant>.makeStream()
        let id = state.withLock { state in
            let id = state.takeID()
            state.tickers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.tickers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Returns once `advance` reaches `deadline` (at once if the clock has), or when the task is cancelled.
    public func wait(until deadline: Instant) async {
        let id = state.withLock { $0.takeID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if Task.isCancelled || deadline <= state.now { return true }
                    state.timedWaits[id] = (deadline, continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let wait = state.withLock { $0.timedWaits.removeValue(forKey: id) }
            wait?.continuation.resume()
        }
    }

    /// Tasks waiting in `wait(until:)` for a time the clock has not reached.
    public var timedWaitCount: Int { state.withLock { $0.timedWaits.count } }

    /// Moves the time forward by `seconds`, wakes the threads asleep and the tasks waiting until
    /// then, and ticks — unless `tick` is false: then only what waits for a time of its own wakes
    /// (a service's wake-up between its periodic ticks, which the test then sees alone).
    public func advance(by seconds: Double, tick: Bool = true) {
        let (time, due, timed, tickers) = state.withLock { state in
            state.now = state.now.advanced(by: seconds)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers.removeValue(forKey: id) }
            let timed = state.timedWaits.filter { $0.value.deadline <= state.now }
            for id in timed.keys { state.timedWaits.removeValue(forKey: id) }
            return (state.now, due.values.map(\.wake), timed.values.map(\.continuation), tick ? Array(state.tickers.values) : [])
        }
        for wake in due { wake.signal() }
        for continuation in timed { continuation.resume() }
        for ticker in tickers { ticker.yield(time) }
    }

    /// Returns once at least `count` threads are asleep on this clock (at once if they are);
    /// throws `CancellationError` when the task is cancelled first (a test's `within` timing out).
    public func asleep(_ count: Int = 1) async throws {
        let id = state.withLock { $0.takeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.sleepers.count >= count { return .success(()) }
                    state.waiters[id] = (count, continuation)
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            // Set before this runs, `Task.isCancelled` stops a waiter not yet stored; one stored is taken here.
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }
}
