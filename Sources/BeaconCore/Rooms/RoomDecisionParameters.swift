/// Every setting of the room decision, with documented defaults chosen on the nine walking traces
/// of shared/data (`presence-bench evaluate`; the README's table shows how they trade speed
/// against stability).
///
/// Scores are in dB: a node's evidence scores `−10·n·log₁₀(distance)`, which is its filtered RSSI
/// relative to the beacon's measured power with the node's calibration offset applied (the distance
/// already carries both), so margins read as "x dB stronger".
public struct RoomDecisionParameters: Sendable, Hashable {
    /// n used to turn a reported distance back into dB, default 2.7 (the agent's default).
    /// Only the scale of the margins depends on it, never the ranking of the rooms.
    public var pathLossExponent: Double
    /// A challenger room must score at least this many dB above the current room before its lead
    /// counts, default 0.5 dB.
    public var margin: Double
    /// The challenger must have led by the margin without a break for this long, seconds, default 2 s.
    public var dwell: Double
    /// And its lead above the margin, integrated over time, must reach this many dB·s, default
    /// 0.5 dB·s (a 2 s dwell at a bare 0.75 dB lead): a lead that barely clears the margin is not enough.
    /// A lead counts at most `leadCap` dB, so one wild measurement cannot switch at once.
    public var evidenceToSwitch: Double
    /// Largest lead (dB) one instant contributes to `evidenceToSwitch`, default 3 dB.
    public var leadCap: Double
    /// Evidence older than this is dropped, seconds, default 12 s: a little more than two agent
    /// heartbeats (5 s), so a node that heard the beacon keeps a voice between heartbeats.
    public var staleAfter: Double
    /// No fresh evidence from any node for this long gives `not_home`, seconds, default 30 s
    /// (the region exit delay of SEMANTICS.md).
    public var awayTimeout: Double

    public init(
        pathLossExponent: Double = 2.7,
        margin: Double = 0.5,
        dwell: Double = 2,
        evidenceToSwitch: Double = 0.5,
        leadCap: Double = 3.0,
        staleAfter: Double = 12,
        awayTimeout: Double = 30
    ) {
        self.pathLossExponent = pathLossExponent
        self.margin = margin
        self.dwell = dwell
        self.evidenceToSwitch = evidenceToSwitch
        self.leadCap = leadCap
        self.staleAfter = staleAfter
        self.awayTimeout = awayTimeout
    }

    /// The documented defaults.
    public static let `default` = RoomDecisionParameters()
}
