import BeaconCore

/// When time alone next changes a beacon's decision (issue 38): the live aggregator evaluates the
/// beacon at that moment instead of at the next tick after it, which waited up to a tick interval.
extension BeaconRoomState {
    /// Right after an evaluation without motion: the earliest time (seconds) at which evaluating
    /// again, with no new evidence and nothing evaluated in between, places the beacon, switches
    /// its room or starts a challenger (whose dwell counts from the evaluation that finds it);
    /// nil when time alone does none of these. Stale evidence and the away timeout are left to the
    /// ticks (`quietUntil`). The time is exact: an evaluation at it does the change, one a
    /// representable instant earlier does not (the conditions are checked as `evaluate` computes them).
    func nextChange(parameters p: RoomDecisionParameters) -> Double? {
        guard let t0 = lastEvaluation, lists.scoreCount > 0, staleness == .none else { return nil }
        var earliest = Double.infinity
        func consider(_ estimate: Double, _ holds: (Double) -> Bool) {
            guard let exact = Self.firstTime(from: estimate, after: t0.seconds, where: holds) else { return }
            earliest = min(earliest, exact)
        }

        guard let current = room, current != RoomDecider.notHomeCode else {
            // Deciding starts once the settle time has passed since the first evidence.
            if let first = firstEvidence {
                consider(first.seconds + p.settleTime) { Instant(seconds: $0).since(first) >= p.settleTime }
            }
            return earliest.isFinite ? earliest : nil
        }
        // The current room's held score as an evaluation at `t` computes it (`defend`).
        let currentScore = score(of: current)
        let falls = currentScore > -Double.infinity && p.rule.fallRate.isFinite && p.rule.fallRate > 0 && defencePeak > -Double.infinity
        let peak = defencePeak
        let peakTime = defencePeakTime
        func defended(_ t: Double) -> Double {
            guard falls else { return currentScore }
            return max(currentScore, peak - p.rule.fallRate * max(0, Instant(seconds: t).since(peakTime)))
        }
        // When the held score has fallen to `level`, nil when it never does.
        func fallen(to level: Double) -> Double? {
            guard falls, currentScore <= level else { return nil }
            return peakTime.seconds + (peak - level) / p.rule.fallRate
        }

        lists.withScores { scores in
            lists.withChallenges { challenges in
                for candidate in scores where candidate.room != current {
                    let score = candidate.score
                    if let challenge = challenges.first(where: { $0.room == candidate.room }) {
                        // Its dwell and its evidence, integrated against the held score of the last evaluation.
                        let lead = min(score - defendedScore, p.rule.leadCap)
                        let rate = lead - p.rule.margin
                        var estimate = challenge.since.seconds + p.rule.dwell
                        if challenge.evidence < p.rule.evidenceToSwitch {
                            // A lead at or below the margin never gathers the evidence.
                            estimate = rate > 0
                                ? max(estimate, t0.seconds + (p.rule.evidenceToSwitch - challenge.evidence) / rate) : .infinity
                        }
                        consider(estimate) { t in
                            let elapsed = max(0, Instant(seconds: t).since(t0))
                            return Instant(seconds: t).since(challenge.since) >= p.rule.dwell
                                && max(0, challenge.evidence + rate * elapsed) >= p.rule.evidenceToSwitch
                        }
                    } else if let start = fallen(to: score - p.rule.margin) {
                        // It becomes a challenger once the held score falls below it by the margin.
                        consider(start) { score - defended($0) > p.rule.margin }
                    }
                }
            }
        }
        return earliest.isFinite ? earliest : nil
    }

    /// The first representable time from `estimate` (rounding moved it by a few ulps either way)
    /// at which `holds`, after `after`; nil when it is not found within a few steps.
    private static func firstTime(from estimate: Double, after: Double, where holds: (Double) -> Bool) -> Double? {
        guard estimate.isFinite else { return nil }
        var t = max(estimate, after.nextUp)
        // Back to the first instant that holds...
        var steps = 0
        while steps < 8, t.nextDown > after, holds(t.nextDown) {
            t = t.nextDown
            steps += 1
        }
        // ...or forward to it.
        steps = 0
        while !holds(t) {
            steps += 1
            guard steps <= 64 else { return nil }
            t = t.nextUp
        }
        return t
    }
}
