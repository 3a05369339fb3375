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
        public var levels: [NodeLink: NodeLinkLevel]
        public var adverts: Int
    }

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
    /// seconds, seeded, and collects them as the aggregator would.
    public func draw(seed: UInt64) -> Draw {
        var random = SeededDraws(seed: seed)
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
        var collector = NodeLevelCollector(window: duration)
        var adverts = 0
        for a in nodes {
            for b in nodes where a < b {
                let length = max(positions[a]!.distance(to: positions[b]!), 0.1)
                let loss = -pathLoss.measuredPower + 10 * pathLoss.exponent * log10(length) + pathLoss.shadowing * random.gaussian()
                for (from, to) in [(a, b), (b, a)] {
                    let level = powers[from]! + offsets[to]! - loss + asymmetry * random.gaussian()
                    let noise = pathLoss.noise[Int(random.unit() * Double(pathLoss.noise.count))]
                    let count = Int((duration * rate).rounded(.down))
                    for k in 0..<count {
                        let time = (Double(k) + random.unit()) / rate
                        let rssi = (level + noise * random.gaussian()).rounded()
                        collector.add(NodeLevelSample(transmitter: from, receiver: to, rssi: rssi, time: Instant(seconds: time)))
                        adverts += 1
                    }
                }
            }
        }
        return Draw(offsets: offsets, powers: powers, levels: collector.levels(at: Instant(seconds: duration)), adverts: adverts)
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
