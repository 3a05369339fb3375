import Synchronization

/// The live aggregator's inputs — messages straight from libmosquitto's network thread, ticks,
/// connection events — on their way to its one loop, in the order they were sent.
///
/// The loop takes everything that waits at once: while it is busy, a message costs an append
/// under a lock and no wake-up, and a loop that falls behind catches up a batch per wake-up.
/// Before, each message crossed three threads (the network thread, a relay task per
/// subscription, the loop), each hop an `AsyncStream` that woke the next thread for every message:
/// the biggest cost per message at a site's rate (issue 38; the Scaling article).
final class ServiceInbox<Element: Sendable>: Sendable {
    private struct State: Sendable {
        var waiting: [Element] = []
        /// The loop, when it waits for the next input.
        var receiver: CheckedContinuation<[Element], Never>?
        var finished = false
    }

    private let state = Mutex(State())

    init() {}

    /// Queues `element`, and wakes the loop if it waits. Does nothing once finished. Never blocks
    /// (beyond the lock): safe from libmosquitto's callbacks.
    func send(_ element: Element) {
        let receiver: CheckedContinuation<[Element], Never>? = state.withLock { state in
            guard !state.finished else { return nil }
            guard let receiver = state.receiver else {
                state.waiting.append(element)
                return nil
            }
            state.receiver = nil
            return receiver
        }
        receiver?.resume(returning: [element])
    }

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
