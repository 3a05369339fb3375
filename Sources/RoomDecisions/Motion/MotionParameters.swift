/// How a room's motion sensor weighs in the room decision (issue 37; the Room decisions article,
/// "Motion"). A sensor says that *someone* is in its room now, never who: so motion never starts a
/// switch by itself. It only changes how much radio evidence a switch the radio already asks for
/// needs, and how well the current room stands against it:
/// - **hold** (off by default): while the current room's sensor reports motion (and `holdAfter`
///   seconds after it clears), the room defends with `hold` dB more: a worn tag's fade does not hand
///   it away — unless motion has just started in another room nobody is decided in (someone arrived
///   there);
/// - **onset**: for `onsetWindow` seconds after a room's motion starts, a switch into it needs only
///   `onsetFactor` of the dwell and of the evidence, and a challenge already running when the motion
///   started (the radio asked first) `confirmedOnsetFactor` of them (by default nothing more: it
///   switches at once) — unless another beacon is already decided in that room (the motion is
///   then explained by it: two people in two rooms, one moves, the other stays put);
/// - **quiet**: a room whose sensor has reported no motion for `quietAfter` seconds (and still counts)
///   takes `quietFactor` times the dwell and the evidence: a switch there is likely a fade elsewhere —
///   while the current room's own sensor is not quiet too (`quietNeedsMotionHere`).
/// Rooms without a sensor, and every room of a site without any, decide exactly as before.
public struct MotionParameters: Sendable, Hashable {
    /// dB added to the current room's defended score while its motion holds, default 0: a PIR stays
    /// on for its hold time after the person has left, so the hold slows every real departure
    /// whose next room's sensor has not yet fired; with 3 dB the SAL bay's median switch went from
    /// 4.7 to 5.2 s and nothing was steadier on the shared walks.
    public var hold: Double
    /// Seconds the hold lasts after the room's motion clears, default 0: a PIR's own hold time
    /// (seconds after the last movement) already keeps it on; more held a room its person had left
    /// (4.1 s against 2.5 s median switch on the hall with 10 s).
    public var holdAfter: Double
    /// Seconds after a room's motion starts that a switch into it is faster, default 3: a PIR sees
    /// someone walk in within a few seconds (0.3–2.5 s), so an onset older than that is not this
    /// arrival. With 10 s a neighbour's sensor tripped through a doorway sped fades towards its
    /// room for as long as it stayed on (the flat without its bathroom's and kitchen's receivers:
    /// 6 flaps against 4 without motion; with 3 s, 4).
    public var onsetWindow: Double
    /// The share of dwell and evidence such a switch needs, default 0.5.
    public var onsetFactor: Double
    /// Seconds without motion after which a room with a sensor counts as quiet, default 30.
    public var quietAfter: Double
    /// How many times the dwell and evidence a switch into a quiet room needs, default 2.
    public var quietFactor: Double
    /// Seconds a challenge into a quiet room lasts before the quiet rule asks more of it, default 0
    /// (at once). A walk-in trips the room's sensor within 0.3–2.5 s, so with 2–2.5 s the radio's
    /// own quick switch is not slowed: it gave the SAL bay back its 4.6 s median switch (each of
    /// its walks 0.2–0.75 s faster) but the flat flapped 29–30 times against 24 (27 without motion):
    /// its fades into quiet rooms are quick too. 1.5 s (the dwell) changes nothing.
    public var quietGrace: Double
    /// dB by which a challenger may trail the current room's defended score and still challenge,
    /// while its room's motion has just started (`onsetWindow`) with nobody decided there to explain
    /// it, default 0 (off): a switch the radio nearly asks for, into the room whose sensor just fired.
    public var onsetMargin: Double
    /// Whether the hold yields for as long as another room's motion nobody explains is on (true),
    /// or only for that motion's `onsetWindow` (false, default).
    public var holdYieldsWhileActive: Bool
    /// For the site model, whether a room's continuing motion (past its `onsetWindow`) weighs
    /// `modelMotion` only for a beacon decided in that room (true), or also for one decided elsewhere
    /// when nobody explains it (false, default). A PIR stays on for seconds after its person left:
    /// counted for them, that motion pulls them back into the room they just left.
    public var modelMotionOnlyHere: Bool
    /// The share of dwell and evidence a challenge needs when it was already running as its room's
    /// motion started (the radio asked first, the sensor confirms), in the `onsetWindow`, default 0:
    /// it switches at once. Negative: as any other challenge there, `onsetFactor`. With 0 the flat
    /// switched in 3.67 s against 3.83 s and the hall was more accurate (0.843 against 0.838), no
    /// site flapping more; 0.25 gave the same speed and less accuracy.
    public var confirmedOnsetFactor: Double
    /// Whether, while motion nobody explains has just started (`onsetWindow`) in a room that
    /// scores above the current room, the current room defends with its own score only, not its
    /// held best (`RoomDecisionParameters.fallRate`), default false: the flat without its
    /// bathroom's and kitchen's receivers flapped 6 times against 4, and nothing was faster.
    public var onsetReleasesDefence: Bool
    /// For the site model, the posterior share a room needs before its motion may weigh for it
    /// (the radio already leans there), default 0 (always).
    public var modelMotionNeedsShare: Double
    /// Whether the quiet rule asks more only while the current room's own sensor is not quiet too
    /// (someone moved here lately, nobody there), default true: when both are quiet, or the current
    /// room has no sensor, the sensors say nothing of which room the beacon is in. The flat flapped
    /// 23 times against 24 with the rule always on, and a hall walk's early switch (the radio
    /// ahead of the truth) was no longer held back 2.7 s.
    public var quietNeedsMotionHere: Bool

    /// For the site model, log-likelihood per second that a room's unexplained motion adds to it,
    /// default 0.9 (ln 2.5: the true room's sensor was active within 10 s 58 % of the time, another
    /// room's 23 %, issue 37), and that a quiet room loses, default 1.3 (ln(0.8/0.21)). Ratios
    /// measured second by second on the walks (`MotionWeights.measured`) are larger (motion 1.1–1.8,
    /// quiet −1.1 to −2.2) and decided the SAL bay worse (median switch 3.45 s against 2.25 s): a
    /// sensor's state lasts many seconds, so its seconds are not independent evidence.
    public var modelMotion: Double
    public var modelQuiet: Double
    /// For the site model, log-likelihood per second added on top of `modelMotion` for
    /// `onsetWindow` seconds after a room's motion starts, when it is this beacon's room or nobody
    /// else's (an arrival: the moment the radio is least sure), default 0.75. With 3 the bay
    /// flapped 6–8 times against 4 (a neighbour's sensor seen through a doorway), with 6 its accuracy fell to 0.873.
    /// With 1.5 (the second round's) the flat flapped 37 times against 34 without motion, with 0.75 (or
    /// less) 35; the bay switched in 1.8 s, with 0.75 in 1.85 s (1.9 s without motion).
    public var modelOnset: Double
    /// For the site model, whether a quiet room loses `modelQuiet` only while another room's motion
    /// is this beacon's or nobody else's (someone, perhaps this beacon, is moving there), default
    /// true: applied always, a person sitting still in a quiet room lost 1.3 a second against
    /// every room without a sensor while nothing moved anywhere.
    public var modelQuietNeedsMotionElsewhere: Bool

    public init(hold: Double = 0, holdAfter: Double = 0, onsetWindow: Double = 3, onsetFactor: Double = 0.5,
                quietAfter: Double = 30, quietFactor: Double = 2, quietGrace: Double = 0,
                modelMotion: Double = 0.9, modelQuiet: Double = 1.3, modelOnset: Double = 0.75,
                modelQuietNeedsMotionElsewhere: Bool = true, onsetMargin: Double = 0, holdYieldsWhileActive: Bool = false,
                modelMotionOnlyHere: Bool = false, confirmedOnsetFactor: Double = 0, onsetReleasesDefence: Bool = false,
                modelMotionNeedsShare: Double = 0, quietNeedsMotionHere: Bool = true) {
        self.quietNeedsMotionHere = quietNeedsMotionHere
        self.confirmedOnsetFactor = confirmedOnsetFactor
        self.onsetReleasesDefence = onsetReleasesDefence
        self.modelMotionNeedsShare = modelMotionNeedsShare
        self.modelMotionOnlyHere = modelMotionOnlyHere
        self.onsetMargin = onsetMargin
        self.holdYieldsWhileActive = holdYieldsWhileActive
        self.modelMotion = modelMotion
        self.modelQuiet = modelQuiet
        self.modelOnset = modelOnset
        self.modelQuietNeedsMotionElsewhere = modelQuietNeedsMotionElsewhere
        self.quietGrace = quietGrace
        self.hold = hold
        self.holdAfter = holdAfter
        self.onsetWindow = onsetWindow
        self.onsetFactor = onsetFactor
        self.quietAfter = quietAfter
        self.quietFactor = quietFactor
    }

    public static let `default` = MotionParameters()
}
