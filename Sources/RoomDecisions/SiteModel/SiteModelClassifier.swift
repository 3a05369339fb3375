import BeaconCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How a site model tells rooms apart: a multinomial logistic regression from what the nodes
/// publish at one moment to the probability of each room, learned from labelled recordings.
///
/// Why discriminative: a room's look at each node on its own (`SiteModel.Look`) misses what
/// matters most at a doorway — which nodes are loudest *relative to the others*. In the SAL bay the
/// nodes just inside the door are the loudest while the car stands just *outside* it; a model
/// weighing all nodes together learns that, where signal strength alone calls it inside for
/// seconds longer (the site model article of PresenceAggregator.docc compares the two).
///
/// The features of a moment (`features`), in this order:
/// - per model room, its physics score: the mean linear power of its nodes that hear the beacon,
///   in dB relative to the loudest room, floored at −20 dB (−20 when none of its nodes hears) —
///   what the physics decision looks at, so the model starts from it;
/// - per model node, its filtered RSSI relative to the mean of the nodes hearing the beacon (0 when
///   it does not hear it): the pattern across the nodes, which does not move when the whole picture
///   does (another beacon's power, a phone in a pocket);
/// - per model node, 1 while it hears the beacon, else 0.
///
/// A node that is offline gives no features: its two features take their training mean, which
/// the standardization turns into 0, so a dead node weighs for no room.
public struct SiteModelClassifier: Sendable, Hashable {
    /// Per feature, its mean and standard deviation over the training moments (standardization).
    public var means: [Double]
    public var scales: [Double]
    /// `weights[room][feature]` and `biases[room]`, on standardized features.
    public var weights: [[Double]]
    public var biases: [Double]

    public init(means: [Double], scales: [Double], weights: [[Double]], biases: [Double]) {
        self.means = means
        self.scales = scales
        self.weights = weights
        self.biases = biases
    }

    /// The number of features of a site with `rooms` rooms and `nodes` nodes.
    public static func featureCount(rooms: Int, nodes: Int) -> Int { rooms + 2 * nodes }

    /// The names of the features, in order, as the model file lists them.
    public static func featureNames(rooms: [String], nodes: [String]) -> [String] {
        rooms.map { "room:" + $0 } + nodes.map { "rssi:" + $0 } + nodes.map { "heard:" + $0 }
    }

    /// The features of one moment: `heard[node]` the node's filtered RSSI while it hears the beacon,
    /// nil when it does not; `available[node]` false while it is offline; `nodeRooms[node]` the
    /// index of its room among the model's rooms (nil when it stands in none). nil features are
    /// unknown (an offline node's).
    public static func features(heard: [Double?], available: [Bool], nodeRooms: [Int?], roomCount: Int) -> [Double?] {
        let width = featureCount(rooms: roomCount, nodes: heard.count)
        let values = [Double](unsafeUninitializedCapacity: width) { buffer, count in
            writeFeatures(heard: heard, available: available, nodeRooms: nodeRooms, roomCount: roomCount, into: buffer)
            count = width
        }
        return values.map { $0.isNaN ? nil : $0 }
    }

    /// `features` written into `out` (`featureCount` long, uninitialized or not), NaN for an unknown
    /// value: the live filter's path, which allocates nothing per step.
    static func writeFeatures(heard: [Double?], available: [Bool], nodeRooms: [Int?], roomCount: Int,
                              into out: UnsafeMutableBufferPointer<Double>) {
        out.initialize(repeating: .nan)
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * roomCount) { scratch in
            // Per room: its nodes' summed linear power, then how many of them hear the beacon.
            scratch.initialize(repeating: 0)
            var sum = 0.0, hearing = 0
            for node in heard.indices where available[node] {
                guard let rssi = heard[node] else { continue }
                sum += rssi
                hearing += 1
                if let room = nodeRooms[node], room < roomCount {
                    scratch[room] += pow(10, rssi / 10)
                    scratch[roomCount + room] += 1
                }
            }
            var loudest = -Double.infinity
            for room in 0..<roomCount where scratch[roomCount + room] > 0 {
                scratch[room] = 10 * log10(scratch[room] / scratch[roomCount + room])
                loudest = max(loudest, scratch[room])
            }
            for room in 0..<roomCount {
                let heard = scratch[roomCount + room] > 0
                out[room] = loudest.isFinite && heard ? max(scratch[room] - loudest, -20) : -20
            }
            let reference = hearing > 0 ? sum / Double(hearing) : 0
            for node in heard.indices where available[node] {
                out[roomCount + node] = heard[node].map { $0 - reference } ?? 0
                out[roomCount + heard.count + node] = heard[node] == nil ? 0 : 1
            }
        }
    }

    /// Per room, log p(room | features) − log prior(room): how much this moment speaks for each
    /// room beyond how common it was in training (the HMM filter brings its own prior).
    public func logLikelihoods(_ features: [Double?], logPriors: [Double]) -> [Double] {
        let values = features.map { $0 ?? .nan }
        return [Double](unsafeUninitializedCapacity: biases.count) { out, count in
            values.withUnsafeBufferPointer { logLikelihoods(of: $0, logPriors: logPriors, into: out) }
            count = biases.count
        }
    }

    /// `logLikelihoods` of features as `writeFeatures` writes them (NaN unknown: standardized 0),
    /// into `out` (one per room, uninitialized or not).
    func logLikelihoods(of features: UnsafeBufferPointer<Double>, logPriors: [Double],
                        into out: UnsafeMutableBufferPointer<Double>) {
        var top = -Double.infinity
        for room in biases.indices {
            let row = weights[room]
            var sum = biases[room]
            for index in 0..<min(features.count, row.count) {
                let value = features[index]
                guard !value.isNaN else { continue }
                sum += row[index] * (value - means[index]) / scales[index]
            }
            out.initializeElement(at: room, to: sum)
            top = max(top, sum)
        }
        if !top.isFinite { top = 0 }
        var total = 0.0
        for room in biases.indices { total += exp(out[room] - top) }
        let normalizer = top + log(total)
        for room in biases.indices {
            let logProbability = max(out[room] - normalizer, Self.logFloor)
            out[room] = logProbability - (room < logPriors.count ? logPriors[room] : 0)
        }
    }

    /// The least log-probability a room is given: no moment rules a room out for good.
    static let logFloor = log(1e-6)

    /// Fits the regression to `rows` (each a moment's features, nil as unknown) labelled with room
    /// indices: mean cross-entropy plus `penalty`·‖weights‖², by Nesterov's accelerated gradient
    /// descent for `iterations` steps from zero — deterministic, no tuning of a step: on
    /// standardized features the curvature is at most (features + 1)/2, which fixes the step.
    public static func fit(rows: [[Double?]], labels: [Int], roomCount: Int, penalty: Double,
                           iterations: Int) -> SiteModelClassifier? {
        guard let width = rows.first?.count, roomCount > 0, rows.count == labels.count,
            rows.allSatisfy({ $0.count == width })
        else { return nil }
        let count = rows.count
        // Standardize; an unknown value takes the feature's mean (0 once standardized).
        var means = [Double](repeating: 0, count: width), scales = [Double](repeating: 1, count: width)
        for feature in 0..<width {
            var sum = 0.0, known = 0
            for row in rows { if let value = row[feature] { sum += value; known += 1 } }
            let mean = known > 0 ? sum / Double(known) : 0
            var squares = 0.0
            for row in rows { if let value = row[feature] { squares += (value - mean) * (value - mean) } }
            let deviation = known > 1 ? (squares / Double(known)).squareRoot() : 0
            means[feature] = mean
            scales[feature] = deviation > 1e-6 ? deviation : 1
        }
        var x = [Double](repeating: 0, count: count * width)
        for (r, row) in rows.enumerated() {
            for feature in 0..<width { x[r * width + feature] = row[feature].map { ($0 - means[feature]) / scales[feature] } ?? 0 }
        }
        // Parameters: weights row-major [room][feature], then biases.
        let size = roomCount * width + roomCount
        var current = [Double](repeating: 0, count: size), previous = current
        var point = current, gradient = current
        var probabilities = [Double](repeating: 0, count: roomCount)
        let step = 1 / (0.5 * Double(width + 1) + 2 * penalty)
        x.withUnsafeBufferPointer { x in
            for iteration in 0..<max(0, iterations) {
                let momentum = Double(iteration) / Double(iteration + 3)
                for index in 0..<size { point[index] = current[index] + momentum * (current[index] - previous[index]) }
                for index in 0..<size { gradient[index] = 0 }
                for r in 0..<count {
                    let base = r * width
                    var top = -Double.infinity
                    for room in 0..<roomCount {
                        var logit = point[roomCount * width + room]
                        let offset = room * width
                        for feature in 0..<width { logit += point[offset + feature] * x[base + feature] }
                        probabilities[room] = logit
                        top = max(top, logit)
                    }
                    var total = 0.0
                    for room in 0..<roomCount {
                        probabilities[room] = exp(probabilities[room] - top)
                        total += probabilities[room]
                    }
                    for room in 0..<roomCount {
                        let error = (probabilities[room] / total - (labels[r] == room ? 1 : 0)) / Double(count)
                        gradient[roomCount * width + room] += error
                        let offset = room * width
                        for feature in 0..<width { gradient[offset + feature] += error * x[base + feature] }
                    }
                }
                for index in 0..<(roomCount * width) { gradient[index] += 2 * penalty * point[index] }
                previous = current
                for index in 0..<size { current[index] = point[index] - step * gradient[index] }
            }
        }
        let weights = (0..<roomCount).map { room in Array(current[(room * width)..<((room + 1) * width)]) }
        return SiteModelClassifier(means: means, scales: scales, weights: weights,
                                   biases: Array(current[(roomCount * width)...]))
    }
}
