import BeaconCore
import RoomDecisions

/// A site's room-decision figures over its recordings, as the project and the peers report them
/// (issue 14) and the yardstick's `evaluate.py` pools them: the mean of per-recording accuracies, the
/// flaps summed, the median of the per-recording median switch latencies, the missed changes summed.
/// Like `evaluate.py`, each recording's accuracy is first rounded to 4 places and its median latency
/// to 2, so the two print the same figures. Each recording counts once however long it is, so a long
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
        recordings.isEmpty ? 0 : recordings.map { Self.rounded($0.accuracy, 4) }.reduce(0, +) / Double(recordings.count)
    }

    /// Flaps of every recording, added up.
    public var flaps: Int { recordings.map(\.flaps).reduce(0, +) }

    /// True changes with no decision for their room before the next true change, every recording's added up.
    public var missedChanges: Int { recordings.map(\.missedChanges).reduce(0, +) }

    /// Median of the per-recording median switch latencies, seconds; recordings without a true
    /// change have none and are left out; nil when no recording has one.
    public var medianSwitchLatency: Double? {
        recordings.compactMap { $0.medianSwitchLatency.map { Self.rounded($0, 2) } }.median
    }

    private static func rounded(_ value: Double, _ places: Int) -> Double {
        let scale = Double([1, 10, 100, 1000, 10000][places])
        return (value * scale).rounded() / scale
    }

    /// Every recording's rows, changes and latencies as one score.
    public var pooled: RoomDecisionScore { RoomDecisionScore.pooled(recordings) }
}
