import BeaconCore
import RoomDecisions

/// The aggregator's side of the node calibration, without I/O: measurements of node beacons go in
/// (`receive`), a solve comes out once a `solveInterval` (`solveIfDue`), and each node's confident
/// offset is what the room decision takes off its measurements (`offset(for:)`).
///
/// Which beacon is which node's comes from `nodeBeacons` (the aggregator's configuration, until the
/// agents' `info` names their node beacon). A solve keeps what it is not sure of apart: a node
/// whose new offset is not confident keeps its last confident one: a receiver's offset is its
/// hardware's, and does not change when the node moves or its paths are blocked.
public struct NodeCalibrationState: Sendable {
    /// Each node beacon's node.
    public var nodeBeacons: [BeaconID: String]
    public var parameters: NodeCalibrationParameters
    /// Seconds between solves.
    public var solveInterval: Double
    /// The last calibration solved or restored (`NodeCalibrationFile`); nil before either.
    public private(set) var calibration: NodeCalibration?
    private var collector: NodeLevelCollector
    private var statedPower: [String: Double] = [:]
    private var lastSolve: Instant?

    public init(nodeBeacons: [BeaconID: String], restored: NodeCalibration? = nil,
                parameters: NodeCalibrationParameters = .default, solveInterval: Double = 60) {
        self.nodeBeacons = nodeBeacons
        self.parameters = parameters
        self.solveInterval = solveInterval
        calibration = restored
        collector = NodeLevelCollector(window: parameters.window)
    }

    /// Folds in a measurement; true when it is of a node beacon (then it is calibration's, not a
    /// beacon to place in a room).
    public mutating func receive(_ measurement: ReceivedMeasurement, at time: Instant) -> Bool {
        guard let transmitter = nodeBeacons[measurement.beacon] else { return false }
        guard !measurement.isSilence, let level = measurement.rssiFiltered ?? measurement.rssi else { return true }
        collector.add(NodeLevelSample(transmitter: transmitter, receiver: measurement.node, rssi: level, time: time))
        if let power = measurement.measuredPower, power.isFinite { statedPower[transmitter] = power }
        return true
    }

    /// A new calibration when one is due (every `solveInterval`), merged with the last; nil otherwise.
    public mutating func solveIfDue(at time: Instant) -> NodeCalibration? {
        if let lastSolve, time.since(lastSolve) < solveInterval { return nil }
        lastSolve = time
        let nodes = Set(nodeBeacons.values)
        var solved = NodeCalibrationSolver.solve(levels: collector.levels(at: time), nodes: nodes, statedPower: statedPower,
                                                 parameters: parameters, at: time)
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
