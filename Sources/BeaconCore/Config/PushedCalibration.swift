/// The `<root>/nodes/<node>/calibration` message: the receiver offset the aggregator solved for one
/// node from what the nodes hear of each other's node beacons (docs/MQTT.md), pushed once it is
/// confident so that the node's own distances and proximity are calibrated.
///
/// `{"rssiOffset":-3.1,"standardError":0.4,"solvedAt":"2026-12-08T01:00:00.000Z"}`
///
/// It sits beneath the operator's settings: an `rssiOffset` the operator set (the agent's file or
/// its `<root>/nodes/<node>/config`) wins over it. The aggregator writes it, not a person, so keys
/// this reader does not know are left alone (a newer aggregator may add some); `rssiOffset` is
/// required and checked against the range an operator's would be.
public struct PushedCalibration: Hashable, Sendable {
    /// dB added to the measured power, as the operator's `rssiOffset`.
    public var rssiOffset: Double
    /// The solve's standard error of that offset, dB, when given.
    public var standardError: Double?

    public init(rssiOffset: Double, standardError: Double? = nil) {
        self.rssiOffset = rssiOffset
        self.standardError = standardError
    }

    /// Parses a payload; `.cleared` for the empty one. The error names the field.
    public static func parse(_ payload: [UInt8]) throws(ConfigError) -> ConfigPayload<PushedCalibration> {
        if payload.isEmpty { return .cleared }
        let reader = try JSONFieldReader(try JSONParser.parse(payload, maximumBytes: 4096), at: .root)
        let offset = try reader.number(try reader.required("rssiOffset"), key: "rssiOffset", in: NodeSettings.Limits.rssiOffset)
        return .replaced(PushedCalibration(rssiOffset: offset, standardError: try reader.optionalNumber("standardError", in: 0...100)))
    }

    /// The message for `offset` (rounded to 0.1 dB: finer is below any solve's error), solved at `solvedAt`.
    public static func json(offset: Double, standardError: Double, solvedAt: Instant) -> String {
        var object = JSONObjectWriter()
        object.add("rssiOffset", offset, decimals: 1)
        object.add("standardError", standardError, decimals: 2)
        object.add("solvedAt", ISO8601Timestamp.string(from: solvedAt))
        return object.json
    }
}

/// Whose `rssiOffset` an agent measures with, as its info says (`rssiOffsetSource`): the aggregator
/// reads it to apply a solved offset once, at the agent or at its own input.
public enum RSSIOffsetSource: String, Hashable, Sendable {
    /// The operator's: the agent's file (`tracking.rssiOffset`) or its node config. It wins.
    case `operator`
    /// The aggregator's, solved from the nodes' node beacons (`<root>/nodes/<node>/calibration`).
    case calibration
    /// None was set: the default, 0 dB.
    case none
}
