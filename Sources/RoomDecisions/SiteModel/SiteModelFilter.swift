import BeaconCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A causal filter over the rooms of a `SiteModel` for one beacon: an HMM forward filter in
/// continuous time. Between two calls the features (each known node's latest filtered RSSI, or
/// "not heard") are constant; over such a span of `dt` seconds the posterior moves by the
/// transition prior (`switchRate`; a move goes mostly to the walked neighbours,
/// `SiteModel.transitionPrior`) and by the features' log-likelihood weighted `evidenceRate·dt`.
/// The decided room changes only when a challenger's posterior reaches `switchOdds` times the
/// decided room's (for levels, `levelNeighbourOdds` for a walked neighbour, else
/// `levelSwitchOdds`). A model's `elsewhere` (in none of its rooms) is one more state, weighed as the
/// rooms are, that is never decided: while it is the most probable the decided room stays. Nodes that
/// are offline (or whose state is unknown) are left out of the likelihood, so a dead node neither helps
/// nor harms any room. Pure value type; time injected.
public struct SiteModelFilter: Sendable {
    /// The model the filter weighs rooms with.
    public let model: SiteModel
    /// Per model node: the latest filtered RSSI while it hears the beacon, nil when it does not.
    private var heard: [Double?]
    private var heardAt: [Instant]
    /// Per model node: false while it is offline (not evidence either way).
    private var available: [Bool]
    /// Log-posterior per state (the model's rooms, then `elsewhere` when it has one), normalized
    /// (log-sum-exp 0).
    public private(set) var logPosterior: [Double]
    /// The time of the last update; nil before the first.
    public private(set) var time: Instant?
    /// The decided room's index, nil before the first decision.
    public private(set) var room: Int?
    /// The model's node rooms and room priors, computed once (the classifier needs them at every step).
    private let nodeRooms: [Int?]
    private let logPriors: [Double]
    /// `SiteModel.transitionPrior`, nil for an even spread.
    private let transitions: [[Double]]?

    /// Creates a filter that has seen nothing, every room equally likely. `available` (indexed as
    /// the model's nodes, default all) says which nodes count as evidence, heard or not.
    public init(model: SiteModel, available: [Bool]? = nil) {
        self.model = model
        nodeRooms = model.nodeRoomIndices
        logPriors = model.logPriors
        transitions = model.transitionPrior
        heard = Array(repeating: nil, count: model.nodes.count)
        heardAt = Array(repeating: Instant(seconds: 0), count: model.nodes.count)
        self.available = available.flatMap { $0.count == model.nodes.count ? $0 : nil }
            ?? Array(repeating: true, count: model.nodes.count)
        let uniform = model.rooms.isEmpty ? 0 : -log(Double(model.stateCount))
        logPosterior = Array(repeating: uniform, count: model.rooms.isEmpty ? 0 : model.stateCount)
    }

    /// The posterior probability of each room (indexed as the model's rooms), which the room is
    /// decided by; with `elsewhere` they sum to less than 1 (`elsewhereProbability` is the rest).
    public var posterior: [Double] { logPosterior.prefix(model.rooms.count).map { exp($0) } }

    /// The posterior probability that the beacon is in none of the model's rooms (0 without `elsewhere`).
    public var elsewhereProbability: Double {
        logPosterior.count > model.rooms.count ? exp(logPosterior[model.rooms.count]) : 0
    }

    /// A node's measurement at `time`: `rssi` the filtered RSSI it published, nil for "no longer heard".
    public mutating func observe(node: Int, rssi: Double?, at time: Instant) {
        advance(to: time)
        guard heard.indices.contains(node) else { return }
        heard[node] = rssi.flatMap { $0.isFinite ? $0 : nil }
        heardAt[node] = time
    }

    /// A node going offline (its evidence no longer counts) or online (it counts again, as not heard
    /// until it publishes).
    public mutating func setAvailable(node: Int, _ isAvailable: Bool, at time: Instant) {
        advance(to: time)
        guard available.indices.contains(node) else { return }
        available[node] = isAvailable
        heard[node] = nil
    }

    /// Per model room, a log-likelihood per second that motion sensors add (`MotionParameters`;
    /// `SiteModelDecider` sets it before each step), nil without motion: the filter as before.
    public var motionLogLikelihood: [Double]?

    /// Lets time pass to `time` with the features held since the last call.
    public mutating func advance(to time: Instant) {
        guard time.seconds.isFinite else { return }
        guard let last = self.time else {
            self.time = time
            return
        }
        let dt = time.since(last)
        guard dt > 0, !logPosterior.isEmpty else { return }
        self.time = time
        let parameters = model.parameters
        // Stale measurements count as not heard from here on.
        for node in heard.indices where heard[node] != nil && time.since(heardAt[node]) > parameters.staleAfter {
            heard[node] = nil
        }
        // Transition prior over dt: stay with e^(−λ·dt), else spread evenly over the rooms.
        let stay = exp(-max(0, model.levels ? parameters.levelSwitchRate : parameters.switchRate) * dt)
        let spread = (1 - stay) / Double(logPosterior.count)
        let weight = (model.levels ? parameters.levelEvidenceRate : parameters.evidenceRate) * dt
        let motion = motionLogLikelihood.flatMap { $0.count == model.rooms.count ? $0 : nil }
        // In place and on the stack: this runs for every measurement of every beacon.
        withUnsafeTemporaryAllocation(of: Double.self, capacity: logPosterior.count) { likelihoods in
            let hasEvidence = weight > 0 && writeMeanLogLikelihoods(into: likelihoods)
            if let transitions {
                // p'(to) = stay·p(to) + (1 − stay)·Σ p(from)·T[from][to]: a move lands mostly on the
                // neighbours the walks went to from where the beacon probably is.
                let count = logPosterior.count
                // Per room, once: its probability, the share of it that stays over dt, the mass moved in.
                withUnsafeTemporaryAllocation(of: Double.self, capacity: 3 * count) { scratch in
                    for room in 0..<count {
                        scratch[room] = exp(logPosterior[room])
                        scratch[count + room] = stay
                        scratch[2 * count + room] = 0
                    }
                    for from in 0..<count {
                        let mass = (1 - scratch[count + from]) * scratch[from]
                        for to in 0..<count { scratch[2 * count + to] += mass * transitions[from][to] }
                    }
                    for room in 0..<count {
                        logPosterior[room] = log(scratch[count + room] * scratch[room] + scratch[2 * count + room])
                            + (hasEvidence ? weight * likelihoods[room] : 0)
                    }
                }
            } else {
                for room in logPosterior.indices {
                    logPosterior[room] = log(stay * exp(logPosterior[room]) + spread)
                        + (hasEvidence ? weight * likelihoods[room] : 0)
                }
            }
            if let motion {
                let motionWeight = model.levels ? parameters.levelMotionWeight : 1
                // Motion speaks for the rooms; elsewhere takes none of it.
                for room in motion.indices { logPosterior[room] += motion[room] * dt * motionWeight }
            }
        }
        let total = Self.logSumExp(logPosterior)
        for room in logPosterior.indices { logPosterior[room] -= total }
        decide()
    }

    /// Per state (as `logPosterior`), how much the current features speak for it: with a classifier
    /// (version 2 models), log p(state | features) − log prior(state); with looks only (version 1),
    /// the mean over available model nodes of log p(feature | state). nil when no node is available.
    public func meanLogLikelihoods() -> [Double]? {
        var known = false
        let values = [Double](unsafeUninitializedCapacity: logPosterior.count) { out, count in
            known = writeMeanLogLikelihoods(into: out)
            count = logPosterior.count
        }
        return known ? values : nil
    }

    /// `meanLogLikelihoods` written into `out` (one per state, uninitialized or not); false, with
    /// zeros written, when no node is available.
    private func writeMeanLogLikelihoods(into out: UnsafeMutableBufferPointer<Double>) -> Bool {
        out.initialize(repeating: 0)
        guard available.contains(true) else { return false }
        if let classifier = model.classifier {
            let roomCount = model.rooms.count
            let width = SiteModelClassifier.featureCount(rooms: roomCount, nodes: heard.count)
            withUnsafeTemporaryAllocation(of: Double.self, capacity: width) { features in
                SiteModelClassifier.writeFeatures(heard: heard, available: available, nodeRooms: nodeRooms,
                                                  roomCount: roomCount, into: features)
                classifier.logLikelihoods(of: UnsafeBufferPointer(features), logPriors: logPriors, into: out)
            }
            return true
        }
        let parameters = model.parameters
        let outlier = parameters.outlierShare / max(parameters.outlierRange, 1)
        var count = 0
        // Levels are in dB as published; relative looks against the nodes hearing the beacon now.
        let reference = model.levels ? 0 : SiteModel.reference(heard.indices.lazy.filter { available[$0] }.compactMap { heard[$0] })
        let leastSigma = model.levels ? parameters.levelSigma : 0
        for node in heard.indices where available[node] {
            count += 1
            for room in out.indices {
                let look = room < model.rooms.count ? model.looks[room][node] : model.elsewhere!.looks[node]
                if let rssi = heard[node] {
                    let sigma = max(look.sigma, leastSigma)
                    let z = (rssi - reference - look.mean) / sigma
                    let gaussian = exp(-0.5 * z * z) / (sigma * 2.5066282746310002)
                    out[room] += log(look.heard) + log((1 - parameters.outlierShare) * gaussian + outlier)
                } else {
                    out[room] += log(1 - look.heard)
                }
            }
        }
        for room in out.indices { out[room] /= Double(count) }
        return true
    }

    /// The decided room; before any time has passed, the room the current features make most
    /// likely becomes the decided room (deciding starts with what is heard, not with a blank prior;
    /// never `elsewhere`, which is no room).
    public mutating func decidedRoom() -> Int? {
        if room == nil, !logPosterior.isEmpty, let likelihoods = meanLogLikelihoods() {
            var best = 0
            for index in 0..<model.rooms.count
            where logPosterior[index] + likelihoods[index] > logPosterior[best] + likelihoods[best] {
                best = index
            }
            room = best
        }
        return room
    }

    private mutating func decide() {
        var best = 0
        for index in logPosterior.indices where logPosterior[index] > logPosterior[best] { best = index }
        guard let current = room else {
            // The first decision is a room even while elsewhere leads.
            var room = 0
            for index in 0..<model.rooms.count where logPosterior[index] > logPosterior[room] { room = index }
            self.room = room
            return
        }
        // Elsewhere is no room: while it leads the decided room stays as it is.
        guard best < model.rooms.count else { return }
        // Levels: a walked neighbour of the decided room needs less than a room across the house.
        let neighbour = model.neighbours.map { current < $0.count && $0[current].contains(best) } ?? false
        let odds = !model.levels ? model.parameters.switchOdds
            : neighbour ? model.parameters.levelNeighbourOdds : model.parameters.levelSwitchOdds
        if best != current, logPosterior[best] - logPosterior[current] >= log(max(odds, 1)) {
            room = best
        }
    }

    /// Back to no knowledge (uniform posterior, nothing heard, no room): a beacon that went away
    /// starts afresh when it is heard again.
    public mutating func reset() {
        let available = self.available
        self = SiteModelFilter(model: model)
        self.available = available
    }

    static func logSumExp(_ values: [Double]) -> Double {
        guard let top = values.max(), top.isFinite else { return values.max() ?? 0 }
        var sum = 0.0
        for value in values { sum += exp(value - top) }
        return top + log(sum)
    }
}
