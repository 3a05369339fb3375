import BeaconCore

/// How well a timeline of room decisions matches a ground truth, scored as the project's yardstick
/// (`score.py`, data/README.md) scores it. The decision at time t is the last decision row at or
/// before t (none yet: no room). Decisions and truth rows are taken in order of time (then room, as
/// the yardstick sorts them).
///
/// - `accuracy`: share of truth rows whose decided room equals the true room.
/// - `flaps`: changes of the decision timeline beyond the true changes it followed: every change
///   between consecutive decision rows counts (the first decision is not a change), also inside a
///   gap of the truth or between two truth rows, minus the true changes not missed, floored at 0.
///   A tracker that follows every real move once, late or early, has 0.
/// - `switchLatencies`: for each true change followed, seconds from its truth row to the first
///   decision row for the new room before the next true change (0 when the decision was already
///   there).
/// - `missedChanges`: true changes with no decision for the new room before the next true change (a
///   short visit passed by unseen); they have no latency.
///
/// Beacons are scored one by one (the yardstick reads a recording as one timeline; on a recording of
/// one beacon that is the same).
public struct RoomDecisionScore: Sendable, Hashable, Codable {
    public var truthRows: Int
    public var correctRows: Int
    /// Changes of the decided room between consecutive decision rows.
    public var decidedChanges: Int
    public var trueChanges: Int
    public var switchLatencies: [Double]
    public var missedChanges: Int

    public var accuracy: Double { truthRows == 0 ? 0 : Double(correctRows) / Double(truthRows) }
    public var flaps: Int { max(0, decidedChanges - (trueChanges - missedChanges)) }

    public init(truthRows: Int, correctRows: Int, decidedChanges: Int, trueChanges: Int, switchLatencies: [Double],
                missedChanges: Int = 0) {
        self.truthRows = truthRows
        self.correctRows = correctRows
        self.decidedChanges = decidedChanges
        self.trueChanges = trueChanges
        self.switchLatencies = switchLatencies
        self.missedChanges = missedChanges
    }

    /// Scores the decisions of one beacon against its truth rows.
    public init(decisions: [(time: Instant, room: String)], truth: [TruthSample]) {
        let decisions = decisions.sorted { ($0.time, $0.room) < ($1.time, $1.room) }
        let truth = truth.sorted { ($0.time, $0.room) < ($1.time, $1.room) }
        /// The room decided at `time`: the last decision row at or before it.
        func decided(at time: Instant) -> String? {
            var low = 0, high = decisions.count
            while low < high {
                let middle = (low + high) / 2
                if decisions[middle].time <= time { low = middle + 1 } else { high = middle }
            }
            return low > 0 ? decisions[low - 1].room : nil
        }
        let correct = truth.filter { decided(at: $0.time) == $0.room }.count
        let changes = truth.indices.dropFirst().filter { truth[$0].room != truth[$0 - 1].room }.map { truth[$0] }
        var latencies: [Double] = []
        var missed = 0
        for (k, change) in changes.enumerated() {
            if decided(at: change.time) == change.room {
                latencies.append(0)
                continue
            }
            let end = k + 1 < changes.count ? changes[k + 1].time : nil
            let hit = decisions.first { row in
                row.time >= change.time && (end.map { row.time < $0 } ?? true) && row.room == change.room
            }
            if let hit { latencies.append(hit.time.since(change.time)) } else { missed += 1 }
        }
        let decidedChanges = decisions.indices.dropFirst().filter { decisions[$0].room != decisions[$0 - 1].room }.count
        self.init(truthRows: truth.count, correctRows: correct, decidedChanges: decidedChanges,
                  trueChanges: changes.count, switchLatencies: latencies, missedChanges: missed)
    }

    /// Several traces scored as one: rows, changes and latencies pooled.
    public static func pooled(_ scores: [RoomDecisionScore]) -> RoomDecisionScore {
        var total = RoomDecisionScore(truthRows: 0, correctRows: 0, decidedChanges: 0, trueChanges: 0, switchLatencies: [])
        for score in scores {
            total.truthRows += score.truthRows
            total.correctRows += score.correctRows
            total.decidedChanges += score.decidedChanges
            total.trueChanges += score.trueChanges
            total.switchLatencies += score.switchLatencies
            total.missedChanges += score.missedChanges
        }
        return total
    }

    /// Median of the switch latencies (the mean of the middle two when even), nil when no true
    /// change was followed.
    public var medianSwitchLatency: Double? { switchLatencies.median }

    /// The 90th percentile of the switch latencies as the yardstick takes it (the sorted latency at
    /// index ⌊0.9·(n−1)⌋), nil when no true change was followed.
    public var p90SwitchLatency: Double? {
        let sorted = switchLatencies.sorted()
        guard !sorted.isEmpty else { return nil }
        return sorted[Int(0.9 * Double(sorted.count - 1))]
    }
}
