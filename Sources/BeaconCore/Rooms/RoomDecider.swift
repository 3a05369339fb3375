#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Decides which room each beacon is in, from every node's measurements (SEMANTICS.md "Which room").
///
/// Per beacon it keeps the freshest evidence of every node. Each node's evidence scores
/// `−10·n·log₁₀(distance)` dB; a room scores the summed linear power of its nodes (so several nodes
/// in one room add up, and one loud node does not outvote two agreeing ones by much). Deciding
/// starts `settleTime` after the first evidence, so every node that hears the beacon has spoken.
/// The current room then stays until a challenger leads it by more than `margin` dB without a
/// break for `dwell` seconds **and** its lead above the margin (capped at `leadCap`), integrated
/// over time, reaches `evidenceToSwitch` dB·s — a decisive lead switches after the dwell, a slim
/// one takes longer. A node's measurement with proximity `unknown` (no distance: the node no
/// longer hears the beacon) drops that node's evidence at once; evidence older than `staleAfter`
/// (a safety net for a lost `unknown`) is dropped too; a room left with no evidence loses to one
/// still heard after the dwell; nodes reported `offline` are ignored until `online`. When no node
/// hears the beacon any more, it keeps its room for `awayTimeout`, then goes `not_home`. Pure
/// value type: time is always a parameter, and nothing happens between calls, so the owner calls
/// `tick(at:)` periodically (the replay: at every sample and at least every second).
public struct RoomDecider: Sendable {
    public let parameters: RoomDecisionParameters
    private var beacons: [BeaconID: BeaconRoomState] = [:]
    private var offlineNodes: Set<String> = []

    public init(parameters: RoomDecisionParameters = .default) {
        self.parameters = parameters
    }

    /// Folds in one measurement received at `time`; returns the decision when the beacon's room
    /// changed or deciding started for it, nil when nothing changed. Silence evidence (`unknown`,
    /// no distance) drops the node's evidence. Evidence from an offline node, or with a non-finite
    /// or negative distance, is ignored.
    public mutating func update(_ evidence: NodeEvidence, at time: Instant) -> RoomDecision? {
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
        var state = beacons.removeValue(forKey: evidence.beacon) ?? BeaconRoomState(beacon: evidence.beacon)
        state.hold(evidence, distance: distance, score: score, at: time)
        let decision = state.evaluate(at: time, parameters: parameters)
        beacons[evidence.beacon] = state
        return decision
    }

    /// Lets time pass to `time` for every beacon: challengers may win their dwell, stale evidence
    /// goes, silent beacons turn `not_home`. Returns the changed decisions, ordered by beacon.
    public mutating func tick(at time: Instant) -> [RoomDecision] {
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
    public mutating func setNodeStatus(node: String, online: Bool, at time: Instant) -> [RoomDecision] {
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
    public func decision(for beacon: BeaconID) -> RoomDecision? {
        beacons[beacon]?.decision()
    }

    /// Every beacon with a decision, ordered by beacon.
    public var decidedBeacons: [BeaconID] {
        beacons.keys.filter { beacons[$0]?.room != nil }.sorted()
    }

    /// Whether `node` is currently reported offline.
    public func isOffline(node: String) -> Bool {
        offlineNodes.contains(node)
    }
}
