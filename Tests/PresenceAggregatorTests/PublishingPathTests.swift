@testable import PresenceAggregator
import RoomDecisions
import Testing

/// The pure parts of the live service's publishing and timer paths (issue 38).
struct PublishingPathTests {
    /// A retained topic waits once, with its newest value, in its first place; events wait in turn
    /// up to the limit and are then counted as dropped.
    @Test func theBacklogCoalescesStatePerTopicAndCountsEventsItCannotHold() {
        var backlog = PublicationBacklog(eventLimit: 2)
        backlog.add(.retained("p/locations/a", "kitchen"))
        backlog.add(AggregatorPublication(topic: "p/events", payload: "e1", retain: false))
        backlog.add(.retained("p/rooms/kitchen", "[a]"))
        backlog.add(.retained("p/locations/a", "hall"))
        backlog.add(AggregatorPublication(topic: "p/events", payload: "e2", retain: false))
        backlog.add(AggregatorPublication(topic: "p/events", payload: "e3", retain: false))
        backlog.add(.clear("p/rooms/kitchen"))
        #expect(backlog.count == 4)
        #expect(backlog.coalesced == 2)
        #expect(backlog.droppedEvents == 1)
        var sent: [String] = []
        while let next = backlog.next() { sent.append("\(next.topic) \(next.payload)") }
        #expect(sent == ["p/locations/a hall", "p/events e1", "p/rooms/kitchen ", "p/events e2"])
        #expect(backlog.isEmpty && backlog.count == 0)
        // Taken out, a topic waits again as new.
        backlog.add(.retained("p/locations/a", "not_home"))
        #expect(backlog.next()?.payload == "not_home")
    }

    /// Thousands of topics rewritten over and over: the backlog never holds more than one message
    /// per topic, and what comes out last for each topic is its newest value.
    @Test func theBacklogStaysBoundedByItsTopicsAndEndsWithTheNewestValues() {
        var backlog = PublicationBacklog(eventLimit: 0)
        var newest: [String: String] = [:]
        var sent: [String: String] = [:]
        for round in 0..<20 {
            for topic in 0..<3_000 {
                let name = "p/locations/b\(topic)"
                let value = "\(round)-\(topic)"
                backlog.add(.retained(name, value))
                newest[name] = value
                #expect(backlog.count <= 3_000)
            }
            // The broker takes a few hundred between rounds.
            for _ in 0..<700 { if let next = backlog.next() { sent[next.topic] = next.payload } }
        }
        while let next = backlog.next() { sent[next.topic] = next.payload }
        #expect(sent == newest)
    }

    /// Due slots come out once, by their time; a slot rescheduled earlier comes out at the earlier
    /// time only; a cancelled one never.
    @Test func slotTimersGiveOnlyTheSlotsThatAreDue() {
        var timers = SlotTimers()
        timers.schedule(0, at: 100)
        timers.schedule(1, at: 50)
        timers.schedule(2, at: 200)
        timers.schedule(2, at: 150)  // earlier: replaces
        timers.schedule(0, at: 120)  // later: the earlier entry stands
        timers.schedule(3, at: .infinity)  // nothing ahead
        timers.schedule(4, at: 60)
        timers.cancel(4)
        #expect(timers.takeDue(by: 40) == [])
        #expect(timers.takeDue(by: 100).sorted() == [0, 1])
        #expect(timers.takeDue(by: 149) == [])
        #expect(timers.takeDue(by: 1_000) == [2])
        #expect(timers.takeDue(by: 10_000) == [])
    }
}
