import BeaconCore

/// The site's settings of the room decision, with documented defaults (one set for every site;
/// the Room decisions article of PresenceAggregator.docc says when to change each), and the
/// switching rule its beacons are decided with (`rule`).
///
/// Scores are in dB: a node's evidence scores `−10·n·log₁₀(distance)`, which is its filtered RSSI
/// relative to the beacon's measured power with the node's calibration offset applied (the distance
/// already carries both), so margins read as "x dB stronger".
public struct RoomDecisionParameters: Sendable, Hashable {
    /// n used to turn a reported distance back into dB, default the agent's
    /// (`DistanceModel.default.pathLossExponent`), so that a score difference is exactly a
    /// difference of calibrated RSSI. Only the scale of the margins depends on it, never the
    /// ranking of the rooms.
    public var pathLossExponent: Double
    /// Deciding starts (and a beacon back from `not_home` is placed) this long after its first
    /// evidence, seconds, default 1 s: nodes report a newly heard beacon within one advertising
    /// interval, and a decision on the first node's word alone is often wrong and would cost a
    /// switch (a flap) a dwell later.
    public var settleTime: Double
    /// A node's evidence is dropped once it is this old, seconds, default 150 s (2.5 of the
    /// agent's 60 s heartbeats). Only a safety net: a node that stops hearing a beacon says so
    /// itself (one measurement with proximity `unknown`, which drops its evidence at once), but
    /// measurements are QoS 0 and that one may be lost; a node that hears the beacon publishes at
    /// least every heartbeat, so after two missed heartbeats it no longer does.
    public var staleAfter: Double
    /// `not_home` once no node has heard the beacon for this long, seconds, default 30 s (the
    /// region exit delay of docs/Semantics.md): counted from the moment the last node reported it
    /// `unknown`, went stale or offline. A still beacon that nodes keep hearing publishes only its
    /// heartbeat and never goes away.
    public var awayTimeout: Double
    /// When a beacon's room changes (`SwitchingRule`), default `SwitchingRule.default`.
    public var rule: SwitchingRule

    /// Creates parameters; the defaults are the ones every site runs with.
    public init(
        pathLossExponent: Double = DistanceModel.default.pathLossExponent,
        settleTime: Double = 1,
        staleAfter: Double = 150,
        awayTimeout: Double = 30,
        rule: SwitchingRule = .default
    ) {
        self.pathLossExponent = pathLossExponent
        self.settleTime = settleTime
        self.staleAfter = staleAfter
        self.awayTimeout = awayTimeout
        self.rule = rule
    }

    /// The documented defaults.
    public static let `default` = RoomDecisionParameters()
}
