import BeaconCore

/// The decided room of one beacon, as published on `<root>/locations/<beacon>`.
public struct RoomDecision: Sendable, Hashable {
    /// The room name used for "away": no fresh evidence anywhere for the away timeout.
    public static let notHome = "not_home"

    /// The beacon decided about.
    public var beacon: BeaconID
    /// The decided room, or `RoomDecision.notHome`.
    public var room: String
    /// Estimated distance to the nearest node of the decided room, metres (nil for `not_home`).
    public var distance: Double?
    /// Proximity reported by that nearest node (`unknown` for `not_home`).
    public var proximity: Proximity
    /// The node whose evidence is nearest in the decided room (nil for `not_home`).
    public var node: String?
    /// When the beacon entered `room`.
    public var since: Instant
    /// How sure the decision is, 0…1: `1 − 10^(−lead/10)` where lead is the decided room's score
    /// above the best other room in dB, i.e. the share of the received power (per room, the mean
    /// of its nodes) that the decided room does not have to share with its runner-up: 0 for a
    /// tie, 0.5 at 3 dB, 0.9 at 10 dB; 1 when no other room has evidence; 0 when the decided room
    /// currently trails (it is kept only by hysteresis) and for `not_home`.
    public var confidence: Double
    /// Per room with fresh evidence: the distance of its nearest node, metres (docs/MQTT.md's `candidates`).
    public var candidates: [String: Double]

    /// Creates a decision from its fields.
    public init(beacon: BeaconID, room: String, distance: Double?, proximity: Proximity, node: String?,
                since: Instant, confidence: Double, candidates: [String: Double]) {
        self.beacon = beacon
        self.room = room
        self.distance = distance
        self.proximity = proximity
        self.node = node
        self.since = since
        self.confidence = confidence
        self.candidates = candidates
    }
}
