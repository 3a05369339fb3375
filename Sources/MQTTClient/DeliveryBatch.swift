/// When the network thread tells a subscriber that messages wait (`MQTTConnection.batchDeliveries`).
///
/// A subscriber that queues what its handlers get and is woken once per batch pays one thread
/// wake-up per batch instead of one per message: at 8,000 messages a second that wake-up (a futex
/// and two context switches) was a large part of the aggregator's CPU per message (issue 38).
/// The rule costs nothing at a low rate: a message that comes after a quiet spell (none in the
/// `window` before it) ends its batch at once; only a message that follows another within the
/// window waits, at most `window`, for the ones behind it. Pure: the time is passed in.
struct DeliveryBatch {
    /// How long a message may wait for the ones behind it; zero ends every batch at once.
    let window: Duration
    private var lastMessage: ContinuousClock.Instant?
    private var openedAt: ContinuousClock.Instant?
    private var counted = 0

    init(window: Duration, received: Int = 0) {
        self.window = window
        counted = received
    }

    /// Milliseconds the network loop may wait for the socket: `idle` while no batch is open, else
    /// what is left of the open batch's window.
    func timeoutMilliseconds(at now: ContinuousClock.Instant, idle: Int32) -> Int32 {
        guard let openedAt else { return idle }
        let left = openedAt + window - now
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        let milliseconds = seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: min(Int64(idle), milliseconds))
    }

    /// After one turn of the network loop, with `received` messages delivered so far: whether the
    /// subscriber should be woken now for what waits.
    mutating func ends(received: Int, at now: ContinuousClock.Instant) -> Bool {
        if received != counted {
            counted = received
            let quiet = lastMessage.map { now - $0 >= window } ?? true
            lastMessage = now
            if openedAt == nil {
                if quiet || window <= .zero { return true }
                openedAt = now
            }
        }
        guard let openedAt, now - openedAt >= window else { return false }
        self.openedAt = nil
        return true
    }

    /// Whether nothing can end now: no message since the last turn and no batch open. The loop
    /// then reads no clock.
    func isIdle(received: Int) -> Bool { received == counted && openedAt == nil }

    /// Whether messages were delivered that the subscriber was not yet woken for.
    var isOpen: Bool { openedAt != nil }
}
