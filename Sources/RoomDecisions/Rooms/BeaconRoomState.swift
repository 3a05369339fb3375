import BeaconCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The room decision of one beacon: the freshest evidence of every node, the decided room and the
/// challengers' accumulated lead. `RoomDecider` keeps one per beacon; the rules are in `RoomDecider`.
///
/// Nodes and rooms are the decider's interned codes (`RoomDecider.NameCode`), so an update
/// compares integers, never strings, and allocates nothing once the arrays have grown to the
/// number of nodes that hear the beacon.
@usableFromInline struct BeaconRoomState: Sendable {
    typealias Code = RoomDecider.NameCode

    struct Held: Sendable {
        /// 10^(score/10) of the dB score −10·n·log₁₀(distance), averaged per room. The score itself
        /// is not kept: a smaller entry keeps a beacon's evidence in fewer cache lines.
        var power: Double
        var distance: Double
        var time: Instant
        var room: Code
        /// The node's code in the low 30 bits and its proximity in the top 2, so that an entry is
        /// 32 bytes (a beacon heard by ten nodes: 5½ cache lines of evidence instead of 7). The
        /// decider interns fewer than 2^30 node names (`RoomDecider.nodeCode` checks).
        private var nodeAndProximity: UInt32

        static let nodeMask: UInt32 = 0x3FFF_FFFF

        init(node: Code, room: Code, power: Double, distance: Double, time: Instant, proximity: Proximity) {
            self.power = power
            self.distance = distance
            self.time = time
            self.room = room
            let proximityBits: UInt32 =
                switch proximity {
                case .immediate: 0
                case .near: 1
                case .far: 2
                case .unknown: 3
                }
            nodeAndProximity = UInt32(bitPattern: node) & Self.nodeMask | proximityBits << 30
        }

        var node: Code { Code(bitPattern: nodeAndProximity & Self.nodeMask) }

        var proximity: Proximity {
            switch nodeAndProximity >> 30 {
            case 0: .immediate
            case 1: .near
            case 2: .far
            default: .unknown
            }
        }
    }

    /// A room's combined evidence at one moment.
    struct RoomScore: Sendable {
        /// 10·log₁₀ of the mean linear power of the room's nodes, dB.
        var score: Double
        /// The nearest node's distance.
        var distance: Double
        var room: Code
        /// Nearest node of the room and its proximity. (The order of the fields packs a score in
        /// 32 bytes, five to three cache lines.)
        var node: Code
        var proximity: Proximity
    }

    /// A room leading the current one by the margin, with how long and how much.
    struct Challenge: Sendable {
        var room: Code
        /// Since when its lead has exceeded the margin without a break.
        var since: Instant
        /// ∫ (min(lead, cap) − margin) dt, floored at 0, dB·s.
        var evidence: Double
    }

    /// Which part of `scores` no longer matches `held`.
    enum Staleness: Sendable, Equatable {
        case none
        /// Only entries of this room changed their values in place: one room to re-sum.
        case room(Code)
        /// Entries came or went (or changed room): every room, and the order of `scores`.
        case all
    }

    /// The freshest evidence of every node that hears the beacon (`held`), the room scores of the
    /// last evaluation (`scores`: in the order their rooms first appear in `held`; they hold until
    /// the next evaluation, so leads integrate over time) and the challengers (`challenges`), in
    /// one block.
    var lists = BeaconEvidenceSlab()
    /// At most the oldest `held` time (+∞ when nothing was held since it was last exact): while
    /// it is within `staleAfter`, nothing is stale, and an evaluation need not look at every entry.
    private var heldTimeFloor = Double.infinity
    var room: Code?
    var since = Instant(seconds: 0)
    /// Since when no node hears the beacon (every node reported it `unknown`, went stale or
    /// offline); nil while some node does. The away timeout counts from here.
    var unheardSince: Instant?
    /// First evidence while undecided (before deciding started or since `not_home`).
    var firstEvidence: Instant?
    var lastEvaluation: Instant?
    /// What changed in `held` since `scores` were computed (ticks mostly find nothing new).
    var staleness = Staleness.none
    /// The current room's held score (dB) and when it was last raised or let fall: its score as
    /// challengers see it falls no faster than `fallRate`, so a brief fade of its nodes does not
    /// hand the room away. −∞ right after a change (the next evaluation starts it afresh).
    var defencePeak = -Double.infinity
    var defencePeakTime = Instant(seconds: 0)
    /// The current room's score as challengers saw it at the last evaluation (its held score), −∞
    /// when it had no evidence: the leads of that evaluation integrate against it.
    var defendedScore = -Double.infinity

    init() {}

    var isUndecided: Bool { room == nil || room == RoomDecider.notHomeCode }

    /// The room scores of the last evaluation, for reading during `body`.
    func withScores<R>(_ body: (UnsafeBufferPointer<RoomScore>) -> R) -> R {
        lists.withScores(body)
    }

    /// `nodeCount` (the nodes the decider knows) sizes a beacon's first block of evidence.
    mutating func hold(node: Code, room evidenceRoom: Code, proximity: Proximity, distance: Double, score: Double,
                       at time: Instant, nodeCount: Int) {
        let entry = Held(node: node, room: evidenceRoom, power: pow(10, score / 10), distance: distance, time: time,
                         proximity: proximity)
        heldTimeFloor = min(heldTimeFloor, time.seconds)
        if let replacedRoom = lists.put(entry, capacityHint: nodeCount) {
            if replacedRoom == evidenceRoom {
                switch staleness {
                case .none: staleness = .room(evidenceRoom)
                case .room(let stale) where stale == evidenceRoom: break
                default: staleness = .all
                }
            } else {
                staleness = .all
            }
        } else {
            staleness = .all
        }
        unheardSince = nil
        if firstEvidence == nil, isUndecided { firstEvidence = time }
    }

    private func heldIndex(of node: Code) -> Int? {
        lists.withHeld { held in held.firstIndex { $0.node == node } }
    }

    /// Drops `node`'s evidence at `time`: the node said it no longer hears the beacon (`unknown`),
    /// or went offline.
    mutating func forget(node: Code, at time: Instant) {
        guard let index = heldIndex(of: node) else { return }
        lists.removeHeld(at: index)
        // A node holds one entry at most: nothing else to remove.
        staleness = .all
        if lists.heldCount == 0 { becameUnheard(at: time) }
    }

    private mutating func becameUnheard(at time: Instant) {
        if unheardSince == nil { unheardSince = time }
        // An undecided beacon starts its settle time afresh when it is heard again.
        if isUndecided { firstEvidence = nil }
    }

    /// Re-decides at `time`; returns true when the room changed (or deciding started). `scratch`
    /// is the decider's reusable buffer, so that re-building the challengers allocates nothing.
    mutating func evaluate(at time: Instant, parameters p: RoomDecisionParameters,
                           scratch: inout [Challenge], motion: RoomMotionTable? = nil) -> Bool {
        // The previous scores held since the last evaluation: integrate the challengers' leads.
        let elapsed = lastEvaluation.map { max(0, time.since($0)) } ?? 0
        if elapsed > 0, lists.challengeCount > 0, let current = room, current != RoomDecider.notHomeCode {
            let currentScore = defendedScore
            for index in 0..<lists.challengeCount {
                var challenge = lists.withChallenges { $0[index] }
                guard let challenger = scoreIndex(of: challenge.room) else { continue }
                let lead = min(lists.withScores { $0[challenger].score } - currentScore, p.rule.leadCap)
                challenge.evidence = max(0, challenge.evidence + (lead - p.rule.margin) * elapsed)
                lists.setChallenge(challenge, at: index)
            }
        }
        if lastEvaluation.map({ time > $0 }) ?? true { lastEvaluation = time }

        // Stale: no message from a node for longer than a few heartbeats, so its `unknown` was
        // lost (measurements are QoS 0): a safety net, measured from now.
        if time.since(Instant(seconds: heldTimeFloor)) > p.staleAfter, hasStaleEntry(at: time, parameters: p) {
            let newestStale = lists.withHeld { held in
                var newest = -Double.infinity
                for entry in held where time.since(entry.time) > p.staleAfter { newest = max(newest, entry.time.seconds) }
                return newest
            }
            lists.removeHeld { time.since($0.time) > p.staleAfter }
            heldTimeFloor = oldestHeldTime()
            staleness = .all
            if lists.heldCount == 0 { becameUnheard(at: Instant(seconds: newestStale).advanced(by: p.staleAfter)) }
        }
        // Away: no node has heard the beacon for the away timeout. A still beacon that nodes keep
        // hearing (publishing only heartbeats) never goes away.
        if let unheardSince, let current = room, current != RoomDecider.notHomeCode,
            time.since(unheardSince) >= p.awayTimeout
        {
            lists.removeAllHeld()
            lists.removeAllScores()
            staleness = .none
            return change(to: RoomDecider.notHomeCode, at: time)
        }
        refreshScores()

        guard lists.scoreCount > 0 else {
            lists.removeAllChallenges()
            return false
        }
        guard let current = room, current != RoomDecider.notHomeCode else {
            // Deciding starts (or the beacon is back): no incumbent to defend, once every node
            // that hears the beacon has had time to say so.
            guard let firstEvidence, time.since(firstEvidence) >= p.settleTime, let best = bestScoreIndex() else {
                return false
            }
            return change(to: lists.withScores { $0[best].room }, at: time)
        }
        // Every node of the current room stopped hearing the beacon (or went offline): the room
        // cannot be defended, but a challenger still needs its dwell — when a beacon vanishes,
        // its nodes report `unknown` within a second of each other, and the room must not flip
        // to whichever room's node happened to report last.
        // One pass for the current room's score (−∞ without evidence) and the best other one.
        let (currentScore, bestOther) = lists.withScores { scores in
            var currentScore = -Double.infinity
            var bestOther = -Double.infinity
            for candidate in scores {
                if candidate.room == current {
                    currentScore = candidate.score
                } else if bestOther < candidate.score {
                    bestOther = candidate.score
                }
            }
            return (currentScore, bestOther)
        }

        // A fade is brief, a move lasts: challengers meet the current room's score held from its
        // recent best, falling at most `fallRate` dB/s (with no evidence it has none to hold).
        var defended = defend(currentScore, at: time, fallRate: p.rule.fallRate)
        // Motion in the current room: it defends with more (never anything without a sensor).
        if let motion { defended += motion.hold(current, at: time) }
        defendedScore = defended

        // Challengers: rooms leading by more than the margin right now, in the order of `scores`;
        // a break resets them. Usually there is none: nothing to build. (Subtracting the same
        // score keeps the order, so some room leads by more than the margin if the best does.)
        guard bestOther - defended > p.rule.margin else {
            lists.removeAllChallenges()
            return false
        }
        scratch.removeAll(keepingCapacity: true)
        lists.withScores { scores in
            lists.withChallenges { challenges in
                for candidate in scores where candidate.room != current
                    && candidate.score - defended > p.rule.margin {
                    let previous = challenges.first { $0.room == candidate.room }
                    scratch.append(previous ?? Challenge(room: candidate.room, since: time, evidence: 0))
                }
            }
        }
        lists.replaceChallenges(with: scratch)
        // The winner: the best-scoring challenger that has both its dwell and its evidence.
        let winnerRoom: Code? = lists.withScores { scores in
            lists.withChallenges { challenges in
                var winner: Int?
                for (index, candidate) in scores.enumerated() {
                    // Motion in the challenger's room asks less of it, or more when the room is quiet.
                    guard let challenge = challenges.first(where: { $0.room == candidate.room }) else { continue }
                    let factor = motion?.switchFactor(candidate.room, challengedSince: challenge.since, from: current, at: time) ?? 1
                    guard time.since(challenge.since) >= p.rule.dwell * factor && challenge.evidence >= p.rule.evidenceToSwitch * factor
                    else { continue }
                    if let best = winner, !(scores[best].score < candidate.score) { continue }
                    winner = index
                }
                return winner.map { scores[$0].room }
            }
        }
        guard let winnerRoom else { return false }
        return change(to: winnerRoom, at: time)
    }

    /// Right after `evaluate` without motion: nil when evaluating again later, with no new
    /// evidence, may change the decision (a challenger integrating its lead, the current room's
    /// held score still falling, a beacon waiting to be placed); else the time (seconds, +∞ for
    /// none) before which it changes nothing but the times it keeps — evidence going stale, the
    /// away timeout — and whether each such evaluation stamps `defencePeakTime` (the current room
    /// has a score, which the held score equals). `RoomDecider`'s tick skips the beacon until then
    /// (`BeaconTickSchedule`). A rule that lets time alone change a decision must return nil while it may.
    func quietUntil(parameters p: RoomDecisionParameters) -> (until: Double, stampsPeakTime: Bool)? {
        guard lists.challengeCount == 0, staleness == .none else { return nil }
        var stampsPeakTime = false
        if lists.scoreCount > 0 {
            guard let current = room, current != RoomDecider.notHomeCode else { return nil }
            // `defend` holds the peak and lets it fall: quiet once it has fallen to the score.
            if p.rule.fallRate.isFinite, p.rule.fallRate > 0 {
                let currentScore = score(of: current)
                if currentScore > -Double.infinity {
                    guard defencePeak == currentScore else { return nil }
                    stampsPeakTime = true
                }
            }
        }
        var until = Double.infinity
        if lists.heldCount > 0 { until = heldTimeFloor + p.staleAfter }
        if let unheardSince, let current = room, current != RoomDecider.notHomeCode {
            until = min(until, unheardSince.seconds + p.awayTimeout)
        }
        return (until, stampsPeakTime)
    }

    /// Whether an entry of `held` is stale at `time`; when none is, `heldTimeFloor` becomes exact
    /// (the oldest entry's time), so that the next evaluations skip the check for as long as they can.
    private mutating func hasStaleEntry(at time: Instant, parameters p: RoomDecisionParameters) -> Bool {
        if lists.withHeld({ $0.contains { time.since($0.time) > p.staleAfter } }) { return true }
        heldTimeFloor = oldestHeldTime()
        return false
    }

    /// The oldest held time, +∞ when nothing is held.
    private func oldestHeldTime() -> Double {
        lists.withHeld { $0.reduce(Double.infinity) { min($0, $1.time.seconds) } }
    }

    /// The current room's score `score` (−∞ without evidence) as its challengers meet it: its
    /// held best, let fall at `fallRate` dB/s since, or `score` when that is higher. A fade — a body
    /// turning between the tag and a node, 10–20 dB for a second or two — drops the filtered score
    /// faster than that and recovers; a move keeps it down, and the hold has fallen to it within
    /// seconds. A non-finite or non-positive rate holds nothing.
    private mutating func defend(_ score: Double, at time: Instant, fallRate: Double) -> Double {
        guard score > -Double.infinity, fallRate.isFinite, fallRate > 0 else { return score }
        let held = defencePeak - fallRate * max(0, time.since(defencePeakTime))
        defencePeak = max(score, held)
        defencePeakTime = time
        return defencePeak
    }

    private mutating func change(to newRoom: Code, at time: Instant) -> Bool {
        lists.removeAllChallenges()
        firstEvidence = nil
        guard newRoom != room else { return false }
        room = newRoom
        since = time
        defencePeak = -Double.infinity
        defendedScore = -Double.infinity
        return true
    }

    func scoreIndex(of room: Code) -> Int? {
        lists.withScores { $0.firstIndex { $0.room == room } }
    }

    /// The room's score, −∞ when it has no evidence.
    func score(of room: Code) -> Double {
        lists.withScores { scores in scores.first { $0.room == room }?.score ?? -Double.infinity }
    }

    /// The first of the highest scores (as `max(by:)` picks it).
    func bestScoreIndex() -> Int? {
        lists.withScores { scores in
            guard !scores.isEmpty else { return nil }
            var best = 0
            for index in scores.indices.dropFirst() where scores[best].score < scores[index].score { best = index }
            return best
        }
    }

    /// Brings `scores` up to date with `held`: per room, the mean linear power of its nodes (in
    /// dB) and its nearest node, summed in `held` order so the result does not depend on which
    /// path computed it.
    mutating func refreshScores() {
        switch staleness {
        case .none:
            return
        case .room(let room):
            staleness = .none
            if lists.refreshScore(of: room) { return }
            lists.rebuildScores()
        case .all:
            staleness = .none
            lists.rebuildScores()
        }
    }

    /// One room's score from the entries of `held`; the room must have at least one.
    ///
    /// The *mean* linear power, not the sum: a sum gives a room with six receivers some 1.8 dB
    /// (10·log₁₀(6/4)) over a room with four that hear the beacon equally well, so a beacon
    /// leaving the bigger room is held there seconds after it left (the SAL bay: 6 receivers
    /// inside, 4 outside). The mean is still led by the strongest node (power is linear), so one
    /// loud node is not outvoted by a quiet one of its own room, and rooms with equal numbers of
    /// receivers rank exactly as with the sum.
    static func roomScore(of room: Code, in held: UnsafeBufferPointer<Held>) -> RoomScore {
        var power = 0.0
        var count = 0
        var nearest: Held?
        for entry in held where entry.room == room {
            count += 1
            if let current = nearest {
                power += entry.power
                if entry.distance < current.distance { nearest = entry }
            } else {
                power = entry.power
                nearest = entry
            }
        }
        let node = nearest?.node ?? 0
        return RoomScore(score: 10 * log10(power / Double(max(count, 1))), distance: nearest?.distance ?? .infinity,
                         room: room, node: node, proximity: nearest?.proximity ?? .unknown)
    }
}
