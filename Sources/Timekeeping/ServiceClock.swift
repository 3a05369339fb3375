import BeaconCore

/// The programs' one clock: what time it is, how a source's thread waits for a time, and a
/// service's periodic beat. `AgentService` (and the sources it opens) and `AggregatorService` take
/// it, so tests move time by hand (TestSupport's `ManualClock`) and never wait for it to pass;
/// `SystemClock` is the real one.
public protocol ServiceClock: Sendable {
    /// Now, as Unix seconds on a live clock (payload timestamps are ISO-8601 of this).
    func now() -> Instant

    /// Blocks the calling thread until `deadline`. For a source's own thread, whose reads block
    /// anyway; a task must not call it (it would hold one of the pool's few threads).
    func sleep(until deadline: Instant)

    /// Yields the time whenever a service's periodic work is due: the system clock every `interval`
    /// seconds; a test clock whenever the test moves it. Ends when the consumer stops listening.
    /// A requirement rather than a loop of sleeps, so that a test clock beats once per move.
    func ticks(every interval: Double) -> AsyncStream<Instant>

    /// Returns once this clock has reached `deadline` (at once if it has), or when the task is
    /// cancelled: a service's wake-up at a moment it computed (the aggregator's next decision due),
    /// between its periodic ticks. A task may call it (it suspends, holding no thread).
    func wait(until deadline: Instant) async
}

extension ServiceClock {
    /// Blocks the calling thread for `seconds` of this clock's time; returns at once when not positive.
    public func sleep(for seconds: Double) {
        guard seconds > 0 else { return }
        sleep(until: now().advanced(by: seconds))
    }

    /// The live clock's wait: a task's sleep until the deadline.
    public func wait(until deadline: Instant) async {
        let seconds = deadline - now()
        guard seconds > 0 else { return }
        try? await Task.sleep(for: .nanoseconds(Int64((seconds * 1e9).rounded(.up))))
    }
}
