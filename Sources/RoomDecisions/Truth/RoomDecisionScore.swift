import BeaconCore

/// How well a timeline of room decisions matches a ground truth, scored at every truth row
/// (data/README.md). The decision at time t is the last decision row at or before t.
///
/// - `accuracy`: share of truth rows whose decided room equals the true room (no decision yet
///   counts as wrong).
/// - `flaps`: decided-room changes beyond what the truth needed: the number of changes of the
///   decided room between consecutive truth rows (the first decision is not a change) minus the
///   number of true room changes, floored at 0. A tracker that follows every real move once, late
///   or early, has 0; every extra switch (and every switch back) is a flap.
/// - `switchLatencies`: for each true room change, seconds from its truth row until the first
///   truth row at or after it whose decided room is the new room (0 when the decision was already
///   there). A change the decision never follows before the trace ends counts the time to the end.
/// - `missedChanges`: true changes whose new room the decision never showed while the truth stayed
///   in it (a short visit passed by unseen; the data README's "true changes never followed"). Its
///   latency still counts until the decision first shows that room, however much later.
public struct RoomDecisionScore: Sendable, Hashable, Codable {
    public var truthRows: Int
    public var correctRows: Int
    public var decidedChanges: Int
    public var trueChanges: Int
    public var switchLatencies: [Double]
    public var missedChanges: Int

    public var accuracy: Double { truthRows == 0 ? 0 : Double(correctRows) / Double(truthRows) }
    public var flaps: Int { max(0, decidedChanges - trueChanges) }

    public init(truthRows: Int, correctRows: Int, decidedChanges: Int, trueChanges: Int, switchLatencies: [Double],
                missedChanges: Int = 0) {
        self.truthRows = truthRows
        self.correctRows = correctRows
        self.decidedChanges = decidedChanges
        self.trueChanges = trueChanges
        self.switchLatencies = switchLatencies
        self.missedChanges = missedChanges
    }

    /// Scores the decisions of one beacon (rows ordered by time) against its truth rows.
    public init(decisions: [(time: Instant, room: String)], truth: [TruthSample]) {
        var decided: [String?] = []
        decided.reserveCapacity(truth.count)
        var next = 0
        var current: String?
        for row in truth {
            while next < decisions.count, decisions[next].time <= row.time {
                current = decisions[next].room
                next += 1
            }
            decided.append(current)
        }
        var correct = 0, decidedChanges = 0, trueChanges = 0, missed = 0
        var latencies: [Double] = []
        for index in truth.indices {
            if decided[index] == truth[index].room { correct += 1 }
            guard index > 0 else { continue }
            if let previous = decided[index - 1], decided[index] != previous { decidedChanges += 1 }
            if truth[index].room != truth[index - 1].room {
                trueChanges += 1
                let start = truth[index].time
                var latency = (truth.last?.time ?? start).since(start)
                for later in index..<truth.count where decided[later] == truth[index].room {
                    latency = truth[later].time.since(start)
                    break
                }
                latencies.append(latency)
                // Shown while the truth stays in the new room?
                var shown = false
                for later in index..<truth.count {
                    guard truth[later].room == truth[index].room else { break }
                    if decided[later] == truth[index].room {
                        shown = true
                        break
                    }
                }
                if !shown { missed += 1 }
            }
        }
        self.init(truthRows: truth.count, correctRows: correct, decidedChanges: decidedChanges,
                  trueChanges: trueChanges, switchLatencies: latencies, missedChanges: missed)
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

    /// Median of the switch latencies, nil when there was no true change.
    public var medianSwitchLatency: Double? {
        let sorted = switchLatencies.sorted()
        guard !sorted.isEmpty else { return nil }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
