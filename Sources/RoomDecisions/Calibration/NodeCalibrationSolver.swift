#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BeaconCore

/// Solves every node's receiver offset and transmit power from what the nodes hear of each
/// other's node beacons.
///
/// The model, in dB: node A's beacon heard by node B is `r_AB = p_A + o_B − L_AB`, with A's power
/// p_A, B's offset o_B and the path's loss L_AB, the same both ways (L_AB = L_BA). So the two
/// directions of a path give `r_AB − r_BA = (p_A − o_A) − (p_B − o_B)`: every path tells only each
/// node's power minus its offset, and the loss takes up their sum. Power and offset come apart only
/// with one thing more (`NodeCalibrationBasis`): the power each node states in its advert, or the
/// nodes' positions (a path's level against its length gives power plus offset). A node's antenna
/// gain is in both its power and its offset, so it cancels in the difference: with stated powers,
/// what the solve finds is how the node's receiver reads against how its transmitter sends.
///
/// Robust: least squares reweighted with Huber's weight, a path whose two directions disagree by
/// more than the rest explains is rejected as blocked one way and the solve repeated; a node whose
/// levels moved within the window is left out; a beacon no node claims is named. Offsets are
/// centred so the site's mean offset is zero: calibration moves nodes against each other, never
/// the site's level. Pure: the caller collects (`NodeLevelCollector`) and publishes.
public enum NodeCalibrationSolver {
    /// Solves the calibration from each direction's level. `nodes`: the site's nodes (receivers
    /// that report, whose beacons are known); a transmitter not among them is an outsider.
    /// `statedPower`: what each node's advert states it transmits at, dBm; `positions`: where each
    /// node is (used only when every solved node has one).
    public static func solve(levels: [NodeLink: NodeLinkLevel], nodes: Set<String>, statedPower: [String: Double] = [:],
                             positions: [String: NodePosition] = [:], parameters: NodeCalibrationParameters = .default,
                             at time: Instant) -> NodeCalibration {
        var rejections = outsiders(levels: levels, nodes: nodes)
        let usable = levels.filter {
            nodes.contains($0.key.transmitter) && nodes.contains($0.key.receiver) && $0.value.samples >= parameters.minimumSamples
                && $0.value.level.isFinite
        }
        let moved = movedNodes(usable, parameters: parameters)
        rejections += moved.sorted { $0.key < $1.key }.map { node, shift in
            NodeCalibrationRejection(kind: .moved, subject: node, reason: "moved: most of its paths' levels shifted by a median \(dB(shift)) within the window; its paths wait until its level settles")
        }
        var pairs = reciprocalPairs(usable, moved: Set(moved.keys), positions: positions, movedShift: parameters.movedShift)

        // The largest group of nodes joined by paths heard both ways: the rest cannot be compared with it.
        let component = largestComponent(pairs)
        for node in nodes.subtracting(component).subtracting(moved.keys).sorted()
            where usable.keys.contains(where: { $0.transmitter == node || $0.receiver == node }) {
            rejections.append(.init(kind: .isolated, subject: node, reason: "no path heard both ways to the rest of the site: its offset cannot be solved"))
        }
        pairs.removeAll { !component.contains($0.a) }
        let order = component.sorted()
        guard order.count >= 2 else {
            return NodeCalibration(rejections: rejections, solvedAt: time)
        }
        let index = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })

        // Differences: q = power − offset per node. A path that does not fit is rejected and the
        // solve repeated, the worst first (one blocked path bends its nodes' solution towards it).
        var differences: RobustFit
        var blockedPaths: [String: Int] = [:]
        while true {
            differences = RobustFit.solve(pairs.map { pair in
                ([index[pair.a]!, index[pair.b]!], [1, -1], pair.forward - pair.backward)
            }, unknowns: order.count, gauge: order.count)
            let limit = max(parameters.blockedPath, 4 * differences.scale)
            guard let worst = differences.residuals.indices.max(by: { abs(differences.residuals[$0]) < abs(differences.residuals[$1]) }),
                  abs(differences.residuals[worst]) > limit, pairs.count > 1 else { break }
            let pair = pairs[worst]
            let residual = differences.residuals[worst]
            let weak = residual < 0 ? NodeLink(transmitter: pair.a, receiver: pair.b) : NodeLink(transmitter: pair.b, receiver: pair.a)
            rejections.append(.init(kind: .blockedPath, subject: weak.description,
                                    reason: "\(dB(abs(residual))) weaker than the other way round once the nodes' offsets and powers are taken out: blocked one way, not used"))
            blockedPaths[pair.a, default: 0] += 1
            blockedPaths[pair.b, default: 0] += 1
            pairs.remove(at: worst)
        }
        // One path blocked one way is a path's doing; several at one node are the node's: its
        // beacon is heard at levels its paths cannot give (another site's node with its beacon id,
        // heard beside it, or a transmitter that is not what it seems), and its offset is not applied.
        let implausible = blockedPaths.filter { $0.value >= 2 }
        for (node, count) in implausible.sorted(by: { $0.key < $1.key }) {
            rejections.append(.init(kind: .implausible, subject: node,
                                    reason: "\(count) of its paths do not fit the rest (blocked one way): its beacon is heard at levels its paths cannot give (another site's node with its beacon id?); its offset is not applied"))
        }

        let usage = Usage(pairs: pairs, index: index, weights: differences.weights, residuals: differences.residuals)
        let seQ = order.indices.map { usage.standardError(of: $0, scale: differences.scale) }
        let q = differences.solution

        // Power plus offset from the positions, when every node has one.
        var fromPositions: (u: [Double], se: [Double])?
        if order.allSatisfy({ positions[$0] != nil }), pairs.count > order.count + 1 {
            let sums = RobustFit.solve(pairs.map { pair in
                ([index[pair.a]!, index[pair.b]!, order.count, order.count + 1], [1, 1, 1, -log10(max(pair.length ?? 1, 0.1))],
                 pair.forward + pair.backward)
            }, unknowns: order.count + 2, gauge: order.count)
            let sumUsage = Usage(pairs: pairs, index: index, weights: sums.weights, residuals: sums.residuals)
            fromPositions = (Array(sums.solution.prefix(order.count)), order.indices.map { sumUsage.standardError(of: $0, scale: sums.scale) })
        }

        var offsets = [Double](repeating: 0, count: order.count)
        var errors = [Double](repeating: 0, count: order.count)
        let basis: NodeCalibrationBasis
        let stated = order.map { statedPower[$0].flatMap { $0.isFinite ? $0 : nil } }
        let statedMedian = stated.compactMap { $0 }.median ?? 0
        if stated.contains(where: { $0 != nil }) {
            basis = .statedPower
            for i in order.indices {
                offsets[i] = (stated[i] ?? statedMedian) - q[i]
                errors[i] = stated[i] == nil ? (seQ[i] * seQ[i] + parameters.assumedPowerSpread * parameters.assumedPowerSpread).squareRoot() : seQ[i]
            }
            if let fromPositions {
                // The floor plan checks what each node states: a node whose power does not fit is
                // named, and its offset comes from the positions instead.
                let positioned = order.indices.map { (fromPositions.u[$0] - q[$0]) / 2 }
                let trusted = order.indices.filter { stated[$0] != nil }
                let powerGap = trusted.map { ((fromPositions.u[$0] + q[$0]) / 2) - stated[$0]! }
                let common = powerGap.median ?? 0
                var liars: [Int] = []
                for (k, i) in trusted.enumerated() where abs(powerGap[k] - common) > parameters.powerMismatch {
                    liars.append(i)
                    let gap = powerGap[k] - common
                    rejections.append(.init(kind: .powerMismatch, subject: order[i],
                                            reason: "transmits \(dB(abs(gap))) \(gap < 0 ? "below" : "above") the power it states (from the paths' lengths); its offset is taken from the positions instead"))
                }
                let honest = order.indices.filter { !liars.contains($0) && stated[$0] != nil }
                let align = honest.map { offsets[$0] - positioned[$0] }.median ?? 0
                for i in liars {
                    offsets[i] = positioned[i] + align
                    errors[i] = (seQ[i] * seQ[i] + fromPositions.se[i] * fromPositions.se[i]).squareRoot() / 2
                }
            }
        } else if let fromPositions {
            basis = .positions
            for i in order.indices {
                offsets[i] = (fromPositions.u[i] - q[i]) / 2
                errors[i] = (seQ[i] * seQ[i] + fromPositions.se[i] * fromPositions.se[i]).squareRoot() / 2
            }
        } else {
            basis = .equalPower
            for i in order.indices {
                offsets[i] = -q[i]
                errors[i] = (seQ[i] * seQ[i] + parameters.assumedPowerSpread * parameters.assumedPowerSpread).squareRoot()
            }
        }
        let mean = offsets.reduce(0, +) / Double(offsets.count)
        var powers = order.indices.map { q[$0] + offsets[$0] - mean }
        let meanPower = powers.reduce(0, +) / Double(powers.count)
        powers = powers.map { $0 - meanPower }

        var result: [String: NodeOffset] = [:]
        let named = Set(rejections.filter { $0.kind == .powerMismatch }.map(\.subject))
        for (i, node) in order.enumerated() {
            let used = usage.pairCount(i)
            var reason: String?
            if used < parameters.minimumPairs {
                reason = "\(used) path(s) heard both ways; \(parameters.minimumPairs) needed"
            } else if !(errors[i] <= parameters.maximumStandardError) {
                reason = "standard error \(dB(errors[i])) over \(dB(parameters.maximumStandardError))"
                    + (basis == .equalPower ? " (no stated power or positions: every node assumed to transmit alike)" : "")
            }
            if implausible[node] != nil {
                reason = "\(implausible[node]!) of its paths do not fit the rest"
            } else if named.contains(node) {
                reason = "it does not transmit the power it states: its offset, from the positions, is not applied"
            }
            result[node] = NodeOffset(offset: offsets[i] - mean, power: powers[i], standardError: errors[i], pairs: used,
                                      samples: usage.sampleCount(i), confident: reason == nil, reason: reason)
        }
        return NodeCalibration(nodes: result, basis: basis, rejections: rejections, residualScale: differences.scale, solvedAt: time)
    }

    /// "2.5 dB".
    static func dB(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return "\(tenths) dB"
    }

    // MARK: Steps

    /// A path heard both ways: `forward` is a's beacon heard by b, `backward` b's heard by a.
    struct Pair {
        var a: String
        var b: String
        var forward: Double
        var backward: Double
        var samples: Int
        var length: Double?
    }

    static func outsiders(levels: [NodeLink: NodeLinkLevel], nodes: Set<String>) -> [NodeCalibrationRejection] {
        var heardBy: [String: Set<String>] = [:]
        for link in levels.keys where !nodes.contains(link.transmitter) { heardBy[link.transmitter, default: []].insert(link.receiver) }
        return heardBy.sorted { $0.key < $1.key }.map { beacon, receivers in
            NodeCalibrationRejection(kind: .outsider, subject: beacon,
                                     reason: "a node beacon heard by \(receivers.count) node(s) that no node of this site claims (another site's?): not used")
        }
    }

    /// Nodes most of whose directions (either way) shifted by `movedShift` or more, with the median shift.
    static func movedNodes(_ usable: [NodeLink: NodeLinkLevel], parameters: NodeCalibrationParameters) -> [String: Double] {
        var shifts: [String: [Double]] = [:]
        for (link, level) in usable {
            shifts[link.transmitter, default: []].append(level.shift)
            shifts[link.receiver, default: []].append(level.shift)
        }
        var moved: [String: Double] = [:]
        for (node, list) in shifts where list.count >= 2 {
            let changed = list.filter { abs($0) >= parameters.movedShift }
            if changed.count * 2 > list.count { moved[node] = changed.map { abs($0) }.median ?? 0 }
        }
        return moved
    }

    static func reciprocalPairs(_ usable: [NodeLink: NodeLinkLevel], moved: Set<String>, positions: [String: NodePosition],
                                movedShift: Double) -> [Pair] {
        var pairs: [Pair] = []
        for (link, forward) in usable.sorted(by: { $0.key < $1.key }) where link.transmitter < link.receiver {
            guard !moved.contains(link.transmitter), !moved.contains(link.receiver),
                  let backward = usable[NodeLink(transmitter: link.receiver, receiver: link.transmitter)],
                  abs(forward.shift) < movedShift, abs(backward.shift) < movedShift else { continue }
            let length = positions[link.transmitter].flatMap { a in positions[link.receiver].map { a.distance(to: $0) } }
            pairs.append(Pair(a: link.transmitter, b: link.receiver, forward: forward.level, backward: backward.level,
                              samples: forward.samples + backward.samples, length: length))
        }
        return pairs
    }

    static func largestComponent(_ pairs: [Pair]) -> Set<String> {
        var parent: [String: String] = [:]
        func root(_ node: String) -> String {
            var node = node
            while let up = parent[node], up != node { node = up }
            return node
        }
        for pair in pairs {
            if parent[pair.a] == nil { parent[pair.a] = pair.a }
            if parent[pair.b] == nil { parent[pair.b] = pair.b }
            let (ra, rb) = (root(pair.a), root(pair.b))
            if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
        }
        var groups: [String: Set<String>] = [:]
        for node in parent.keys { groups[root(node), default: []].insert(node) }
        return groups.values.max { ($0.count, $1.min() ?? "") < ($1.count, $0.min() ?? "") } ?? []
    }

    /// Per node: the pairs it is in, their weights and residuals, for its standard error.
    struct Usage {
        var pairs: [Pair]
        var index: [String: Int]
        var weights: [Double]
        var residuals: [Double]

        func members(_ node: Int) -> [Int] {
            pairs.indices.filter { index[pairs[$0].a] == node || index[pairs[$0].b] == node }
        }

        func pairCount(_ node: Int) -> Int { members(node).count }

        func sampleCount(_ node: Int) -> Int { members(node).reduce(0) { $0 + pairs[$1].samples } }

        /// The site's scale, or the node's own residuals' when they agree less, over the root of its weight.
        func standardError(of node: Int, scale: Double) -> Double {
            let mine = members(node)
            let weight = mine.reduce(0) { $0 + weights[$1] }
            guard weight > 0 else { return .infinity }
            let own = (mine.reduce(0) { $0 + residuals[$1] * residuals[$1] } / Double(mine.count)).squareRoot()
            return max(scale, own) / weight.squareRoot()
        }
    }
}
