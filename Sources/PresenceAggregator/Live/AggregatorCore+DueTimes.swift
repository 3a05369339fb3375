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

    /// The earliest moment at which time alone changes a beacon's decision, nil for none.
    public mutating func nextDecisionDue() -> Instant? {
        decider.nextDueTime()
    }

    /// The decisions due by `time`, applied and published as a tick would publish them.
    public mutating func decideDue(at time: Instant) -> [AggregatorPublication] {
        var out: [AggregatorPublication] = []
        for decision in decider.decideDue(at: time) {
            guard let slot = decider.physics.slot(of: decision.beacon) else { continue }
            apply(decision, slot: slot.index, at: time, into: &out)
        }
        roomMessages.publishDue(into: &out)
        return out
    }
}
