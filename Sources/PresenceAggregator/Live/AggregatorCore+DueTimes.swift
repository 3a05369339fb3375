import BeaconCore
import RoomDecisions

/// A decision due between ticks (issue 38): the live service wakes at the decider's next due time
/// and publishes what changed then, instead of at the next tick after it.
extension AggregatorCore {
    /// Whether the decider keeps each beacon's next change by time alone (`RoomDecider.servesDueTimes`).
    /// The live service turns it on; the replay, which ticks on the recording's clock, leaves it off.
    public var servesDecisionsWhenDue: Bool {
        get { decider.servesDueTimes }
        set { decider.servesDueTimes = newValue }
    }

    /// Seconds between two messages of one room (`<root>/rooms/<room>`), at least: a change within
    /// that time of the room's last message waits for the first tick after it, and goes with every
    /// change since in one message. 0 (the default): each goes in the call that makes it. The live
    /// service sets 1 s: at 100,000 beacons a room lists some 700 occupants (about 90 KB), and each
    /// move sent two such lists at once (issue 38).
    public var roomMessageInterval: Double {
        get { roomMessages.minimumInterval }
        set { roomMessages.minimumInterval = max(0, newValue) }
    }

    /// The earliest moment at which time alone changes a beacon's decision, nil for none.
    public mutating func nextDecisionDue() -> Instant? {
        decider.nextDueTime()
    }

    /// The decisions due by `time`, applied and published as a tick would publish them.
    public mutating func decideDue(at time: Instant) -> [AggregatorPublication] {
        var out: [AggregatorPublication] = []
        apply(decider.decideDue(at: time), at: time, into: &out)
        roomMessages.publishDue(into: &out, at: time.seconds)
        return out
    }
}
