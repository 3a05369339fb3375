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
///
/// A confident offset is applied once, in one place (`application(for:)`): an agent whose info says
/// which offset it measures with (`rssiOffsetSource`) is pushed it (`takePushes`) and corrects its
/// own distances, so the aggregator takes nothing off its measurements; an operator's `rssiOffset`
/// wins, and the solved one is neither pushed nor applied; any other node (an older agent, an
/// ESPresense node, a gateway) is corrected at the aggregator's input.
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
    /// What each of our agents says it measures with (its info's `rssiOffset` and `rssiOffsetSource`).
    private var agentOffsets: [String: (value: Double, source: RSSIOffsetSource)] = [:]
    /// The offset pushed to each node since start, rounded as it was sent.
    private var pushed: [String: Double] = [:]

    /// dB a node's solved offset must move from the one it was pushed (or says it applies) before
    /// it is pushed again. Each push restarts the node's tracks, and a solve moves by a few tenths
    /// of a dB from minute to minute within its standard error (at most 1 dB when confident) while
    /// a controller reads whole dB: half a dB is a move of the receiver, not of the solve's noise.
    public static let pushStep = 0.5

    /// Where a confident offset is applied (`<root>/calibration`'s `nodes.<node>.applied`).
    public enum Application: Hashable, Sendable {
        /// Pushed to the node's agent, which measures with it.
        case agent
        /// Taken off the node's measurements at the aggregator's input: a node that cannot be told.
        case aggregator
        /// The operator's own offset (this value, dB) wins: the solved one is neither pushed nor applied.
        case `operator`(Double)
    }

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

    /// The offset to take off `node`'s measurements, dB: its confident one when it is applied at
    /// the aggregator's input (`application(for:)`), else nil.
    public func offset(for node: String) -> Double? {
        guard let entry = calibration?.nodes[node], entry.confident, application(for: node) == .aggregator else { return nil }
        return entry.offset
    }

    /// Where `node`'s confident offset is applied; nil while it has none. An agent that says which
    /// offset it measures with takes the solved one (or keeps the operator's); a node that says
    /// nothing is corrected at the input.
    public func application(for node: String) -> Application? {
        guard calibration?.nodes[node]?.confident == true else { return nil }
        switch agentOffsets[node]?.source {
        case .operator?: return .operator(agentOffsets[node]!.value)
        case .calibration?, .none?: return .agent
        case nil: return .aggregator
        }
    }

    /// Every confident node's application, for the payload.
    public var applications: [String: Application] {
        var out: [String: Application] = [:]
        for (node, entry) in calibration?.nodes ?? [:] where entry.confident { out[node] = application(for: node) }
        return out
    }

    /// `node`'s info said which offset it measures with (nil: it says nothing, or was retired).
    public mutating func learn(node: String, measuresWith offset: (value: Double, source: RSSIOffsetSource)?) {
        agentOffsets[node] = offset
    }

    /// The `PushedCalibration` messages due, by node: each agent that takes a calibration and
    /// whose confident offset moved `pushStep` or more from what it was pushed (or, after a
    /// restart, says it applies); never an offset that is not confident, never over the operator's.
    public mutating func takePushes() -> [(node: String, offset: Double, standardError: Double)] {
        guard let calibration else { return [] }
        var out: [(node: String, offset: Double, standardError: Double)] = []
        for (node, applied) in agentOffsets.sorted(by: { $0.key < $1.key }) where applied.source != .operator {
            guard let entry = calibration.nodes[node], entry.confident, NodeSettings.Limits.rssiOffset.contains(entry.offset) else { continue }
            let reference = pushed[node] ?? (applied.source == .calibration ? applied.value : nil)
            if let reference, abs(entry.offset - reference) < Self.pushStep { continue }
            let offset = (entry.offset * 10).rounded() / 10
            pushed[node] = offset
            out.append((node, offset, entry.standardError))
        }
        return out
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
