// The room decision as it was before slots and interned names (commit e674252), kept verbatim
// but for its names, as the reference the faster RoomDecider must agree with exactly; since issue
// 26 with the current room's held score (`fallRate`) added in the same straightforward style.
import BeaconCore
import RoomDecisions
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The room decision of one beacon: the freshest evidence of every node, the decided room and the
/// challengers' accumulated lead. `RoomDecider` keeps one per beacon; the rules are in `RoomDecider`.
struct ReferenceBeaconRoomState: Sendable {
    struct Held: Sendable {
        var node: String
        var room: String
        /// dB score: −10·n·log₁₀(distance).
        var score: Double
        /// 10^(score/10), averaged per room.
        var power: Double
        var distance: Double
        var proximity: Proximity
        var time: Instant
    }

    /// A room's combined evidence at one moment.
    struct RoomScore: Sendable {
        var room: String
        /// 10·log₁₀ of the mean linear power of the room's nodes, dB.
        var score: Double
        /// Nearest node of the room and its distance and proximity.
        var node: String
        var distance: Double
        var proximity: Proximity
    }

    /// A room leading the current one by the margin, with how long and how much.
    struct Challenge: Sendable {
        var room: String
        /// Since when its lead has exceeded the margin without a break.
        var since: Instant
        /// ∫ (min(lead, cap) − margin) dt, floored at 0, dB·s.
        var evidence: Double
    }

    let beacon: BeaconID
    var held: [Held] = []
    var room: String?
    var since = Instant(seconds: 0)
    /// Since when no node hears the beacon (every node reported it `unknown`, went stale or
    /// offline); nil while some node does. The away timeout counts from here.
    var unheardSince: Instant?
    /// First evidence while undecided (before deciding started or since `not_home`).
    var firstEvidence: Instant?
    var lastEvaluation: Instant?
    /// Room scores of the last evaluation: they hold until the next one, so leads integrate over time.
    var scores: [RoomScore] = []
    var challenges: [Challenge] = []
    /// Whether `held` changed since `scores` were computed (ticks mostly find nothing new).
    var heldChanged = false
    /// The current room's held best score and when it was last set (nil right after a change).
    var peak: (score: Double, time: Instant)?
    /// The current room's score as the last evaluation's challengers met it, −∞ without evidence.
    var defendedScore = -Double.infinity

    init(beacon: BeaconID) {
        self.beacon = beacon
    }

    mutating func hold(_ evidence: NodeEvidence, distance: Double, score: Double, at time: Instant) {
        let entry = Held(node: evidence.node, room: evidence.room, score: score, power: pow(10, score / 10),
                         distance: distance, proximity: evidence.proximity, time: time)
        if let index = held.firstIndex(where: { $0.node == evidence.node }) {
            held[index] = entry
        } else {
            held.append(entry)
        }
        unheardSince = nil
        if firstEvidence == nil, room == nil || room == RoomDecision.notHome { firstEvidence = time }
        heldChanged = true
    }

    /// Drops `node`'s evidence at `time`: the node said it no longer hears the beacon (`unknown`),
    /// or went offline.
    mutating func forget(node: String, at time: Instant) {
        guard held.contains(where: { $0.node == node }) else { return }
        held.removeAll { $0.node == node }
        heldChanged = true
        if held.isEmpty { becameUnheard(at: time) }
    }

    private mutating func becameUnheard(at time: Instant) {
        if unheardSince == nil { unheardSince = time }
        // An undecided beacon starts its settle time afresh when it is heard again.
        if room == nil || room == RoomDecision.notHome { firstEvidence = nil }
    }

    /// Re-decides at `time`; returns the decision when the room changed (or deciding started).
    mutating func evaluate(at time: Instant, parameters p: RoomDecisionParameters) -> RoomDecision? {
        // The previous scores held since the last evaluation: integrate the challengers' leads.
        let elapsed = lastEvaluation.map { max(0, time.since($0)) } ?? 0
        if elapsed > 0, let current = room, current != RoomDecision.notHome {
            let currentScore = defendedScore
            for index in challenges.indices {
                guard let challenger = scores.first(where: { $0.room == challenges[index].room }) else { continue }
                let lead = min(challenger.score - currentScore, p.rule.leadCap)
                challenges[index].evidence = max(0, challenges[index].evidence + (lead - p.rule.margin) * elapsed)
            }
        }
        if lastEvaluation.map({ time > $0 }) ?? true { lastEvaluation = time }

        // Stale: no message from a node for longer than a few heartbeats, so its `unknown` was
        // lost (measurements are QoS 0): a safety net, measured from now.
        if held.contains(where: { time.since($0.time) > p.staleAfter }) {
            let newestStale = held.filter { time.since($0.time) > p.staleAfter }.map(\.time).max()
            held.removeAll { time.since($0.time) > p.staleAfter }
            heldChanged = true
            if held.isEmpty, let newestStale { becameUnheard(at: newestStale.advanced(by: p.staleAfter)) }
        }
        // Away: no node has heard the beacon for the away timeout. A still beacon that nodes keep
        // hearing (publishing only heartbeats) never goes away.
        if let unheardSince, room != nil, room != RoomDecision.notHome, time.since(unheardSince) >= p.awayTimeout {
            held.removeAll()
            scores.removeAll()
            heldChanged = false
            return change(to: RoomDecision.notHome, at: time)
        }
        if heldChanged {
            scores = Self.roomScores(held)
            heldChanged = false
        }

        guard let best = scores.max(by: { $0.score < $1.score }) else {
            challenges.removeAll()
            return nil
        }
        guard let current = room, current != RoomDecision.notHome else {
            // Deciding starts (or the beacon is back): no incumbent to defend, once every node
            // that hears the beacon has had time to say so.
            guard let firstEvidence, time.since(firstEvidence) >= p.settleTime else { return nil }
            return change(to: best.room, at: time)
        }
        // Every node of the current room stopped hearing the beacon (or went offline): the room
        // cannot be defended, but a challenger still needs its dwell — when a beacon vanishes,
        // its nodes report `unknown` within a second of each other, and the room must not flip
        // to whichever room's node happened to report last.
        var currentScore = scores.first(where: { $0.room == current })?.score ?? -Double.infinity
        // Held from its recent best, falling at most `fallRate` dB/s.
        if currentScore > -Double.infinity, p.rule.fallRate.isFinite, p.rule.fallRate > 0 {
            if let peak {
                let fallen = peak.score - p.rule.fallRate * max(0, time.since(peak.time))
                currentScore = max(currentScore, fallen)
            }
            peak = (currentScore, time)
        }
        defendedScore = currentScore

        // Challengers: rooms leading by more than the margin right now; a break resets them.
        var kept: [Challenge] = []
        for candidate in scores where candidate.room != current && candidate.score - currentScore > p.rule.margin {
            let previous = challenges.first { $0.room == candidate.room }
            kept.append(previous ?? Challenge(room: candidate.room, since: time, evidence: 0))
        }
        challenges = kept
        let ready = challenges.filter { time.since($0.since) >= p.rule.dwell && $0.evidence >= p.rule.evidenceToSwitch }
        guard !ready.isEmpty else { return nil }
        let winner = scores.filter { room in ready.contains { $0.room == room.room } }
            .max { $0.score < $1.score }
        guard let winner else { return nil }
        return change(to: winner.room, at: time)
    }

    private mutating func change(to newRoom: String, at time: Instant) -> RoomDecision? {
        challenges.removeAll()
        firstEvidence = nil
        guard newRoom != room else { return nil }
        room = newRoom
        since = time
        peak = nil
        defendedScore = -Double.infinity
        return decision()
    }

    /// The current decision with the candidates of the last evaluation; nil before deciding started.
    func decision() -> RoomDecision? {
        guard let room else { return nil }
        var candidates: [String: Double] = [:]
        for score in scores { candidates[score.room] = score.distance }
        guard room != RoomDecision.notHome, let mine = scores.first(where: { $0.room == room }) else {
            return RoomDecision(beacon: beacon, room: room, distance: nil, proximity: .unknown, node: nil,
                                since: since, confidence: 0, candidates: candidates)
        }
        let runnerUp = scores.filter { $0.room != room }.max { $0.score < $1.score }
        let confidence: Double
        if let runnerUp {
            let lead = mine.score - runnerUp.score
            confidence = lead > 0 ? 1 - pow(10, -lead / 10) : 0
        } else {
            confidence = 1
        }
        return RoomDecision(beacon: beacon, room: room, distance: mine.distance, proximity: mine.proximity,
                            node: mine.node, since: since, confidence: confidence, candidates: candidates)
    }

    /// Per room: the mean linear power of its nodes (in dB) and its nearest node.
    static func roomScores(_ held: [Held]) -> [RoomScore] {
        var linear: [(room: String, power: Double, count: Int, nearest: Held)] = []
        for entry in held {
            let power = entry.power
            if let index = linear.firstIndex(where: { $0.room == entry.room }) {
                linear[index].power += power
                linear[index].count += 1
                if entry.distance < linear[index].nearest.distance { linear[index].nearest = entry }
            } else {
                linear.append((entry.room, power, 1, entry))
            }
        }
        return linear.map {
            RoomScore(room: $0.room, score: 10 * log10($0.power / Double($0.count)), node: $0.nearest.node,
                      distance: $0.nearest.distance, proximity: $0.nearest.proximity)
        }
    }
}
struct ReferenceRoomDecider: Sendable {
    let parameters: RoomDecisionParameters
    private var beacons: [BeaconID: ReferenceBeaconRoomState] = [:]
    private var offlineNodes: Set<String> = []

    init(parameters: RoomDecisionParameters = .default) {
        self.parameters = parameters
    }

    /// Folds in one measurement received at `time`; returns the decision when the beacon's room
    /// changed or deciding started for it, nil when nothing changed. Silence evidence (`unknown`,
    /// no distance) drops the node's evidence. Evidence from an offline node, or with a non-finite
    /// or negative distance, is ignored.
    mutating func update(_ evidence: NodeEvidence, at time: Instant) -> RoomDecision? {
        guard !offlineNodes.contains(evidence.node), time.seconds.isFinite else { return nil }
        if evidence.isSilence {
            guard var state = beacons.removeValue(forKey: evidence.beacon) else { return nil }
            state.forget(node: evidence.node, at: time)
            let decision = state.evaluate(at: time, parameters: parameters)
            beacons[evidence.beacon] = state
            return decision
        }
        guard let distance = evidence.distance, distance.isFinite, distance >= 0 else { return nil }
        let score = -10 * parameters.pathLossExponent * log10(max(distance, 0.01))
        var state = beacons.removeValue(forKey: evidence.beacon) ?? ReferenceBeaconRoomState(beacon: evidence.beacon)
        state.hold(evidence, distance: distance, score: score, at: time)
        let decision = state.evaluate(at: time, parameters: parameters)
        beacons[evidence.beacon] = state
        return decision
    }

    /// Lets time pass to `time` for every beacon: challengers may win their dwell, stale evidence
    /// goes, silent beacons turn `not_home`. Returns the changed decisions, ordered by beacon.
    mutating func tick(at time: Instant) -> [RoomDecision] {
        guard time.seconds.isFinite else { return [] }
        var changed: [RoomDecision] = []
        for index in beacons.indices {
            // In place: no copy of the per-beacon state, no re-hashing (this runs every tick).
            if let decision = beacons.values[index].evaluate(at: time, parameters: parameters) {
                changed.append(decision)
            }
        }
        if changed.count > 1 { changed.sort { $0.beacon < $1.beacon } }
        return changed
    }

    /// Records a node's status (`<root>/nodes/<node>/status`). Going offline drops its evidence for
    /// every beacon at once and re-decides them; returns the changed decisions, ordered by beacon.
    mutating func setNodeStatus(node: String, online: Bool, at time: Instant) -> [RoomDecision] {
        if online {
            offlineNodes.remove(node)
            return []
        }
        offlineNodes.insert(node)
        var changed: [RoomDecision] = []
        for beacon in beacons.keys.sorted() {
            guard var state = beacons.removeValue(forKey: beacon) else { continue }
            state.forget(node: node, at: time)
            if let decision = state.evaluate(at: time, parameters: parameters) { changed.append(decision) }
            beacons[beacon] = state
        }
        return changed
    }

    /// The current decision for `beacon` (room, confidence and candidates as of the last update
    /// or tick), nil before deciding started.
    func decision(for beacon: BeaconID) -> RoomDecision? {
        beacons[beacon]?.decision()
    }

    /// Every beacon with a decision, ordered by beacon.
    var decidedBeacons: [BeaconID] {
        beacons.keys.filter { beacons[$0]?.room != nil }.sorted()
    }

    /// What `RoomDecider.forget(beacon:)` does: the beacon's state goes.
    mutating func forget(beacon: BeaconID) {
        beacons[beacon] = nil
    }

    /// Whether `node` is currently reported offline.
    func isOffline(node: String) -> Bool {
        offlineNodes.contains(node)
    }
}
