import BeaconCore

/// The hyper-parameters of a site model: one fixed set for every site (chosen by
/// leave-one-recording-out on both shared sites, the site model article of PresenceAggregator.docc), written into each
/// model file so a model decides as it was judged.
public struct SiteModelParameters: Sendable, Hashable {
    /// Learning takes one feature snapshot per beacon every this many seconds (time, not message
    /// count, weighs the rooms: a node that publishes more often does not count more).
    public var sampleInterval: Double
    /// Weight per second of the mean per-node log-likelihood in the filter: how fast evidence
    /// accumulates. The mean, not the sum, over nodes: nodes near one another are not independent,
    /// and a site with more nodes must not become more sure of itself by counting them.
    public var evidenceRate: Double
    /// Rate (per second) of the filter's transition prior: the probability of a room change in
    /// `dt` seconds is `1 − exp(−switchRate·dt)`, spread evenly over the rooms. It bounds how sure
    /// the filter gets, so a real move is followed within about a second.
    public var switchRate: Double
    /// Share of a node's measurements that fit no room (reflections, a body in the way): a uniform
    /// density over `outlierRange` dB mixed into every Gaussian, so one wild value cannot veto a room.
    public var outlierShare: Double
    /// Width of the outlier density, dB.
    public var outlierRange: Double
    /// The smallest `sigma` a look may have, dB: a room seen at one spot in the recording must
    /// still accept the next walk's slightly different path.
    public var minimumSigma: Double
    /// Prior strength (in snapshots) pulling a room's mean and sigma towards the node's overall
    /// ones, so a room a node rarely heard does not get a sharp Gaussian from a few values.
    public var priorSnapshots: Double
    /// Hysteresis: a challenger room replaces the decided room only when its posterior is this
    /// many times the decided room's.
    public var switchOdds: Double
    /// A measurement older than this (seconds) counts as not heard (a safety net for a lost
    /// `unknown`; nodes re-publish a still beacon every heartbeat).
    public var staleAfter: Double
    /// The classifier learns from one moment per beacon every this many seconds (moments 0.1 s
    /// apart say nearly the same, so fewer make learning quicker at the same score).
    public var classifierInterval: Double
    /// L2 penalty on the classifier's weights (on standardized features, per mean sample loss):
    /// small, so the rooms' patterns are learned, yet a node seen in one room only does not get an
    /// unbounded weight.
    public var classifierPenalty: Double
    /// Gradient steps when fitting the classifier.
    public var classifierIterations: Double
    /// Where physics serves the room decided and the model names a room it serves, the seconds the
    /// model must have held that room before the decision moves there (`SiteModelDecider`): longer
    /// keeps the two decisions from handing a beacon back and forth, shorter follows the model sooner.
    public var handOverDwell: Double
    /// ... and the posterior it must have for that room then.
    public var handOverPosterior: Double

    /// Of the filter's transition prior, the share of a room change spread evenly over every room;
    /// the rest goes to the rooms the walks went to straight from the room decided (its neighbours,
    /// `SiteModel.neighbours`), so the model moves through the floor plan the walks showed. 1: every
    /// room alike, as before the walks' neighbours were learned; raise it for a site whose walks
    /// missed some ways between rooms.
    public var unwalkedMoveShare: Double

    /// For a model of levels (`SiteModel.levels`), the least spread a room's level at a node is given
    /// when deciding, dB: a walk passes one path through a room, and the next visit sits elsewhere in
    /// it, facing another way. Larger: rooms whose receivers hear them a few dB apart blur together;
    /// smaller: a visit unlike the walk's is called another room.
    public var levelSigma: Double
    /// For a model of levels, the hysteresis (as `switchOdds`): a challenger room replaces the decided
    /// room only when its posterior is this many times the decided room's. Levels of neighbouring
    /// rooms overlap; without a wide margin the decision flickers at every doorway.
    public var levelSwitchOdds: Double
    /// For a model of levels, the evidence rate (as `evidenceRate`).
    public var levelEvidenceRate: Double
    /// For a model of levels, the switch rate (as `switchRate`): people stay in a home's rooms for
    /// minutes, and its levels, unlike the classifier, say little about how long one stays.
    public var levelSwitchRate: Double
    /// For a model of levels, how many times the motion sensors' evidence (`MotionParameters`) weighs:
    /// a home's sensors speak loudest in the rooms its receivers hear alike (a bathroom and a bedroom
    /// upstairs), where levels alone are least sure.
    public var levelMotionWeight: Double
    /// For a model of levels, the hysteresis towards a walked neighbour of the decided room (as
    /// `levelSwitchOdds`, which every other room still needs): a person leaves a room through its
    /// doorways, so a move to the room next door is followed at once while a jump across the house,
    /// which is how a level heard alike in two rooms looks, still needs the wide margin.
    public var levelNeighbourOdds: Double
    /// For a model of levels, the share of a move spread over every room (as `unwalkedMoveShare`):
    /// none, so a beacon reaches a room only through the rooms the walk went through on its way
    /// there (another floor only by the stairs the walk took). Raise it when a walk missed a doorway.
    public var levelUnwalkedMoveShare: Double
    /// Learning: a gap of more than this many seconds between two truth rows of a walk is time the
    /// truth names no room for — a hall, a room whose receiver was off — learned as `SiteModel.Elsewhere`
    /// (what the nodes hear while the beacon is in none of the rooms), not as the room of the row before
    /// it. Truth written every second or faster never leaves such a gap by accident; raise it for truth
    /// written more sparsely.
    public var elsewhereGap: Double

    /// Creates parameters; the defaults are the one set every site uses.
    public init(sampleInterval: Double = 0.1, evidenceRate: Double = 4, switchRate: Double = 1,
                outlierShare: Double = 0.05, outlierRange: Double = 60, minimumSigma: Double = 2,
                priorSnapshots: Double = 10, switchOdds: Double = 2, staleAfter: Double = 150,
                classifierInterval: Double = 0.5, classifierPenalty: Double = 0.0001, classifierIterations: Double = 500,
                handOverDwell: Double = 4, handOverPosterior: Double = 0.9,
                unwalkedMoveShare: Double = 0.05, levelSigma: Double = 6, levelSwitchOdds: Double = 100,
                levelEvidenceRate: Double = 4, levelSwitchRate: Double = 0.01, levelMotionWeight: Double = 4,
                levelNeighbourOdds: Double = 3, levelUnwalkedMoveShare: Double = 0, elsewhereGap: Double = 3) {
        self.elsewhereGap = elsewhereGap
        self.levelNeighbourOdds = levelNeighbourOdds
        self.levelUnwalkedMoveShare = levelUnwalkedMoveShare
        self.levelSwitchRate = levelSwitchRate
        self.levelMotionWeight = levelMotionWeight
        self.levelSigma = levelSigma
        self.levelSwitchOdds = levelSwitchOdds
        self.levelEvidenceRate = levelEvidenceRate
        self.sampleInterval = sampleInterval
        self.evidenceRate = evidenceRate
        self.switchRate = switchRate
        self.outlierShare = outlierShare
        self.outlierRange = outlierRange
        self.minimumSigma = minimumSigma
        self.priorSnapshots = priorSnapshots
        self.switchOdds = switchOdds
        self.staleAfter = staleAfter
        self.classifierInterval = classifierInterval
        self.classifierPenalty = classifierPenalty
        self.classifierIterations = classifierIterations
        self.handOverDwell = handOverDwell
        self.handOverPosterior = handOverPosterior
        self.unwalkedMoveShare = unwalkedMoveShare
    }

    /// The one set every site uses.
    public static let `default` = SiteModelParameters()
}
