import Synchronization

/// The live aggregator's inputs — messages straight from libmosquitto's network thread, ticks,
/// connection events — on their way to its one loop, in the order they were sent.
///
/// The loop takes everything that waits at once: while it is busy, a message costs an append
/// under a lock and no wake-up, and a loop that falls behind catches up a batch per wake-up.
/// Messages may also be posted without a wake-up and the loop woken once for a batch of them
/// (`post`, `wake`).
/// Before, each message crossed three threads (the network thread, a relay task per
/// subscription, the loop), each hop an `AsyncStream` that woke the next thread for every message:
/// the biggest cost per message at a site's rate (issue 38; the Scaling article).
final class ServiceInbox<Element: Sendable>: Sendable {
    private struct State: Sendable {
        var waiting: [Element] = []
        /// The loop, when it waits for the next input.
        var receiver: CheckedContinuation<[Element], Never>?
        var finished = false

        /// The waiting loop and everything queued, when both are there.
        mutating func takeReceiver() -> (CheckedContinuation<[Element], Never>, [Element])? {
            guard let receiver, !waiting.isEmpty else { return nil }
            self.receiver = nil
            defer { waiting = [] }
            return (receiver, waiting)
        }
    }

    private let state = Mutex(State())

    /// How long libmosquitto's thread lets a burst of messages gather before it wakes the loop for
    /// them (`MQTTConnection.batchDeliveries`; a message after a quiet spell goes at once). At 8,400
    /// messages a second about 17 share one wake-up instead of one each (issue 38; the Scaling article).
    static var batchWindow: Duration { .milliseconds(2) }

    init() {}

    /// Queues `element`, and wakes the loop if it waits. Does nothing once finished. Never blocks
    /// (beyond the lock): safe from libmosquitto's callbacks.
    func send(_ element: Element) {
        let woken: (CheckedContinuation<[Element], Never>, [Element])? = state.withLock { state in
            guard !state.finished else { return nil }
            state.waiting.append(element)
            return state.takeReceiver()
        }
        woken.map { $0.0.resume(returning: $0.1) }
    }

    /// Queues `element` without waking the loop: it is taken at the next wake-up (`wake()`, or any
    /// `send`). libmosquitto's thread posts a batch of messages and wakes the loop once for it
    /// (`MQTTConnection.batchDeliveries`). Does nothing once finished.
    func post(_ element: Element) {
        state.withLock { state in
            if !state.finished { state.waiting.append(element) }
        }
    }

    /// Wakes the loop, if it waits, for what was posted.
    func wake() {
        let woken = state.withLock { $0.takeReceiver() }
        woken.map { $0.0.resume(returning: $0.1) }
    }

    /// Whether the loop waits for input now (for tests).
    var hasReceiver: Bool { state.withLock { $0.receiver != nil } }

    /// Everything that waits, oldest first; when nothing does, waits for the next. Empty once
    /// finished. One receiver at a time.
    func receive() async -> [Element] {
        if let ready = takeWaiting() { return ready }
        return await withCheckedContinuation { continuation in
            let ready: [Element]? = state.withLock { state in
                guard state.waiting.isEmpty, !state.finished else {
                    defer { state.waiting = [] }
                    return state.waiting
                }
                state.receiver = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Ends the inbox: what waits is dropped, the loop (waiting or next time) receives nothing.
    func finish() {
        let receiver: CheckedContinuation<[Element], Never>? = state.withLock { state in
            state.finished = true
            state.waiting = []
            defer { state.receiver = nil }
            return state.receiver
        }
        receiver?.resume(returning: [])
    }

    /// The loop's side: one input at a time, taken from the inbox a batch at a time.
    func inputs() -> Inputs { Inputs(inbox: self) }

    /// Reads the inbox one input at a time; nil once it is finished or the task is cancelled.
    struct Inputs {
        let inbox: ServiceInbox
        private var batch: [Element] = []
        private var position = 0

        init(inbox: ServiceInbox) { self.inbox = inbox }

        /// Whether the input last returned was the last of what the loop took at once.
        var tookAll: Bool { position == batch.count }

        mutating func next() async -> Element? {
            if position == batch.count {
                let inbox = self.inbox
                batch = await withTaskCancellationHandler { await inbox.receive() } onCancel: { inbox.finish() }
                position = 0
                if batch.isEmpty { return nil }
            }
            defer { position += 1 }
            return batch[position]
        }
    }

    private func takeWaiting() -> [Element]? {
        state.withLock { state in
            if state.finished { return [] }
            guard !state.waiting.isEmpty else { return nil }
            defer { state.waiting = [] }
            return state.waiting
        }
    }
}
