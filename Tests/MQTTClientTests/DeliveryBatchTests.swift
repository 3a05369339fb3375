@testable import MQTTClient
import Testing

/// When the network thread wakes a subscriber for the messages its handlers queued: at once after
/// a quiet spell, else once the burst's window has passed (issue 38).
@Suite("Delivery batches")
struct DeliveryBatchTests {
    /// `#expect` cannot call a mutating member: a box can.
    final class Batch {
        var value: DeliveryBatch
        init(window: Duration, received: Int = 0) { value = DeliveryBatch(window: window, received: received) }
        func ends(received: Int, at time: ContinuousClock.Instant) -> Bool { value.ends(received: received, at: time) }
        func timeoutMilliseconds(at time: ContinuousClock.Instant, idle: Int32) -> Int32 {
            value.timeoutMilliseconds(at: time, idle: idle)
        }
        func isIdle(received: Int) -> Bool { value.isIdle(received: received) }
        var isOpen: Bool { value.isOpen }
    }

    let start = ContinuousClock.now

    func at(_ milliseconds: Double) -> ContinuousClock.Instant {
        start + .microseconds(Int64(milliseconds * 1_000))
    }

    @Test("A message after a quiet spell wakes the subscriber at once")
    func quietMessageGoesAtOnce() {
        let batch = Batch(window: .milliseconds(2))
        #expect(batch.timeoutMilliseconds(at: at(0), idle: 1000) == 1000)
        #expect(batch.ends(received: 1, at: at(0)))
        #expect(!batch.isOpen)
        // The next one 5 ms later is after a quiet spell too.
        #expect(batch.ends(received: 2, at: at(5)))
        #expect(batch.timeoutMilliseconds(at: at(5), idle: 1000) == 1000)
    }

    @Test("A burst waits at most the window, and one wake-up serves all of it")
    func burstGathers() {
        let batch = Batch(window: .milliseconds(2))
        #expect(batch.ends(received: 1, at: at(0)))
        // 0.1 ms later: within the window of the one before, so the batch opens.
        #expect(!batch.ends(received: 2, at: at(0.1)))
        #expect(batch.isOpen)
        #expect(batch.timeoutMilliseconds(at: at(0.1), idle: 1000) == 2)
        #expect(!batch.ends(received: 5, at: at(1.0)))
        #expect(batch.timeoutMilliseconds(at: at(1.0), idle: 1000) == 2)  // 1.1 ms left, rounded up
        #expect(!batch.ends(received: 9, at: at(2.0)))
        #expect(!batch.isIdle(received: 9))  // open: the clock is read until it ends
        // The loop's wait ran out with nothing new: the window has passed.
        #expect(batch.ends(received: 9, at: at(2.1)))
        #expect(!batch.isOpen)
        #expect(batch.timeoutMilliseconds(at: at(2.1), idle: 1000) == 1000)
        // Still a burst: the next message opens the next batch.
        #expect(!batch.ends(received: 10, at: at(2.2)))
        #expect(batch.ends(received: 11, at: at(4.3)))
    }

    @Test("A zero window wakes for every message, and turns without messages wake nobody")
    func zeroWindow() {
        let batch = Batch(window: .zero, received: 7)
        #expect(!batch.ends(received: 7, at: at(0)))
        #expect(batch.ends(received: 8, at: at(0)))
        #expect(batch.ends(received: 9, at: at(0.01)))
        #expect(!batch.ends(received: 9, at: at(0.02)))
        #expect(batch.isIdle(received: 9))
        #expect(!batch.isIdle(received: 10))
        #expect(batch.timeoutMilliseconds(at: at(0.02), idle: 1000) == 1000)
    }
}
