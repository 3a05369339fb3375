import BeaconCore

/// The parts of a beacon's current `RoomDecision` that a published location shows, as plain values:
/// what `RoomDecider.summary(in:)` returns after every update so that its owner can tell whether a
/// location is worth publishing again without building the decision. Codes are the decider's
/// interned names: equal codes are equal names within one decider (`RoomDecider.roomName(code:)`).
public struct RoomDecisionSummary: Sendable, Hashable {
    /// The decided room's code (`RoomDecision.notHome` included); nil before deciding started.
    public var roomCode: Int32?
    /// The code of the decided room's nearest node; nil for `not_home` or while the decided room
    /// has no evidence.
    public var nodeCode: Int32?
    /// That node's distance, metres (nil with `nodeCode`).
    public var distance: Double?
    /// That node's proximity (`unknown` with no node).
    public var proximity: Proximity = .unknown
    /// The candidate rooms (rooms with evidence) as a set of codes: bit `code` for each code below 64.
    public var candidateRooms: UInt64 = 0
    /// False when a candidate room's code is 64 or more, so `candidateRooms` does not tell the
    /// whole set: compare the decisions' `candidates` instead.
    public var candidateRoomsExact = true

    /// Creates the summary of a beacon not yet decided.
    public init() {}

    /// Whether the beacon has a decision (`RoomDecider.decision(in:)` is not nil).
    public var isDecided: Bool { roomCode != nil }
}
