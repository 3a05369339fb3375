/// How a room's motion sensor weighs in the room decision (issue 37; the Room decisions article,
/// "Motion"). A sensor says that *someone* is in its room now, never who: so motion never starts a
/// switch by itself. It only changes how much radio evidence a switch the radio already asks for
/// needs, and how well the current room stands against it:
/// - **hold** (off by default): while the current room's sensor reports motion, the room defends
///   with `hold` dB more: a worn tag's fade does not hand it away — unless motion has just started
///   in another room nobody is decided in (someone arrived there);
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
    /// dB added to the current room's defended score while its motion holds, default 0 (off): a PIR
    /// stays on for its hold time after the person has left, so the hold slows every real departure
    /// whose next room's sensor has not yet fired. Set it (`decision.motionHold`) where worn tags
    /// fade in rooms whose sensors see their wearer, and departures may be a little slower.
    public var hold: Double
    /// Seconds after a room's motion starts that a switch into it is faster, default 3: a PIR sees
    /// someone walk in within a few seconds, so an onset older than that is not this arrival; a
    /// longer window lets a neighbour's sensor tripped through a doorway speed fades towards its room.
    public var onsetWindow: Double
    /// The share of dwell and evidence such a switch needs, default 0.5.
    public var onsetFactor: Double
    /// Seconds without motion after which a room with a sensor counts as quiet, default 30.
    public var quietAfter: Double
    /// How many times the dwell and evidence a switch into a quiet room needs, default 2.
    public var quietFactor: Double
    /// The share of dwell and evidence a challenge needs when it was already running as its room's
    /// motion started (the radio asked first, the sensor confirms), in the `onsetWindow`, default 0:
    /// it switches at once. Negative: as any other challenge there, `onsetFactor`.
    public var confirmedOnsetFactor: Double
    /// Whether the quiet rule asks more only while the current room's own sensor is not quiet too
    /// (someone moved here lately, nobody there), default true: when both are quiet, or the current
    /// room has no sensor, the sensors say nothing of which room the beacon is in.
    public var quietNeedsMotionHere: Bool

    /// For the site model, log-likelihood per second that a room's unexplained motion adds to it,
    /// default 0.9 (ln 2.5), and that a quiet room loses, default 1.3 (ln(0.8/0.21)): the ratios of
    /// how often the true room's sensor and another room's were active, kept below the ratios
    /// measured second by second (`MotionWeights.measured`), because a sensor's state lasts many
    /// seconds, so its seconds are not independent evidence. A model of levels weighs no quiet room
    /// (`MotionWeights.init(_:levels:)`).
    public var modelMotion: Double
    public var modelQuiet: Double
    /// For the site model, log-likelihood per second added on top of `modelMotion` for
    /// `onsetWindow` seconds after a room's motion starts, when it is this beacon's room or nobody
    /// else's (an arrival: the moment the radio is least sure), default 0.75; more lets a
    /// neighbour's sensor seen through a doorway pull beacons into its room.
    public var modelOnset: Double
    /// For the site model, whether a quiet room loses `modelQuiet` only while another room's motion
    /// is this beacon's or nobody else's (someone, perhaps this beacon, is moving there), default
    /// true: applied always, a person sitting still in a quiet room would lose against every room
    /// without a sensor while nothing moved anywhere.
    public var modelQuietNeedsMotionElsewhere: Bool

    public init(hold: Double = 0, onsetWindow: Double = 3, onsetFactor: Double = 0.5,
                quietAfter: Double = 30, quietFactor: Double = 2,
                modelMotion: Double = 0.9, modelQuiet: Double = 1.3, modelOnset: Double = 0.75,
                modelQuietNeedsMotionElsewhere: Bool = true, confirmedOnsetFactor: Double = 0,
                quietNeedsMotionHere: Bool = true) {
        self.hold = hold
        self.onsetWindow = onsetWindow
        self.onsetFactor = onsetFactor
        self.quietAfter = quietAfter
        self.quietFactor = quietFactor
        self.confirmedOnsetFactor = confirmedOnsetFactor
        self.quietNeedsMotionHere = quietNeedsMotionHere
        self.modelMotion = modelMotion
        self.modelQuiet = modelQuiet
        self.modelOnset = modelOnset
        self.modelQuietNeedsMotionElsewhere = modelQuietNeedsMotionElsewhere
    }

    public static let `default` = MotionParameters()
}
