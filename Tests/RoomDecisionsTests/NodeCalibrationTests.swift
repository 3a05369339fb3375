import BeaconCore
import Foundation
import RoomDecisions
import Testing

/// A site of nodes on a grid whose receivers read `offsets` above the truth and transmit at
/// `powers`, every path's loss the same both ways: what the nodes would hear of each other.
private struct SimulatedSite {
    var nodes: [String]
    var offsets: [String: Double]
    var powers: [String: Double]
    var positions: [String: NodePosition]
    var shadow: [String: Double] = [:]

    init(count: Int = 8, seed: UInt64 = 7) {
        var random = SplitMix64(seed: seed)
        nodes = (0..<count).map { "n\($0)" }
        offsets = [:]
        powers = [:]
        positions = [:]
        for (i, node) in nodes.enumerated() {
            offsets[node] = -8 + 16 * random.unit()
            powers[node] = -3 + 6 * random.unit()
            positions[node] = NodePosition(x: Double(i % 4) * 5 + 2 * random.unit(), y: Double(i / 4) * 6 + 2 * random.unit(), z: 2)
        }
        for a in nodes { for b in nodes where a < b { shadow[a + b] = 3 * (random.unit() - 0.5) * 2 } }
    }

    func loss(_ a: String, _ b: String) -> Double {
        60 + 15 * log10(positions[a]!.distance(to: positions[b]!)) + shadow[min(a, b) + max(a, b)]!
    }

    /// Every direction's level, as a collector would give it after ten minutes at 1 advert/s.
    func levels() -> [NodeLink: NodeLinkLevel] {
        var result: [NodeLink: NodeLinkLevel] = [:]
        for a in nodes { for b in nodes where a != b {
            result[NodeLink(transmitter: a, receiver: b)] = NodeLinkLevel(level: powers[a]! + offsets[b]! - loss(a, b), samples: 600)
        } }
        return result
    }

    /// The injected offsets less their mean: what a centred solve can find.
    var centredOffsets: [String: Double] {
        let mean = offsets.values.reduce(0, +) / Double(offsets.count)
        return offsets.mapValues { $0 - mean }
    }
}

private func rms(_ solved: NodeCalibration, _ truth: [String: Double], except: Set<String> = []) -> Double {
    let nodes = truth.keys.filter { !except.contains($0) }
    let mean = nodes.map { truth[$0]! }.reduce(0, +) / Double(nodes.count)
    let errors = nodes.map { (solved.nodes[$0]?.offset ?? .infinity) - (truth[$0]! - mean) }
    let bias = errors.reduce(0, +) / Double(errors.count)
    return (errors.map { ($0 - bias) * ($0 - bias) }.reduce(0, +) / Double(errors.count)).squareRoot()
}

@Suite("Node calibration")
struct NodeCalibrationTests {
    let now = Instant(seconds: 600)

    @Test("recovers every receiver's offset from the paths heard both ways and the powers the nodes state, centred on zero")
    func recoversOffsets() {
        let site = SimulatedSite()
        let solved = NodeCalibrationSolver.solve(levels: site.levels(), nodes: Set(site.nodes), statedPower: site.powers, at: now)
        #expect(solved.basis == .statedPower)
        #expect(solved.rejections.isEmpty)
        for node in site.nodes {
            let offset = try! #require(solved.nodes[node])
            #expect(abs(offset.offset - site.centredOffsets[node]!) < 0.05, "\(node)")
            #expect(offset.confident)
            #expect(offset.pairs == site.nodes.count - 1)
        }
        #expect(abs(solved.nodes.values.map(\.offset).reduce(0, +)) < 1e-6)
        #expect(solved.applicableOffsets.count == site.nodes.count)
    }

    @Test("with positions and no stated power, the floor plan separates power from offset")
    func positionsSeparatePowerFromOffset() {
        var site = SimulatedSite(count: 12)
        site.shadow = site.shadow.mapValues { _ in 0 }
        let solved = NodeCalibrationSolver.solve(levels: site.levels(), nodes: Set(site.nodes), positions: site.positions, at: now)
        #expect(solved.basis == .positions)
        #expect(rms(solved, site.offsets) < 0.05)
    }

    @Test("with neither stated power nor positions, offsets rest on equal powers and are never applied")
    func equalPowerIsNeverApplied() {
        let site = SimulatedSite()
        let solved = NodeCalibrationSolver.solve(levels: site.levels(), nodes: Set(site.nodes), at: now)
        #expect(solved.basis == .equalPower)
        #expect(solved.applicableOffsets.isEmpty)
        #expect(solved.nodes["n0"]?.reason?.contains("assumed to transmit alike") == true)
    }

    @Test("a path blocked one way is rejected by name and the offsets are still found")
    func blockedPath() {
        let site = SimulatedSite()
        var levels = site.levels()
        levels[NodeLink(transmitter: "n2", receiver: "n5")]!.level -= 15
        let solved = NodeCalibrationSolver.solve(levels: levels, nodes: Set(site.nodes), statedPower: site.powers, at: now)
        #expect(solved.rejections.map(\.kind) == [.blockedPath])
        #expect(solved.rejections.first?.subject == "n2→n5")
        #expect(rms(solved, site.offsets) < 0.05)
        #expect(solved.nodes["n2"]?.pairs == site.nodes.count - 2)
    }

    @Test("a node that moved within the window is named and left out; the rest are solved")
    func movedNode() {
        let site = SimulatedSite()
        var levels = site.levels()
        for (link, _) in levels where link.transmitter == "n3" || link.receiver == "n3" { levels[link]!.shift = -7 }
        let solved = NodeCalibrationSolver.solve(levels: levels, nodes: Set(site.nodes), statedPower: site.powers, at: now)
        #expect(solved.rejections.map(\.kind) == [.moved])
        #expect(solved.rejections.first?.subject == "n3")
        #expect(solved.nodes["n3"] == nil)
        #expect(rms(solved, site.offsets, except: ["n3"]) < 0.05)
    }

    @Test("a node beacon that no node of the site claims is named as an outsider and not used")
    func outsiderBeacon() {
        let site = SimulatedSite()
        var levels = site.levels()
        for receiver in ["n0", "n1", "n4"] {
            levels[NodeLink(transmitter: "ibeacon-next-door", receiver: receiver)] = NodeLinkLevel(level: -95, samples: 300)
        }
        let solved = NodeCalibrationSolver.solve(levels: levels, nodes: Set(site.nodes), statedPower: site.powers, at: now)
        #expect(solved.rejections.map(\.kind) == [.outsider])
        #expect(solved.rejections.first?.subject == "ibeacon-next-door")
        #expect(solved.rejections.first?.reason.contains("heard by 3 node(s)") == true)
        #expect(rms(solved, site.offsets) < 0.05)
    }

    @Test("a node that states the wrong power: the floor plan names it and its offset comes from the positions")
    func lyingNode() {
        var site = SimulatedSite(count: 12)
        site.shadow = site.shadow.mapValues { $0 / 3 }
        var stated = site.powers
        stated["n6"]! += 8
        let solved = NodeCalibrationSolver.solve(levels: site.levels(), nodes: Set(site.nodes), statedPower: stated,
                                                 positions: site.positions, at: now)
        #expect(solved.rejections.map(\.kind) == [.powerMismatch])
        #expect(solved.rejections.first?.subject == "n6")
        #expect(solved.rejections.first?.reason.contains("below the power it states") == true)
        #expect(abs(solved.nodes["n6"]!.offset - site.centredOffsets["n6"]!) < 1)
        #expect(solved.nodes["n6"]?.confident == false)
        #expect(solved.nodes["n6"]?.reason?.contains("does not transmit the power it states") == true)
        #expect(solved.applicableOffsets["n6"] == nil)
        // Without the positions nothing can tell: the lie goes into its offset (the article says so).
        let blind = NodeCalibrationSolver.solve(levels: site.levels(), nodes: Set(site.nodes), statedPower: stated, at: now)
        #expect(blind.rejections.isEmpty)
    }

    @Test("four nodes heard alike both ways but one direction 12 dB down: that direction is named, blocked one way, and every offset still applied")
    func handMadeBlockedPath() {
        let nodes = ["a", "b", "c", "d"]
        var levels: [NodeLink: NodeLinkLevel] = [:]
        for t in nodes { for r in nodes where t != r { levels[NodeLink(transmitter: t, receiver: r)] = NodeLinkLevel(level: -70, samples: 600) } }
        levels[NodeLink(transmitter: "c", receiver: "a")] = NodeLinkLevel(level: -82, samples: 600)
        let solved = NodeCalibrationSolver.solve(levels: levels, nodes: Set(nodes), statedPower: ["a": 0, "b": 0, "c": 0, "d": 0], at: now)
        #expect(solved.rejections.map(\.kind) == [.blockedPath])
        #expect(solved.rejections.first?.subject == "c→a")
        let reason = solved.rejections.first?.reason ?? ""
        #expect(reason.contains(" dB weaker than the other way round"))
        #expect((Double(reason.prefix { $0 != " " }) ?? 0) > 10, "\(reason)")
        #expect(solved.applicableOffsets.count == 4)
        #expect(solved.nodes.values.allSatisfy { abs($0.offset) < 0.1 })
    }

    @Test("six nodes, and one's beacon heard 10 dB louder by two of them (another site's node of its name beside them): it is named implausible and its offset not applied")
    func handMadeImplausibleNode() {
        let nodes = ["a", "b", "c", "d", "e", "f"]
        var levels: [NodeLink: NodeLinkLevel] = [:]
        for t in nodes { for r in nodes where t != r { levels[NodeLink(transmitter: t, receiver: r)] = NodeLinkLevel(level: -75, samples: 600) } }
        levels[NodeLink(transmitter: "b", receiver: "d")]!.level = -65
        levels[NodeLink(transmitter: "b", receiver: "e")]!.level = -65
        let solved = NodeCalibrationSolver.solve(levels: levels, nodes: Set(nodes), statedPower: Dictionary(uniqueKeysWithValues: nodes.map { ($0, 0.0) }), at: now)
        #expect(solved.rejections.filter { $0.kind == .blockedPath }.map(\.subject).sorted() == ["d→b", "e→b"])
        let named = solved.rejections.filter { $0.kind == .implausible }
        #expect(named.map(\.subject) == ["b"])
        #expect(named.first?.reason.hasPrefix("2 of its paths do not fit the rest") == true)
        #expect(solved.nodes["b"]?.confident == false)
        #expect(solved.nodes["b"]?.reason == "2 of its paths do not fit the rest")
        #expect(Set(solved.applicableOffsets.keys) == ["a", "c", "d", "e", "f"])
        #expect(solved.applicableOffsets.values.allSatisfy { abs($0) < 0.1 })
    }

    @Test("four nodes, and one's paths all shifted 6 dB within the window: it is named moved and left out, the rest solved")
    func handMadeMovedNode() {
        let nodes = ["a", "b", "c", "d"]
        var levels: [NodeLink: NodeLinkLevel] = [:]
        for t in nodes { for r in nodes where t != r {
            levels[NodeLink(transmitter: t, receiver: r)] = NodeLinkLevel(level: -70, samples: 600, shift: t == "d" || r == "d" ? -6 : 0.5)
        } }
        let solved = NodeCalibrationSolver.solve(levels: levels, nodes: Set(nodes), statedPower: ["a": 0, "b": 0, "c": 0, "d": 0], at: now)
        #expect(solved.rejections.map(\.kind) == [.moved])
        #expect(solved.rejections.first?.subject == "d")
        #expect(solved.rejections.first?.reason.hasPrefix("moved: most of its paths' levels shifted by a median 6.0 dB") == true)
        #expect(solved.nodes["d"] == nil)
        #expect(Set(solved.applicableOffsets.keys) == ["a", "b", "c"])
    }

    @Test("a node with a single path heard both ways is not confident")
    func tooFewPairs() {
        let site = SimulatedSite(count: 4)
        let levels = site.levels().filter { link, _ in
            !(link.transmitter == "n3" || link.receiver == "n3") || link.transmitter == "n0" || link.receiver == "n0"
        }
        let solved = NodeCalibrationSolver.solve(levels: levels, nodes: Set(site.nodes), statedPower: site.powers, at: now)
        #expect(solved.nodes["n3"]?.pairs == 1)
        #expect(solved.nodes["n3"]?.confident == false)
        #expect(solved.applicableOffsets["n3"] == nil)
        #expect(solved.nodes["n0"]?.confident == true)
    }

    @Test("ten minutes of noisy adverts at one a second, collected and smoothed, give the offsets within a decibel")
    func convergesInTenMinutes() {
        let site = SimulatedSite(count: 8, seed: 11)
        var collector = NodeLevelCollector()
        var random = SplitMix64(seed: 3)
        for second in 0..<600 {
            for a in site.nodes { for b in site.nodes where a != b {
                let noise = (random.unit() + random.unit() + random.unit() - 1.5) * 4 // 2 dB sd
                let rssi = (site.powers[a]! + site.offsets[b]! - site.loss(a, b) + noise).rounded()
                collector.add(NodeLevelSample(transmitter: a, receiver: b, rssi: rssi, time: Instant(seconds: Double(second) + random.unit())))
            } }
        }
        let levels = collector.levels(at: Instant(seconds: 600))
        #expect(levels.count == 56)
        #expect(levels.values.allSatisfy { $0.samples >= 590 && abs($0.shift) < 2 })
        let solved = NodeCalibrationSolver.solve(levels: levels, nodes: Set(site.nodes), statedPower: site.powers, at: now)
        #expect(solved.rejections.isEmpty)
        #expect(rms(solved, site.offsets) < 1)
        #expect(solved.applicableOffsets.count == 8)
    }

    @Test("the collector forgets adverts older than its window and sees a level that moved")
    func collectorWindow() {
        var collector = NodeLevelCollector(window: 600)
        for second in 0..<1200 {
            let rssi = second < 900 ? -70.0 : -80
            collector.add(NodeLevelSample(transmitter: "a", receiver: "b", rssi: rssi, time: Instant(seconds: Double(second))))
        }
        let level = collector.levels(at: Instant(seconds: 1200))[NodeLink(transmitter: "a", receiver: "b")]!
        #expect(level.samples <= 610)
        #expect(level.shift == -10)
        #expect(level.level == -75 || level.level == -80 || level.level == -70)
        collector.add(NodeLevelSample(transmitter: "a", receiver: "a", rssi: -40, time: Instant(seconds: 1200)))
        #expect(collector.levels(at: Instant(seconds: 1200)).count == 1)
    }

    @Test("a corrected measurement reads the offset lower, and its distance grows to match")
    func correctedEvidence() {
        let measured = NodeEvidence(beacon: "keys", node: "k", room: "kitchen", rssiFiltered: -70, sigma: 1, distance: 2,
                                    proximity: .near, rssi: -68)
        let corrected = measured.correctedForReceiverOffset(3, pathLossExponent: 1.5)
        #expect(corrected.rssiFiltered == -73)
        #expect(corrected.rssi == -71)
        #expect(abs(corrected.distance! - 2 * pow(10, 3 / 15.0)) < 1e-9)
        #expect(measured.correctedForReceiverOffset(.nan, pathLossExponent: 1.5) == measured)
    }
}
