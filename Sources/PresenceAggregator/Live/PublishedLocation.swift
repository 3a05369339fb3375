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

    /// A location was just published; `fromDecider` when the decider's summary describes it.
    mutating func published(_ decided: RoomDecisionSummary, fromDecider: Bool) {
        followsDecider = false
        roomCode = fromDecider ? decided.roomCode : nil
        summary = fromDecider ? decided : nil
    }

    /// The decider's `current` summary describes the published location from now on (published
    /// again, or found to show nothing new).
    mutating func stands(for current: RoomDecisionSummary, roomCode code: Int32) {
        roomCode = code
        summary = current
    }

    /// Whether a location built from `current` may show something the published one does not
    /// (node, proximity, distance to 0.1 m, candidate rooms); true when the summaries cannot tell
    /// (no summary, or more than 64 candidate rooms), and the locations' text must be compared.
    func mayDiffer(from current: RoomDecisionSummary) -> Bool {
        guard let summary, summary.candidateRoomsExact, current.candidateRoomsExact else { return true }
        return summary.nodeCode != current.nodeCode || summary.proximity != current.proximity
            || Self.tenthsDiffer(summary.distance, current.distance)
            || summary.candidateRooms != current.candidateRooms
    }

    /// Whether the distances differ to 0.1 m, as `BeaconLocation.significantPart` compares them
    /// (`(d * 10).rounded() / 10`). Below 2^49 distinct whole tenths stay distinct after the
    /// division, so it is skipped there (two divisions were 1.5 % of an update); beyond, and for
    /// NaN, the division decides as before.
    static func tenthsDiffer(_ a: Double?, _ b: Double?) -> Bool {
        guard let a, let b else { return (a == nil) != (b == nil) }
        let tenthsA = (a * 10).rounded()
        let tenthsB = (b * 10).rounded()
        if tenthsA == tenthsB { return false }
        if abs(tenthsA) < 0x1p49, abs(tenthsB) < 0x1p49 { return true }
        return tenthsA / 10 != tenthsB / 10
    }
}
