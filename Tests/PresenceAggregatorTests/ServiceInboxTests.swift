@testable import PresenceAggregator
import Testing

/// The live loop's inbox: posted inputs wait for a wake-up, and every input keeps its order
/// (issue 38: libmosquitto's thread posts a burst and wakes the loop once).
@Suite("Service inbox")
struct ServiceInboxTests {
    @Test("Posted inputs wait for the next wake-up and come with it, in order")
    func postedWaitForWake() async {
        let inbox = ServiceInbox<Int>()
        inbox.post(1)
        inbox.post(2)
        #expect(await inbox.receive() == [1, 2])  // what waits is taken without a wake-up
        let receiving = Task { await inbox.receive() }
        // A loop already waiting is not woken by posts, only by `wake` or `send`.
        while !inbox.hasReceiver { await Task.yield() }
        inbox.post(3)
        inbox.post(4)
        #expect(inbox.hasReceiver)
        inbox.wake()
        #expect(await receiving.value == [3, 4])
    }

    @Test("A send wakes the loop for what was posted before it too")
    func sendTakesPosted() async {
        let inbox = ServiceInbox<Int>()
        let receiving = Task { await inbox.receive() }
        while !inbox.hasReceiver { await Task.yield() }
        inbox.post(5)
        inbox.send(6)
        #expect(await receiving.value == [5, 6])
        inbox.wake()  // nothing waits: nothing happens
        inbox.finish()
        #expect(await inbox.receive() == [])
    }
}
