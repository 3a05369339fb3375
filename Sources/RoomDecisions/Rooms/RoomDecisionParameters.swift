import BeaconCore

/// Every setting of the room decision, with documented defaults chosen on the nine walking traces
/// of data/ and checked on the SAL bay's five recordings and the furnished flat's five, one
/// set for every site
/// (`presence-bench evaluate`; the Room decisions article of PresenceAggregator.docc shows how they trade speed against stability).
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
    /// A challenger's lead over the current room counts only above this many dB, default 0 dB.
    /// None on purpose: the integrated lead (`evidenceToSwitch`) already asks more time of a slim
    /// lead than of a decisive one, and the current room's held score (`fallRate`) already
    /// stands against its fades, which served the three sites better than an instantaneous margin
    /// (0.25 dB until issue 26; see the Room decisions article's tables); raise it to demand a
    /// minimum lead at every instant.
    public var margin: Double
    /// The current room's score, as its challengers meet it, falls no faster than this, dB/s,
    /// default 4 dB/s: it is held from its recent best. A fade (a body turning or sitting between
    /// the tag and a node: 10–20 dB for a second or two) is brief and drops the filtered score
    /// faster than that, so it does not hand the room to a challenger; a move keeps the room's
    /// score down and the hold reaches it within seconds, while the room moved to rises at once.
    /// `.infinity` (or any non-positive value) holds nothing, the rule before issue 26.
    public var fallRate: Double
    /// The challenger must have led by more than the margin without a break for this long,
    /// seconds, default 1.5 s.
    public var dwell: Double
    /// And its lead above the margin, capped at `leadCap` and integrated over time, must reach this
    /// many dB·s, default 1.5 dB·s: a 2 dB lead or more needs just the dwell (1.5 s), a 1 dB lead
    /// 2 s, a 0.5 dB lead 6 s. A lead that dips to the margin or below starts the challenger afresh.
    public var evidenceToSwitch: Double
    /// A challenger leading the current room's held score by at least this many dB wins at once,
    /// without its dwell or evidence, default `.infinity` (never): a move that puts a room far
    /// ahead is no fade (issue 40).
    public var decisiveLead: Double
    /// The fast clock (issue 40): a challenger room whose nodes' raw readings (each measurement's
    /// `rssi`, the last advert, as a score) have all stood at least this many dB above the current
    /// room's held score, and above every raw reading of the current room's nodes since, for
    /// `fastFor` seconds wins at once. A move raises the room moved to; a body's fade only lowers
    /// the room held, so it never starts a streak. Default `.infinity` (off).
    public var fastLead: Double
    /// How long the fast clock's raw readings must have led, seconds (from the first to the latest
    /// of them), default 1 s.
    public var fastFor: Double
    /// The fast clock's rise gate (issue 40, fifth round): a streak starts only at a raw reading
    /// this many dB above its node's own filtered value (the measurement's `rssi` over its
    /// `rssiFiltered`): the node has just risen. A move raises the room moved to; a body's shadow on
    /// the room held leaves the others at their usual level. Default 0: not asked.
    public var fastRise: Double
    /// The rise switch (issue 40, sixth round): a node's rise report (`RiseReport`, a worn beacon's
    /// adverts risen over their own recent mean; the measurement's `riseRssi`) switches at once to
    /// its room when the level it rose to, as a score, leads every other room's level (`riseMeets`)
    /// by this many dB. A move raises the room moved to; a body's shadow only lowers the room held.
    /// Default `.infinity` (off), and off in `wornRule`; 5 dB in `wornRiseRule`, the rule a worn beacon
    /// gets while the nodes hearing it report rises (nodes that report none, ESPresense or gateways,
    /// would leave it 13 s behind a move with that rule: the Room decisions article, "Issue 40").
    public var riseLead: Double
    /// What the rise switch meets as another room's level: `latest` its latest score, from its
    /// nodes' filtered readings; `raw` (default) its nodes' last published adverts (`rssi`) as
    /// scores, which a fade publishes at once (a step) while the filter still lags it; `lower` the
    /// lower of the two; `hold` the held room's held score (its recent best, let fall at
    /// `fallRate`). `raw` measured best on the worn walks (the Room decisions article, sixth round).
    public var riseMeets: RiseLevel
    /// A rise report that fails the lead waits this many seconds (issue 40, seventh round): it
    /// switches at the first evaluation in that time at which it leads, its room's level being
    /// its node's latest published advert. Default 0: a report counts at its own evaluation only;
    /// 2 s in `wornRiseRule`.
    public var risePending: Double
    /// For the rise switch, the held room's nodes' last published adverts count this many dB lower
    /// per second of their age beyond 1 s (issue 40, seventh round): a node that has not published
    /// since it faded still stands at its old level. Default 0: no decay.
    public var riseDecay: Double
    /// A rise report that fails the lead asks the nodes whose last published level blocks it for
    /// their level now (issue 40, eighth round: `RoomDecider.takeLevelQueries()`), at most once per
    /// this many seconds per beacon; their answers meet the waiting report (`risePending`).
    /// Default 0: no queries; 0.25 s in `wornRiseRule`.
    public var riseQuery: Double
    /// Only a rise report short of `riseLead` by at most this many dB asks (`riseQuery`): one far
    /// short is seldom a move, and a fresh level of a room that briefly faded would let it win
    /// (issue 40, eighth round: asking on every shortfall cost the flat 6 flaps, more than
    /// Bermuda's). Default `.infinity`; 3 dB in `wornRiseRule`.
    public var riseQueryShortfall: Double
    /// A room's level as the rise switch meets it (`riseMeets`).
    public enum RiseLevel: Int, Sendable, Hashable {
        case latest = 0, raw = 1, lower = 2, hold = 3
    }
    /// Largest lead (dB) one instant contributes to `evidenceToSwitch`, default 3 dB.
    public var leadCap: Double
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

    /// Creates parameters; the defaults are the ones every site runs with.
    public init(
        pathLossExponent: Double = DistanceModel.default.pathLossExponent,
        margin: Double = 0,
        fallRate: Double = 4,
        dwell: Double = 1.5,
        evidenceToSwitch: Double = 1.5,
        leadCap: Double = 3.0,
        decisiveLead: Double = .infinity,
        fastLead: Double = .infinity,
        fastFor: Double = 1,
        fastRise: Double = 0,
        riseLead: Double = .infinity,
        riseMeets: RiseLevel = .raw,
        risePending: Double = 0,
        riseDecay: Double = 0,
        riseQuery: Double = 0,
        riseQueryShortfall: Double = .infinity,
        settleTime: Double = 1,
        staleAfter: Double = 150,
        awayTimeout: Double = 30
    ) {
        self.pathLossExponent = pathLossExponent
        self.margin = margin
        self.fallRate = fallRate
        self.dwell = dwell
        self.evidenceToSwitch = evidenceToSwitch
        self.leadCap = leadCap
        self.decisiveLead = decisiveLead
        self.fastLead = fastLead
        self.fastFor = fastFor
        self.fastRise = fastRise
        self.riseLead = riseLead
        self.riseMeets = riseMeets
        self.risePending = risePending
        self.riseDecay = riseDecay
        self.riseQuery = riseQuery
        self.riseQueryShortfall = riseQueryShortfall
        self.settleTime = settleTime
        self.staleAfter = staleAfter
        self.awayTimeout = awayTimeout
    }

    /// The documented defaults.
    public static let `default` = RoomDecisionParameters()

    /// The rule for a tag worn on a body (a wristband, a phone in a pocket, a watch: a known beacon
    /// marked `worn`, docs/MQTT.md), issue 40's third round. A body shadows its own room's receivers
    /// for half a minute at a time (a person sitting with their back to them), which the defaults,
    /// chosen on tags carried on a pole or a car, take for a move; the worn profile asks a
    /// challenger for more before it wins, and lets a real move through by the fast clock:
    /// - `margin` 2.5 dB, `leadCap` 4 dB: a lead counts only above 2.5 dB, and at most 1.5 dB of it,
    ///   so a shadow that leaves another room a little ahead never switches;
    /// - `dwell` 6 s, `evidenceToSwitch` 8 dB·s: even a decisive lead by the filtered values takes
    ///   6 s (a shadow lasts seconds to half a minute; the house's median was 3 s);
    /// - `fastLead` 4 dB for `fastFor` 1.1 s: the room moved to wins once its nodes' raw adverts
    ///   have stood 4 dB above the held room for 1.1 s; a shadow lowers the room held, raises none.
    ///
    /// Only the switching rule differs (`margin`, `fallRate`,
    /// `dwell`, `evidenceToSwitch`, `leadCap`, `decisiveLead`, `fastLead`, `fastFor`, `riseLead`,
    /// `riseMeets`, `risePending`, `riseDecay`, `riseQuery`, `riseQueryShortfall`); what a site
    /// sets for the rest (path loss, settle, stale and away times) holds for worn beacons too.
    /// Searched on the worn versions of every shared site (`presence-bench evaluate --worn-tag`; the
    /// Room decisions article of PresenceAggregator.docc has the figures).
    public static let wornRule = RoomDecisionParameters(
        margin: 2.5, fallRate: 4, dwell: 6, evidenceToSwitch: 8, leadCap: 4, decisiveLead: .infinity,
        fastLead: 4, fastFor: 1.1)

    /// The rule for a worn beacon while the nodes hearing it report its rises (issue 40, sixth round,
    /// defaults): the rise switch at 5 dB over every other room's last published advert (a report
    /// short of it waits 2 s for a later reading: seventh round, and one short by 3 dB or less asks
    /// the nodes in its way for their level now, at most every 0.25 s: eighth round), no fast clock, and a slower slow
    /// path (`dwell` 10 s, `evidenceToSwitch` 12 dB·s); the rest as `wornRule`. `RoomDecider` uses it only while every node that holds evidence of the beacon has
    /// sent a rise report; with some that have, it runs `wornRule`'s fast clock on the others' readings;
    /// with none, `wornRule` itself (the Room decisions article, "Issue 40, sixth round, defaults").
    public static let wornRiseRule = RoomDecisionParameters(
        margin: 2.5, fallRate: 4, dwell: 10, evidenceToSwitch: 12, leadCap: 4, decisiveLead: .infinity,
        fastLead: .infinity, fastFor: 1.1, riseLead: 5, riseMeets: .raw, risePending: 2, riseQuery: 0.25,
        riseQueryShortfall: 3)

    /// These parameters with the worn profile's switching rule (`wornRule`) in place of their own.
    public var worn: RoomDecisionParameters { worn(rule: Self.wornRule) }

    /// These parameters with `rule`'s switching rule in place of their own (an operator's
    /// `decision.worn` settings over `wornRule`): path loss, settle, stale and away times stay.
    public func worn(rule: RoomDecisionParameters) -> RoomDecisionParameters {
        RoomDecisionParameters(
            pathLossExponent: pathLossExponent, margin: rule.margin, fallRate: rule.fallRate, dwell: rule.dwell,
            evidenceToSwitch: rule.evidenceToSwitch, leadCap: rule.leadCap, decisiveLead: rule.decisiveLead,
            fastLead: rule.fastLead, fastFor: rule.fastFor, fastRise: rule.fastRise, riseLead: rule.riseLead,
            riseMeets: rule.riseMeets, risePending: rule.risePending, riseDecay: rule.riseDecay,
            riseQuery: rule.riseQuery, riseQueryShortfall: rule.riseQueryShortfall, settleTime: settleTime, staleAfter: staleAfter, awayTimeout: awayTimeout)
    }
}
