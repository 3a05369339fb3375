/// The aggregator's publications that wait while the broker is behind (its client has its window
/// of unacknowledged messages full), oldest first.
///
/// State (a retained topic: a location, a room's occupants, a discovery config, a clear) is
/// coalesced per topic: a newer value replaces the one waiting, in its place, so the backlog holds
/// at most one message per retained topic and the last value always goes out. Events (not
/// retained) are not state: each waits in turn, at most `eventLimit` of them; beyond that a new
/// one is dropped and counted. Pure: the service adds what the core returns and takes messages out
/// as the broker acknowledges.
struct PublicationBacklog: Sendable {
    /// Events waiting at most; more are dropped (`droppedEvents`).
    let eventLimit: Int
    /// Waiting messages in order; nil where one was taken (before `head`).
    private var queue: [AggregatorPublication?] = []
    private var head = 0
    /// Where in `queue` each waiting retained topic's message is.
    private var waitingState: [String: Int] = [:]
    private(set) var waitingEvents = 0
    /// Retained messages replaced by a newer value of their topic before they were sent.
    private(set) var coalesced = 0
    /// Events dropped because `eventLimit` already waited.
    private(set) var droppedEvents = 0

    init(eventLimit: Int = 10_000) {
        self.eventLimit = eventLimit
    }

    var isEmpty: Bool { head == queue.count }
    /// Messages waiting: one per retained topic at most, plus the events.
    var count: Int { waitingState.count + waitingEvents }

    mutating func add(_ publication: AggregatorPublication) {
        if publication.retain {
            if let index = waitingState[publication.topic] {
                queue[index] = publication
                coalesced += 1
                return
            }
            waitingState[publication.topic] = queue.count
        } else {
            guard waitingEvents < eventLimit else {
                droppedEvents += 1
                return
            }
            waitingEvents += 1
        }
        queue.append(publication)
    }

    /// The oldest waiting message, taken out.
    mutating func next() -> AggregatorPublication? {
        guard head < queue.count, let publication = queue[head] else { return nil }
        queue[head] = nil
        head += 1
        if publication.retain { waitingState[publication.topic] = nil } else { waitingEvents -= 1 }
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1_024, head * 2 >= queue.count {
            // Taken slots are dropped once they are half of the array: amortised constant work.
            queue.removeFirst(head)
            for (topic, index) in waitingState { waitingState[topic] = index - head }
            head = 0
        }
        return publication
    }

    /// Drops everything waiting (an instance that stops leading sends nothing more).
    mutating func removeAll() {
        queue.removeAll()
        waitingState.removeAll()
        head = 0
        waitingEvents = 0
    }
}
