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
}

extension ServiceClock {
    /// Blocks the calling thread for `seconds` of this clock's time; returns at once when not positive.
    public func sleep(for seconds: Double) {
        guard seconds > 0 else { return }
        sleep(until: now().advanced(by: seconds))
    }
}
