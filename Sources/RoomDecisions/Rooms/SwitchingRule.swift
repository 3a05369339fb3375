/// When a beacon's room changes: how much, for how long and by which path a challenger room must
/// lead the current one before it takes the beacon. `RoomDecisionParameters.rule` is the rule of
/// every beacon; known beacons marked `worn` get `worn`, or `wornRise` while the nodes hearing them
/// report rises (`RoomDecider`).
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
    /// The fast clock: a challenger room whose nodes' raw readings (each measurement's `rssi`, the
    /// last advert, as a score) have all stood at least this many dB above the current room's held
    /// score, and above every raw reading of the current room's nodes since, for `fastFor` seconds
    /// wins at once. A move raises the room moved to; a body's fade only lowers the room held, so
    /// it never starts a streak. Default `.infinity` (off); on in `worn`.
    public var fastLead: Double
    /// How long the fast clock's raw readings must have led, seconds (from the first to the latest
    /// of them), default 1 s.
    public var fastFor: Double
    /// The rise switch: a node's rise report (`RiseReport`, a worn beacon's adverts risen over their
    /// own recent mean; the measurement's `riseRssi`) switches at once to its room when the level it
    /// rose to, as a score, leads every other room's level by this many dB — a room's level being
    /// its nodes' last published adverts (`rssi`) as scores, which a fade publishes at once while
    /// the filter still lags it. A move raises the room moved to; a body's shadow only lowers the
    /// room held. Default `.infinity` (off); on in `wornRise`, the rule a worn beacon gets while the
    /// nodes hearing it report rises (nodes that report none, ESPresense or gateways, would leave it
    /// far behind a move with that rule).
    public var riseLead: Double
    /// A rise report that fails the lead waits this many seconds: it switches at the first
    /// evaluation in that time at which it leads, its room's level being its node's latest
    /// published advert. Default 0: a report counts at its own evaluation only.
    public var risePending: Double
    /// A rise report that fails the lead asks the nodes whose last published level blocks it for
    /// their level now (`RoomDecider.takeLevelQueries()`), at most once per this many seconds per
    /// beacon, when it falls short by at most `levelQueryShortfall`; their answers meet the waiting
    /// report (`risePending`). Default 0: no queries.
    public var riseQuery: Double

    /// Only a rise report short of `riseLead` by at most this many dB asks for levels (`riseQuery`):
    /// one far short is seldom a move, and a fresh level of a room that briefly faded would let it win.
    public static let levelQueryShortfall = 3.0

    /// Creates a rule; the defaults are the rule of every beacon not marked worn.
    public init(margin: Double = 0, fallRate: Double = 4, dwell: Double = 1.5, evidenceToSwitch: Double = 1.5,
                leadCap: Double = 3.0, fastLead: Double = .infinity, fastFor: Double = 1, riseLead: Double = .infinity,
                risePending: Double = 0, riseQuery: Double = 0) {
        self.margin = margin
        self.fallRate = fallRate
        self.dwell = dwell
        self.evidenceToSwitch = evidenceToSwitch
        self.leadCap = leadCap
        self.fastLead = fastLead
        self.fastFor = fastFor
        self.riseLead = riseLead
        self.risePending = risePending
        self.riseQuery = riseQuery
    }

    /// The rule of every beacon not marked worn.
    public static let `default` = SwitchingRule()

    /// The rule for a tag worn on a body (a wristband, a phone in a pocket, a watch: a known beacon
    /// marked `worn`, docs/MQTT.md; the operator's `decision.worn` keys override it). A body shadows
    /// its own room's receivers for long stretches (a person sitting with their back to them), which
    /// the default rule, chosen on tags carried on a pole or a car, takes for a move; this rule asks
    /// a challenger for more before it wins, and lets a real move through by the fast clock:
    /// - `margin` 2.5 dB, `leadCap` 4 dB: a lead counts only above 2.5 dB, and at most 1.5 dB of it,
    ///   so a shadow that leaves another room a little ahead never switches;
    /// - `dwell` 6 s, `evidenceToSwitch` 8 dB·s: even a decisive lead by the filtered values takes
    ///   6 s, longer than most shadows;
    /// - `fastLead` 4 dB for `fastFor` 1.1 s: the room moved to wins once its nodes' raw adverts
    ///   have stood 4 dB above the held room for 1.1 s; a shadow lowers the room held, raises none.
    public static let worn = SwitchingRule(margin: 2.5, fallRate: 4, dwell: 6, evidenceToSwitch: 8, leadCap: 4,
                                           fastLead: 4, fastFor: 1.1)

    /// The rule for a worn beacon while the nodes hearing it report its rises: the rise switch at
    /// 5 dB over every other room's last published advert (a report short of it waits 2 s for a
    /// later reading, and one short by `levelQueryShortfall` or less asks the nodes in its way for
    /// their level now, at most every 0.25 s), no fast clock, and a slower slow path (`dwell` 10 s,
    /// `evidenceToSwitch` 12 dB·s); the rest as `worn`. `RoomDecider` uses it only while every node
    /// that holds evidence of the beacon has sent a rise report; with some that have, it runs
    /// `worn`'s fast clock on the others' readings (`withFastClock(of:)`); with none, `worn` itself.
    public static let wornRise = SwitchingRule(margin: 2.5, fallRate: 4, dwell: 10, evidenceToSwitch: 12, leadCap: 4,
                                               fastLead: .infinity, fastFor: 1.1, riseLead: 5, risePending: 2,
                                               riseQuery: 0.25)

    /// This rule with `other`'s fast clock (`fastLead`, `fastFor`): the rise rule of a worn beacon
    /// heard both by nodes that report rises and by nodes that do not, whose readings the fast
    /// clock reads.
    public func withFastClock(of other: SwitchingRule) -> SwitchingRule {
        var mixed = self
        mixed.fastLead = other.fastLead
        mixed.fastFor = other.fastFor
        return mixed
    }
}
