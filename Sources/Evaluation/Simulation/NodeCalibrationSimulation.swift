import BeaconCore
import Foundation
import RoomDecisions

/// What the nodes of a recorded site would hear of each other's node beacons, drawn from the
/// site's own path loss and noise, with a receiver offset and a transmit power drawn per node: the
/// simulation the node calibration is judged on (`presence-bench calibrate-nodes`, issue 55).
///
/// A path's level is `P₁ + p_A + o_B − 10·n·log₁₀(d) + s_AB + a_AB + noise`: n and P₁ fitted on the
/// site's static recordings (each receiver its own intercept, so the receivers' own differences do
/// not widen the spread), `s_AB` the path's shadowing, the same both ways, drawn with the fit's
/// residual spread; `a_AB` a small part that is not the same both ways (assumed, not fitted: the
/// recordings hold no node-to-node paths); the advert's noise drawn with the spread of one of the
/// site's static series, the level rounded to whole dB as a controller reports it.
public struct NodeCalibrationSimulation: Sendable {
    /// The site's path loss, fitted.
    public struct PathLoss: Sendable, Hashable, Codable {
        public var exponent: Double
        public var measuredPower: Double
        /// Spread of the fit's residuals, dB (with the degrees of freedom the fit took out).
        public var shadowing: Double
        /// Each static series' standard deviation, dB: one is drawn per direction as its adverts' noise.
        public var noise: [Double]
        /// Static series the fit used.
        public var series: Int

        /// Fits the model to a static set's `DISTANCES.csv` (`file,sensor,…,dist_m,n,mean_rssi,std_rssi`).
        public static func fit(distancesCSV text: String) throws -> PathLoss {
            let rows = text.split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false) }
            guard let header = rows.first else { throw FitError("empty distances file") }
            func column(_ name: String) throws -> Int {
                guard let index = header.firstIndex(where: { $0 == name }) else { throw FitError("no \(name) column") }
                return index
            }
            let (sensor, distance, mean, spread) = (try column("sensor"), try column("dist_m"), try column("mean_rssi"), try column("std_rssi"))
            var points: [PathLossPoint] = []
            var noise: [Double] = []
            for row in rows.dropFirst() where row.count == header.count {
                guard let d = Double(row[distance]), let m = Double(row[mean]), let s = Double(row[spread]) else { continue }
                points.append(PathLossPoint(receiver: String(row[sensor]), distance: d, meanRSSI: m))
                noise.append(s)
            }
            guard points.count > 2 else { throw FitError("fewer than three series") }
            let fit = TrackingCalibration.fitPathLoss(points, perReceiverOffsets: true)
            let parameters = Set(points.map(\.receiver)).count + 1
            let corrected = fit.residualStd * (Double(points.count) / Double(max(1, points.count - parameters))).squareRoot()
            return PathLoss(exponent: fit.exponent, measuredPower: fit.measuredPower, shadowing: corrected, noise: noise,
                            series: points.count)
        }
    }

    public struct FitError: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// One seeded draw: what was injected and what the nodes heard.
    public struct Draw: Sendable {
        public var offsets: [String: Double]
        public var powers: [String: Double]
        /// What each node's advert states it transmits at: `powers`, but for a node that misstates it.
        public var statedPowers: [String: Double]
        public var levels: [NodeLink: NodeLinkLevel]
        public var adverts: Int
        /// The node the bad input is about (nil without one): its offset is not expected to be found.
        public var culprit: String?
        /// What the solve should name: nodes, beacons or paths (`a→b`), as its rejections' subjects.
        public var expectedSubjects: [String]
    }

    /// Bad input injected into a draw (issue 55, item 5): what the solve must name and leave out,
    /// each about one node (the culprit) drawn per seed.
    public enum BadInput: String, Sendable, CaseIterable, Codable {
        /// None: the draw as it always was.
        case none
        /// Another site's node beacons heard through the wall by the three nodes nearest it: one
        /// whose id no node of this site names, and one with the culprit's id (another site's node
        /// of the same name, so the same beacon), louder there than the culprit itself.
        case otherSite
        /// The culprit moves halfway through, to halfway towards the node farthest from it: all its
        /// paths change together.
        case moved
        /// The culprit states a power `misstatedPower` dB above what it transmits.
        case wrongPower
        /// The culprit's beacon heard `blockedLoss` dB weaker by one other node, the other way as usual.
        case blockedOneWay
    }

    /// dB the culprit of `wrongPower` overstates its power by.
    public static let misstatedPower = 6.0
    /// dB the blocked direction of `blockedOneWay` loses.
    public static let blockedLoss = 12.0
    /// Metres beyond the nearest node the other site's beacons stand (`otherSite`).
    public static let otherSiteDistance = 3.0

    public var positions: [String: NodePosition]
    public var pathLoss: PathLoss
    /// The part of a path's level not the same both ways, dB (standard deviation; assumed).
    public var asymmetry: Double
    /// Node beacon adverts per second.
    public var rate: Double
    /// Seconds of adverts.
    public var duration: Double
    /// Receiver offsets are drawn from ±this, dB, then less their mean.
    public var offsetRange: Double
    /// Transmit powers are drawn from ±this, dB.
    public var powerRange: Double
    /// Offsets rounded to whole dB: a walk shifted by them needs no rounding.
    public var wholeDecibelOffsets: Bool

    public init(positions: [String: NodePosition], pathLoss: PathLoss, asymmetry: Double = 1, rate: Double = 1,
                duration: Double = 600, offsetRange: Double = 8, powerRange: Double = 3, wholeDecibelOffsets: Bool = false) {
        self.wholeDecibelOffsets = wholeDecibelOffsets
        self.positions = positions
        self.pathLoss = pathLoss
        self.asymmetry = asymmetry
        self.rate = rate
        self.duration = duration
        self.offsetRange = offsetRange
        self.powerRange = powerRange
    }

    /// The receivers of a `danis-receivers.txt` (`Dongles:{"mac": [[x, y, z], colour, "name"], …}`), by name.
    public static func receivers(danisText text: String) throws -> [String: NodePosition] {
        guard let line = text.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("Dongles:") }),
              let object = try JSONSerialization.jsonObject(with: Data(line.dropFirst("Dongles:".count).utf8)) as? [String: [Any]]
        else { throw FitError("no Dongles: line") }
        var result: [String: NodePosition] = [:]
        for entry in object.values {
            guard entry.count >= 3, let place = entry[0] as? [Double], place.count == 3, let name = entry[2] as? String else {
                throw FitError("a receiver without [[x, y, z], colour, name]")
            }
            result[name] = NodePosition(x: place[0], y: place[1], z: place[2])
        }
        return result
    }

    /// Draws offsets, powers, each path's shadowing and each direction's adverts for `duration`
    /// seconds, seeded, and collects them as the aggregator would. `badInput` adds what the solve
    /// must reject, drawn apart so that the rest of the draw is the same as without it.
    public func draw(seed: UInt64, badInput: BadInput = .none) -> Draw {
        var random = SeededDraws(seed: seed)
        var bad = SeededDraws(seed: seed ^ SeededDraws.seed("bad input"))
        let nodes = positions.keys.sorted()
        var offsets: [String: Double] = [:], powers: [String: Double] = [:]
        for node in nodes {
            offsets[node] = random.uniform(in: -offsetRange...offsetRange)
            powers[node] = random.uniform(in: -powerRange...powerRange)
        }
        // Offsets against the site's mean receiver: a site-wide level is the measured power's to
        // set, and a calibration centred on the site's mean leaves it where it is.
        let mean = offsets.values.reduce(0, +) / Double(max(1, offsets.count))
        offsets = offsets.mapValues { wholeDecibelOffsets ? ($0 - mean).rounded() : $0 - mean }
        let scene = Scene(badInput: badInput, nodes: nodes, positions: positions, random: &bad)
        var stated = powers
        if badInput == .wrongPower, let culprit = scene.culprit { stated[culprit]! += Self.misstatedPower }
        var collector = NodeLevelCollector(window: duration)
        var adverts = 0
        let count = Int((duration * rate).rounded(.down))
        func loss(_ length: Double, shadowing: Double) -> Double {
            -pathLoss.measuredPower + 10 * pathLoss.exponent * log10(max(length, 0.1)) + shadowing
        }
        func hear(_ from: String, _ to: String, level: (Double) -> Double, random: inout SeededDraws) {
            let noise = pathLoss.noise[Int(random.unit() * Double(pathLoss.noise.count))]
            for k in 0..<count {
                let time = (Double(k) + random.unit()) / rate
                let rssi = (level(time) + noise * random.gaussian()).rounded()
                collector.add(NodeLevelSample(transmitter: from, receiver: to, rssi: rssi, time: Instant(seconds: time)))
                adverts += 1
            }
        }
        for a in nodes {
            for b in nodes where a < b {
                let before = loss(positions[a]!.distance(to: positions[b]!), shadowing: pathLoss.shadowing * random.gaussian())
                // A moved culprit's paths from its new place, with their own shadowing, from halfway.
                var after = before
                if let moved = scene.movedTo, let culprit = scene.culprit, a == culprit || b == culprit {
                    after = loss(moved.distance(to: positions[a == culprit ? b : a]!), shadowing: pathLoss.shadowing * bad.gaussian())
                }
                for (from, to) in [(a, b), (b, a)] {
                    let asymmetric = asymmetry * random.gaussian()
                    let blocked = scene.blocked == NodeLink(transmitter: from, receiver: to) ? Self.blockedLoss : 0
                    let (early, late) = (powers[from]! + offsets[to]! - before + asymmetric - blocked,
                                         powers[from]! + offsets[to]! - after + asymmetric - blocked)
                    hear(from, to, level: { $0 < duration / 2 ? early : late }, random: &random)
                }
            }
        }
        // The other site's beacons, heard only by this site's nodes nearest its wall.
        for (beacon, place) in scene.otherSite {
            for receiver in scene.wallNodes {
                let level = bad.uniform(in: -powerRange...powerRange) + offsets[receiver]!
                    - loss(place.distance(to: positions[receiver]!), shadowing: pathLoss.shadowing * bad.gaussian())
                hear(beacon, receiver, level: { _ in level }, random: &bad)
            }
        }
        return Draw(offsets: offsets, powers: powers, statedPowers: stated, levels: collector.levels(at: Instant(seconds: duration)),
                    adverts: adverts, culprit: scene.culprit, expectedSubjects: scene.expectedSubjects)
    }

    /// Where the bad input of a draw is: its culprit and what goes with it.
    struct Scene {
        var culprit: String?
        var movedTo: NodePosition?
        var blocked: NodeLink?
        /// The other site's beacons (transmitter as the solve sees it) and where they stand.
        var otherSite: [(String, NodePosition)] = []
        var wallNodes: [String] = []
        var expectedSubjects: [String] = []

        init(badInput: BadInput, nodes: [String], positions: [String: NodePosition], random: inout SeededDraws) {
            guard badInput != .none, nodes.count >= 4 else { return }
            let culprit = nodes[min(nodes.count - 1, Int(random.unit() * Double(nodes.count)))]
            let place = positions[culprit]!
            switch badInput {
            case .none: return
            case .moved:
                let farthest = nodes.max { place.distance(to: positions[$0]!) < place.distance(to: positions[$1]!) }!
                let there = positions[farthest]!
                movedTo = NodePosition(x: (place.x + there.x) / 2, y: (place.y + there.y) / 2, z: place.z)
                expectedSubjects = [culprit]
            case .wrongPower:
                expectedSubjects = [culprit]
            case .blockedOneWay:
                let others = nodes.filter { $0 != culprit }
                let receiver = others[min(others.count - 1, Int(random.unit() * Double(others.count)))]
                blocked = NodeLink(transmitter: culprit, receiver: receiver)
                expectedSubjects = [blocked!.description]
            case .otherSite:
                // The wall farthest from the culprit, on x: its twin next door is louder there than it.
                let xs = nodes.map { positions[$0]!.x }
                let east = abs(xs.max()! - place.x) > abs(xs.min()! - place.x)
                let order = nodes.filter { $0 != culprit }.sorted { (positions[$0]!.x < positions[$1]!.x) != east }
                wallNodes = Array(order.prefix(3))
                let wallX = east ? xs.max()! + NodeCalibrationSimulation.otherSiteDistance : xs.min()! - NodeCalibrationSimulation.otherSiteDistance
                let y = wallNodes.map { positions[$0]!.y }.reduce(0, +) / Double(wallNodes.count)
                let stranger = NodeBeacon(node: "next-door").id.rawValue
                otherSite = [(stranger, NodePosition(x: wallX, y: y - 2, z: place.z)), (culprit, NodePosition(x: wallX, y: y + 2, z: place.z))]
                expectedSubjects = [stranger, culprit]
            }
            self.culprit = culprit
        }
    }

    /// RMS of the solved offsets against the injected ones, both centred (the site's level is not
    /// the solve's to find), over the nodes solved; nil when none was.
    public static func offsetError(_ solved: NodeCalibration, injected: [String: Double], confidentOnly: Bool = false) -> Double? {
        let nodes = injected.keys.filter { solved.nodes[$0].map { !confidentOnly || $0.confident } ?? false }
        guard !nodes.isEmpty else { return nil }
        let injectedMean = nodes.map { injected[$0]! }.reduce(0, +) / Double(nodes.count)
        let solvedMean = nodes.map { solved.nodes[$0]!.offset }.reduce(0, +) / Double(nodes.count)
        let squares = nodes.map { node in
            let error = (solved.nodes[node]!.offset - solvedMean) - (injected[node]! - injectedMean)
            return error * error
        }
        return (squares.reduce(0, +) / Double(nodes.count)).squareRoot()
    }

    /// `samples` as receivers reading `offsets` above what was recorded would have heard them
    /// (each reading rounded to whole dB, as a controller reports).
    public static func shifted(_ samples: [TraceSample], by offsets: [String: Double]) -> [TraceSample] {
        samples.map { sample in
            var shifted = sample
            shifted.rssi = Int((Double(sample.rssi) + (offsets[sample.node] ?? 0)).rounded())
            return shifted
        }
    }
}
