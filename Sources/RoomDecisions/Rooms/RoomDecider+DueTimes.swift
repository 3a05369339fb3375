import BeaconCore

/// Each beacon's next change by time alone, served when it falls (issue 38): a challenger's dwell
/// ending, a new beacon's settle time, a challenger appearing as the current room's held score
/// falls. The ticks found these up to a tick interval late (0.25 s in the fleet bench, 1 s by
/// default); the live aggregator now wakes at the earliest (`nextDueTime()`) and evaluates only
/// the beacons due then (`decideDue(at:)`). Ticks still evaluate every active beacon as before.
extension RoomDecider {
    /// The earliest due time of any beacon, nil for none (or without `servesDueTimes`, or once
    /// rooms' motion is known: then time changes every beacon, and the ticks serve them).
    public mutating func nextDueTime() -> Instant? {
        guard servesDueTimes, motion == nil else { return nil }
        return dueTimes.earliest().map(Instant.init(seconds:))
    }

    /// Evaluates the beacons whose due time has come by `time`; returns the changed decisions,
    /// ordered by beacon (as `tick(at:)`). Each evaluated beacon gets its next due time.
    public mutating func decideDue(at time: Instant) -> [RoomDecision] {
        guard servesDueTimes, motion == nil, time.seconds.isFinite else { return [] }
        var changed: [RoomDecision] = []
        for slot in dueTimes.takeDue(by: time.seconds) where slot < states.count && slotBeacons[slot] != nil {
            if evaluate(slot: slot, at: time), let decision = decision(slot: slot) { changed.append(decision) }
        }
        if changed.count > 1 { changed.sort { $0.beacon < $1.beacon } }
        return changed
    }
}
