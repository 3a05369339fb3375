import BeaconCore
import RoomDecisions

/// A site's room-decision figures over its recordings, as the project and the peers report them
/// (issue 14): the mean of per-recording accuracies, the flaps summed, and the median of the
/// per-recording median switch latencies. Each recording counts once however long it is, so a long
/// recording does not drown the short ones; `pooled` keeps every truth row and change together
/// for the figures that want them (pooled accuracy, the median over every change).
public struct SiteScore: Sendable, Hashable {
    /// The recordings' scores, in the order given.
    public var recordings: [RoomDecisionScore]

    public init(_ recordings: [RoomDecisionScore]) {
        self.recordings = recordings
    }

    /// Mean of per-recording accuracy; 0 without recordings.
    public var meanAccuracy: Double {
        recordings.isEmpty ? 0 : recordings.map(\.accuracy).reduce(0, +) / Double(recordings.count)
    }

    /// Flaps of every recording, added up.
    public var flaps: Int { recordings.map(\.flaps).reduce(0, +) }

    /// True changes never shown while the truth stayed in the new room, every recording's added up.
    public var missedChanges: Int { recordings.map(\.missedChanges).reduce(0, +) }

    /// Median of the per-recording median switch latencies, seconds; recordings without a true
    /// change have none and are left out; nil when no recording has one.
    public var medianSwitchLatency: Double? {
        let medians = recordings.compactMap(\.medianSwitchLatency)
        return RoomDecisionScore(truthRows: 0, correctRows: 0, decidedChanges: 0, trueChanges: 0,
                                 switchLatencies: medians).medianSwitchLatency
    }

    /// Every recording's rows, changes and latencies as one score.
    public var pooled: RoomDecisionScore { RoomDecisionScore.pooled(recordings) }
}
