import BeaconCore

/// The two ways a worn beacon's move wins at once (issue 40): the fast clock on the raw readings,
/// and a node's rise report.
extension BeaconRoomState {
    /// The fast clock: `node` of `readingRoom` published a raw reading worth `rawScore` (the
    /// score's dB scale) at `time`. A reading of the current room ends every streak it is not below;
    /// another room's reading extends its node's streak while it leads the held score by
    /// `fastLead`, and ends it otherwise. A streak whose last reading is more than `fastFor` + 2 s
    /// old starts afresh. A node that `leads` false (it reports rises, beside the rise switch) only
    /// ends streaks.
    mutating func heardRaw(node: Code, room readingRoom: Code, rawScore: Double, at time: Instant,
                           parameters p: RoomDecisionParameters, leads: Bool = true) {
        guard p.rule.fastLead.isFinite, rawScore.isFinite, let current = room, current != RoomDecider.notHomeCode else {
            fastStreaks.removeAll()
            return
        }
        if readingRoom == current {
            fastStreaks.removeAll { $0.lowest <= rawScore }
            return
        }
        guard leads else { return }
        let index = fastStreaks.firstIndex { $0.node == node }
        guard defendedScore.isFinite, rawScore - defendedScore >= p.rule.fastLead else {
            if let index { fastStreaks.remove(at: index) }
            return
        }
        if let index, fastStreaks[index].room == readingRoom, time.since(fastStreaks[index].latest) <= p.rule.fastFor + 2 {
            fastStreaks[index].latest = time
            fastStreaks[index].lowest = min(fastStreaks[index].lowest, rawScore)
        } else {
            if let index { fastStreaks.remove(at: index) }
            fastStreaks.append(FastStreak(node: node, room: readingRoom, since: time, latest: time, lowest: rawScore))
        }
    }

    /// A rise report of `readingRoom` worth `riseScore` (the score's dB scale): the next evaluation weighs it.
    mutating func heardRise(node: Code, room readingRoom: Code, riseScore: Double) {
        guard riseScore.isFinite else { return }
        if let pending = pendingRise, pending.room != readingRoom, pending.score > riseScore { return }
        pendingRise = (readingRoom, node, riseScore)
    }

    /// The room a rise report switches to now, if any: the report heard since the last evaluation,
    /// else the one waiting (`risePending`). A fresh report that fails the lead waits in its place.
    mutating func riseWinner(_ rise: (room: Code, node: Code, score: Double)?, current: Code,
                             at time: Instant, _ p: RoomDecisionParameters) -> Code? {
        func leads(_ room: Code, _ score: Double) -> Bool {
            room != current && score - riseRivals(of: room) >= p.rule.riseLead
        }
        if let rise {
            if leads(rise.room, rise.score) { return rise.room }
            if p.rule.risePending > 0, rise.room != current {
                waitingRise = (rise.room, rise.node, rise.score, time.seconds + p.rule.risePending)
                return nil
            }
        }
        guard let waiting = waitingRise else { return nil }
        if time.seconds > waiting.until || waiting.room == current {
            waitingRise = nil
            return nil
        }
        return rise == nil && leads(waiting.room, waiting.score) ? waiting.room : nil
    }

    /// The room of the best-scoring node streak that has lasted `fastFor`, if any.
    func fastWinner(current: Code, parameters p: RoomDecisionParameters) -> Code? {
        var winner: Code?
        var best = -Double.infinity
        for streak in fastStreaks where streak.room != current && streak.latest.since(streak.since) >= p.rule.fastFor {
            let score = score(of: streak.room)
            if winner == nil || best < score {
                winner = streak.room
                best = score
            }
        }
        return winner
    }

    /// `node` of `room` published an advert worth `rawScore`: its level as the rise switch meets it.
    /// A waiting rise (`risePending`) of that node takes the reading's level unless it is a rise itself.
    mutating func heardRawLevel(node: Code, room: Code, rawScore: Double, at time: Instant, isRise: Bool = false) {
        guard rawScore.isFinite else { return }
        if let index = rawLevels.firstIndex(where: { $0.node == node }) {
            rawLevels[index] = (node, room, rawScore, time.seconds)
        } else {
            rawLevels.append((node, room, rawScore, time.seconds))
        }
        if !isRise, let waiting = waitingRise, waiting.node == node { waitingRise?.score = rawScore }
    }

    /// The loudest level of every room but `riseRoom`, as the rise switch meets it: its nodes' last
    /// published adverts (`rawLevels`), which a fade publishes at once while the filter still lags
    /// it; its latest score while none of its nodes has published one.
    func riseRivals(of riseRoom: Code) -> Double {
        lists.withScores { scores in
            var best = -Double.infinity
            for candidate in scores where candidate.room != riseRoom {
                var raw = -Double.infinity
                for entry in rawLevels where entry.room == candidate.room { raw = max(raw, entry.score) }
                best = max(best, raw.isFinite ? raw : candidate.score)
            }
            return best
        }
    }

    /// The nodes whose last published level keeps the waiting rise from leading by `riseLead`:
    /// the ones a level query asks (`SwitchingRule.riseQuery`); none when the rise falls short by
    /// more than `SwitchingRule.levelQueryShortfall`.
    func blockingNodes(_ p: RoomDecisionParameters) -> [Code] {
        guard let waiting = waitingRise, let current = room, current != RoomDecider.notHomeCode else { return [] }
        let rivals = riseRivals(of: waiting.room)
        guard rivals - waiting.score + p.rule.riseLead <= SwitchingRule.levelQueryShortfall else { return [] }
        return rawLevels.filter { $0.room != waiting.room && waiting.score - $0.score < p.rule.riseLead }.map(\.node)
    }
}
