import BeaconCore
import RoomDecisions

/// What was last published of a beacon's location, in plain values (no reference counting on the
/// per-measurement path), so a measurement can be compared with it without building a location:
/// where the location came from (the retained topics of an earlier run, or the decider), and the
/// decider's summary of it. The location itself and its significant text are the core's.
struct PublishedLocation: Sendable {
    /// Set while the location came from the retained topics and the decider has not decided yet.
    var restoredAt: Instant?
    /// The decider's code of the location's room, when the location came from the decider.
    var roomCode: Int32?
    /// Set when the decider's current decision, in the location's room, is newer than the
    /// stored location (measurements that were not worth publishing): `location(of:)` builds it.
    var followsDecider = false
    /// The decider's summary of the published location, when it came from the decider.
    var summary: RoomDecisionSummary?
    /// The published location's distance (`LocationRefreshRule` compares with it, not with the
    /// summary, which also stands for measurements that were not published).
    var distance: Double?
    /// When this run published it; nil for a restored location.
    var at: Instant?

    /// A location was just published; `fromDecider` when the decider's summary describes it.
    mutating func published(_ decided: RoomDecisionSummary, fromDecider: Bool, distance: Double?, at time: Instant) {
        followsDecider = false
        roomCode = fromDecider ? decided.roomCode : nil
        summary = fromDecider ? decided : nil
        self.distance = distance
        at = time
    }

    /// The decider's `current` summary describes the published location from now on (published
    /// again, or found to show nothing new).
    mutating func stands(for current: RoomDecisionSummary, roomCode code: Int32) {
        roomCode = code
        summary = current
    }

    /// Whether a location built from `current` at `time` may be worth publishing: its node,
    /// proximity or candidate rooms differ, or its distance moved as `rule` publishes; true when
    /// the summaries cannot tell (no summary, or more than 64 candidate rooms), and the locations
    /// must be compared.
    func mayDiffer(from current: RoomDecisionSummary, at time: Instant, rule: LocationRefreshRule) -> Bool {
        guard let summary, summary.candidateRoomsExact, current.candidateRoomsExact else { return true }
        return summary.nodeCode != current.nodeCode || summary.proximity != current.proximity
            || summary.candidateRooms != current.candidateRooms
            || distanceWorthPublishing(current.distance, at: time, rule: rule)
    }

    /// `rule`'s verdict on a location of distance `current` at `time` against this one.
    func distanceWorthPublishing(_ current: Double?, at time: Instant, rule: LocationRefreshRule) -> Bool {
        rule.distanceWorthPublishing(published: distance, current: current, age: at.map { time.since($0) })
    }
}
