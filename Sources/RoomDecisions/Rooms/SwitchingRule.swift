/// When a beacon's room changes: how much and for how long a challenger room must lead the current
/// one before it takes the beacon. `RoomDecisionParameters.rule` is the rule of every beacon.
///
/// Scores are in dB (`RoomDecisionParameters`), so margins read as "x dB stronger".
public struct SwitchingRule: Sendable, Hashable {
    /// A challenger's lead over the current room counts only above this many dB, default 0: the
    /// integrated lead (`evidenceToSwitch`) already asks more time of a slim lead than of a decisive
    /// one, and the held score (`fallRate`) already stands against fades. Raise it to demand a
    /// minimum lead at every instant.
    public var margin: Double
    /// The current room's score, as its challengers meet it, falls no faster than this, dB/s,
    /// default 4 dB/s: it is held from its recent best. A fade (a body turning or sitting between
    /// the tag and a node) is brief and drops the filtered score faster than that, so it does not
    /// hand the room to a challenger; a move keeps the room's score down and the hold reaches it
    /// within seconds, while the room moved to rises at once. `.infinity` (or any non-positive
    /// value) holds nothing. Lower it where fades last longer; raise it to follow moves sooner.
    public var fallRate: Double
    /// The challenger must have led by more than the margin without a break for this long,
    /// seconds, default 1.5 s.
    public var dwell: Double
    /// And its lead above the margin, capped at `leadCap` and integrated over time, must reach this
    /// many dB·s, default 1.5 dB·s: a lead of `leadCap` or more needs just the dwell, a slimmer one
    /// longer. A lead that dips to the margin or below starts the challenger afresh.
    public var evidenceToSwitch: Double
    /// Largest lead (dB) one instant contributes to `evidenceToSwitch`, default 3 dB.
    public var leadCap: Double

    /// Creates a rule; the defaults are the rule of every beacon.
    public init(margin: Double = 0, fallRate: Double = 4, dwell: Double = 1.5, evidenceToSwitch: Double = 1.5,
                leadCap: Double = 3.0) {
        self.margin = margin
        self.fallRate = fallRate
        self.dwell = dwell
        self.evidenceToSwitch = evidenceToSwitch
        self.leadCap = leadCap
    }

    /// The rule of every beacon.
    public static let `default` = SwitchingRule()
}
