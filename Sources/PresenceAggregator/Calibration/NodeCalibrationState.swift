import BeaconCore
import RoomDecisions

/// The aggregator's side of the node calibration, without I/O: measurements of node beacons go in
/// (`receive`), a solve comes out once a `solveInterval` (`solveIfDue`), and each node's confident
/// offset is what the room decision takes off its measurements (`offset(for:)`).
///
/// Which beacon is which node's comes from each node's retained `info` (`nodeBeacon.id`,
/// `learn(node:beacon:)`) merged with the operator's `nodeBeacons` (`configured`), which wins
/// where both name a node or a beacon. Any beacon with the node beacons' uuid
/// (`NodeBeacon.isNodeBeacon`) is calibration's too, claimed or not: one no node of the site
/// claims is another site's, named an outsider by the solve. A solve keeps what it is not sure of
/// apart: a node whose new offset is not confident keeps its last confident one: a receiver's
/// offset is its hardware's, and does not change when the node moves or its paths are blocked.
public struct NodeCalibrationState: Sendable {
    /// Each node beacon's node: `configured` merged with what the nodes' info named.
    public private(set) var nodeBeacons: [BeaconID: String]
    /// The operator's node → beacon (`AggregatorConfiguration.nodeBeacons`).
    public let configured: [String: BeaconID]
    /// Node → beacon, as each node's info named it.
    private var named: [String: BeaconID] = [:]
    public var parameters: NodeCalibrationParameters
    /// Seconds between solves.
    public var solveInterval: Double
    /// The last calibration solved or restored (`NodeCalibrationFile`); nil before either.
    public private(set) var calibration: NodeCalibration?
    private var collector: NodeLevelCollector
    private var statedPower: [String: Double] = [:]
    private var lastSolve: Instant?
    /// Whether any node beacon was heard: until then (and with none named) there is nothing to solve or publish.
    private var heardNodeBeacon = false

    public init(configured: [String: BeaconID] = [:], restored: NodeCalibration? = nil,
                parameters: NodeCalibrationParameters = .default, solveInterval: Double = 60) {
        self.configured = configured
        self.parameters = parameters
        self.solveInterval = solveInterval
        calibration = restored
        collector = NodeLevelCollector(window: parameters.window)
        nodeBeacons = [:]
        merge()
    }

    /// Starts from a calibration kept across a restart: its confident offsets apply at once.
    public mutating func restore(_ kept: NodeCalibration) {
        calibration = kept
    }

    /// `node`'s info named `beacon` as its node beacon (nil: it names none, or the node was
    /// retired). True when which beacon is which node's changed.
    @discardableResult
    public mutating func learn(node: String, beacon: BeaconID?) -> Bool {
        guard named[node] != beacon else { return false }
        named[node] = beacon
        let before = nodeBeacons
        merge()
        return nodeBeacons != before
    }

    /// `nodeBeacons` from `configured` and `named`: the configuration's entries first, then each
    /// named one whose node and beacon the configuration leaves free (a beacon two infos name
    /// stays with the node first in order).
    private mutating func merge() {
        var merged = Dictionary(configured.map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        for (node, beacon) in named.sorted(by: { $0.key < $1.key }) where configured[node] == nil && merged[beacon] == nil {
            merged[beacon] = node
        }
        nodeBeacons = merged
    }

    /// Folds in a measurement; true when it is of a node beacon, named or with the node beacons'
    /// uuid (then it is calibration's, not a beacon to place in a room).
    public mutating func receive(_ measurement: ReceivedMeasurement, at time: Instant) -> Bool {
        let transmitter: String
        // Every measurement passes here: a site with no node beacon named pays no hashing.
        if !nodeBeacons.isEmpty, let node = nodeBeacons[measurement.beacon] {
            transmitter = node
        } else if NodeBeacon.isNodeBeacon(measurement.beacon) {
            // Another site's (or a node not yet named): the solve names it an outsider.
            transmitter = measurement.beacon.rawValue
        } else {
            return false
        }
        heardNodeBeacon = true
        guard !measurement.isSilence, let level = measurement.rssiFiltered ?? measurement.rssi else { return true }
        collector.add(NodeLevelSample(transmitter: transmitter, receiver: measurement.node, rssi: level, time: time))
        if let power = measurement.measuredPower, power.isFinite { statedPower[transmitter] = power }
        return true
    }

    /// A new calibration when one is due (every `solveInterval`), merged with the last; nil
    /// otherwise, and while no node beacon is named or heard.
    public mutating func solveIfDue(at time: Instant) -> NodeCalibration? {
        guard heardNodeBeacon || !nodeBeacons.isEmpty else { return nil }
        if let lastSolve, time.since(lastSolve) < solveInterval { return nil }
        lastSolve = time
        let nodes = Set(nodeBeacons.values)
        var solved = NodeCalibrationSolver.solve(levels: claimed(collector.levels(at: time)), nodes: nodes,
                                                 statedPower: claimed(statedPower), parameters: parameters, at: time)
        if let previous = calibration {
            for (node, kept) in previous.nodes where kept.confident && solved.nodes[node]?.confident != true {
                var entry = kept
                entry.reason = nil
                solved.nodes[node] = entry
            }
        }
        calibration = solved
        return solved
    }

    /// What was heard of a node's beacon before its node's info named it (filed under the beacon's
    /// id) as that node's, where nothing is filed under the node yet: else the site's own node
    /// would be named an outsider for a window after it started.
    private func claimed(_ levels: [NodeLink: NodeLinkLevel]) -> [NodeLink: NodeLinkLevel] {
        guard !nodeBeacons.isEmpty else { return levels }
        var result = levels
        for (link, level) in levels {
            guard let node = nodeBeacons[BeaconID(rawValue: link.transmitter)] else { continue }
            result[link] = nil
            let renamed = NodeLink(transmitter: node, receiver: link.receiver)
            if levels[renamed] == nil { result[renamed] = level }
        }
        return result
    }

    private func claimed(_ powers: [String: Double]) -> [String: Double] {
        var result = powers
        for (transmitter, power) in powers {
            guard let node = nodeBeacons[BeaconID(rawValue: transmitter)] else { continue }
            result[transmitter] = nil
            if powers[node] == nil { result[node] = power }
        }
        return result
    }

    /// The offset to take off `node`'s measurements, dB: its confident one, else nil.
    public func offset(for node: String) -> Double? {
        guard let entry = calibration?.nodes[node], entry.confident else { return nil }
        return entry.offset
    }
}

extension ReceivedMeasurement {
    /// This measurement as a receiver reading `offset` dB less would have made it
    /// (`NodeEvidence.correctedForReceiverOffset`): levels lowered, distance lengthened with the
    /// decision's path-loss exponent.
    public func correctedForReceiverOffset(_ offset: Double, pathLossExponent: Double) -> ReceivedMeasurement {
        guard offset.isFinite, offset != 0 else { return self }
        let evidence = self.evidence.correctedForReceiverOffset(offset, pathLossExponent: pathLossExponent)
        var corrected = self
        corrected.rssiFiltered = rssiFiltered.map { $0 - offset }
        corrected.rssi = evidence.rssi
        corrected.distance = isSilence ? distance : evidence.distance
        return corrected
    }
}
