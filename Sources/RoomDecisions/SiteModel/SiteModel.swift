import BeaconCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How each room of a site looks to the site's nodes, learned from labelled recordings
/// (`SiteModelLearner`) and used to decide rooms (`SiteModelFilter`, `SiteModelDecider`).
///
/// It holds a room classifier (`SiteModelClassifier`, which decides) and, for every room and node,
/// how often the node hears the beacon while it is in that room (`heard`) and a Gaussian of the
/// filtered RSSI the node then publishes (`mean`, `sigma`): a readable picture of the site, and what
/// a version 1 file, without a classifier, decides by. `decision` is `learn`'s verdict: whether the
/// model beat physics on the recordings it was learned from. The features are the measurements
/// nodes publish — what the live aggregator receives — so a model learned offline decides live on
/// the same footing. Saved as versioned JSON (`SiteModel+JSON`).
public struct SiteModel: Sendable, Hashable {
    /// The `format` field of a model file.
    public static let format = "beacon-presence-site-model"
    /// The `version` of the file format this code writes; it reads this one and version 1 (looks
    /// only: decided by the looks, as then).
    public static let version = 2

    /// Which decision `learn` found the better on the recordings it learned from, judged leave-one-
    /// recording-out against the physics decision on the same recordings.
    public enum Decision: String, Sendable, Hashable {
        /// Decide with the model.
        case model
        /// The model did not beat physics where it was learned: decide with physics alone.
        case physics
    }

    /// How one room looks to one node.
    public struct Look: Sendable, Hashable {
        /// The values `heard` may take: strictly inside 0…1 (the looks take its log and the log of
        /// its complement) and no finer than the four decimals a model file keeps, so what `learn`
        /// writes its reader reads back unchanged. A node that heard a room in every sample (or in
        /// none) is given 0.9999 (0.0001): "always", short of certainty.
        public static let heardBounds: ClosedRange<Double> = 0.0001...0.9999

        /// `heard` brought into `heardBounds` (NaN counts as never).
        public static func boundedHeard(_ heard: Double) -> Double {
            guard heard.isFinite else { return heardBounds.lowerBound }
            return min(max(heard, heardBounds.lowerBound), heardBounds.upperBound)
        }

        /// Probability that the node has a live measurement of the beacon while it is in the room.
        public var heard: Double
        /// Mean filtered RSSI the node publishes then, in dB relative to the mean of the model's
        /// nodes that hear the beacon at that moment (`reference(_:)`).
        public var mean: Double
        /// Its standard deviation, dB (at least the parameters' `minimumSigma`).
        public var sigma: Double

        /// Creates a look from its three figures.
        public init(heard: Double, mean: Double, sigma: Double) {
            self.heard = heard
            self.mean = mean
            self.sigma = sigma
        }
    }

    /// The rooms, sorted by name.
    public var rooms: [String]
    /// The nodes, sorted by name.
    public var nodes: [String]
    /// `looks[room][node]`, indexed as `rooms` and `nodes`.
    public var looks: [[Look]]
    /// Learning samples (feature snapshots, one per `sampleInterval`) per room.
    public var samples: [Int]
    /// How the filter over rooms uses the looks.
    public var parameters: SiteModelParameters
    /// Per node (indexed as `nodes`), the room it stands in, nil when none of the model's rooms.
    public var nodeRooms: [String?]
    /// The room classifier; nil in a version 1 file, whose looks then decide.
    public var classifier: SiteModelClassifier?
    /// The decision `learn` chose; `.model` when it could not judge (a single recording).
    public var decision: Decision
    /// Per room (indexed as `rooms`), which decision serves it when `decision` is `.model`:
    /// `learn` gives a room to physics where physics, judged leave-one-recording-out, was right
    /// more of that room's time (`SiteModelDecider` says how the two make one decision).
    public var roomDecisions: [Decision]
    /// Per room (indexed as `rooms`), its floor as the walks' truth gave it (`floor` column), nil
    /// when none did. The aggregator's configured floors win over these.
    public var floors: [String?]
    /// Per room (indexed as `rooms`), the rooms the walks' truth went to straight from it, either
    /// way (sorted indices); nil when not learned (a file written before): the filter's transition
    /// prior then spreads a move evenly over every room. The walk shows the floor plan: a room is
    /// reached through its neighbours (`SiteModelParameters.unwalkedMoveShare`).
    public var neighbours: [[Int]]?
    /// Whether the looks are **levels** and decide: each node's filtered RSSI in dB as published
    /// (not relative to the other nodes), with no classifier. `learn` learns levels where a walked
    /// room has no receiver of its own: such a room is told from its neighbours by how loud each
    /// receiver hears it, and with three or four receivers the pattern across them (what the
    /// classifier and relative looks see) carries too little of that. The filter weighs levels with
    /// `SiteModelParameters.levelSigma` and `levelSwitchOdds`.
    public var levels: Bool

    /// Where the beacon is in none of the model's rooms: a hall, a room whose receiver is off — time
    /// inside a labelled walk that its truth names no room for (`SiteModelParameters.elsewhereGap`).
    /// The filter follows it as one more hidden state (the last of `stateCount`; with a classifier, its
    /// last class), so what the nodes hear there is not read as a room; it is never decided: while it
    /// is the most probable, the decided room stays as it is.
    public struct Elsewhere: Sendable, Hashable {
        /// How it looks to each node (indexed as `nodes`), as a room's looks are.
        public var looks: [Look]
        /// Learning samples taken there.
        public var samples: Int
        /// The rooms the walks went to straight from it or came from (sorted indices into `rooms`).
        public var neighbours: [Int]

        /// Creates the state from its looks, samples and neighbouring rooms.
        public init(looks: [Look], samples: Int, neighbours: [Int]) {
            self.looks = looks
            self.samples = samples
            self.neighbours = neighbours
        }
    }

    /// The state "elsewhere"; nil when the walks had no time outside the rooms their truth names (and
    /// in every file written before it was learned): the filter then follows the rooms alone.
    public var elsewhere: Elsewhere?

    /// The filter's hidden states: the rooms (indexed as `rooms`), then `elsewhere` when learned.
    public var stateCount: Int { rooms.count + (elsewhere == nil ? 0 : 1) }

    /// How state `state` (a room's index, or `rooms.count` for `elsewhere`) looks to each node.
    public func looks(ofState state: Int) -> [Look] {
        state < rooms.count ? looks[state] : elsewhere?.looks ?? []
    }

    /// Creates a model; `looks` is indexed as `rooms` and `nodes`, `nodeRooms` as `nodes`.
    public init(rooms: [String], nodes: [String], looks: [[Look]], samples: [Int], parameters: SiteModelParameters,
                nodeRooms: [String?]? = nil, classifier: SiteModelClassifier? = nil, decision: Decision = .model,
                floors: [String?]? = nil, roomDecisions: [Decision]? = nil, neighbours: [[Int]]? = nil,
                levels: Bool = false, elsewhere: Elsewhere? = nil) {
        self.rooms = rooms
        self.elsewhere = elsewhere.flatMap { state in
            state.looks.count == nodes.count && state.neighbours.allSatisfy { rooms.indices.contains($0) } ? state : nil
        }
        self.levels = levels
        self.nodes = nodes
        self.looks = looks
        self.samples = samples
        self.parameters = parameters
        self.nodeRooms = nodeRooms ?? Array(repeating: nil, count: nodes.count)
        self.classifier = classifier
        self.decision = decision
        self.floors = floors.flatMap { $0.count == rooms.count ? $0 : nil } ?? Array(repeating: nil, count: rooms.count)
        self.roomDecisions = roomDecisions.flatMap { $0.count == rooms.count ? $0 : nil } ?? Array(repeating: .model, count: rooms.count)
        self.neighbours = neighbours.flatMap { lists in
            lists.count == rooms.count && lists.allSatisfy { $0.allSatisfy { rooms.indices.contains($0) } } ? lists : nil
        }
    }

    /// The filter's transition prior over its states (`stateCount`): `[from][to]`, where a move from a
    /// state lands (each row sums to 1; the state itself included, as the even spread always did). A
    /// share `unwalkedMoveShare` of a move is spread evenly over every state; the rest over the state's
    /// walked neighbours (`elsewhere` is a neighbour of the rooms the walks left it for or came from). nil
    /// when every move is spread evenly (no neighbours learned, or a share of 1).
    public var transitionPrior: [[Double]]? {
        let share = min(max(levels ? parameters.levelUnwalkedMoveShare : parameters.unwalkedMoveShare, 0), 1)
        guard var neighbours, share < 1, !rooms.isEmpty else { return nil }
        if let elsewhere {
            for room in elsewhere.neighbours { neighbours[room].append(rooms.count) }
            neighbours.append(elsewhere.neighbours)
        }
        let count = stateCount, even = 1 / Double(count)
        return (0..<count).map { from in
            let next = neighbours[from]
            guard !next.isEmpty else { return Array(repeating: even, count: count) }
            var row = Array(repeating: share * even, count: count)
            for to in next { row[to] += (1 - share) / Double(next.count) }
            return row
        }
    }

    /// Per node, the index of its room in `rooms`.
    public var nodeRoomIndices: [Int?] { nodeRooms.map { $0.flatMap { roomIndex($0) } } }

    /// Per state (the rooms, then `elsewhere` when learned), the log of its share of the learning
    /// samples (the classifier's training prior).
    public var logPriors: [Double] {
        let counts = samples + (elsewhere.map { [$0.samples] } ?? [])
        let total = Double(counts.reduce(0, +))
        return counts.map { total > 0 && $0 > 0 ? log(Double($0) / total) : log(1e-6) }
    }

    /// The index of `node` in `nodes`, nil for a node the model does not know.
    public func nodeIndex(_ node: String) -> Int? {
        // Sorted: a binary search, no dictionary to keep in step.
        var low = 0, high = nodes.count
        while low < high {
            let middle = (low + high) / 2
            if nodes[middle] < node { low = middle + 1 } else { high = middle }
        }
        return low < nodes.count && nodes[low] == node ? low : nil
    }

    /// What a node's RSSI is measured against: the mean filtered RSSI of the nodes hearing the beacon
    /// at the same moment (0 when none does). Relative values do not change when the whole picture
    /// moves by a few dB — another beacon's transmit power, a phone in a pocket, a person instead of
    /// a car carrying it — while each room's pattern across the nodes stays, so a model learned from
    /// one kind of carrier holds for another (the site model article of PresenceAggregator.docc).
    public static func reference<Values: Sequence>(_ heard: Values) -> Double where Values.Element == Double {
        var sum = 0.0, count = 0
        for value in heard {
            sum += value
            count += 1
        }
        return count == 0 ? 0 : sum / Double(count)
    }

    /// The index of `room` in `rooms`.
    public func roomIndex(_ room: String) -> Int? {
        rooms.firstIndex(of: room)
    }
}
