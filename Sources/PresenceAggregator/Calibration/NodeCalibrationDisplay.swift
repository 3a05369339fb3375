import RoomDecisions

/// One node's calibration in words, as `watch` and `check-config` show it: the offset the solve
/// found and whether the aggregator applies it, and why not. One wording for both, so an operator
/// reads the same thing wherever they look.
public struct NodeCalibrationDisplay: Sendable, Hashable {
    /// The solved offset, `+3.1 dB`; nil when the solve has no offset for the node.
    public var offset: String?
    /// `applied (±0.4 dB, 5 paths)`, `not applied: <why>`, `not solved: <why>`.
    public var state: String
    /// True when the offset corrects the node's measurements.
    public var applied: Bool

    /// Where a confident offset is applied, when the calibration says so per node (`applied`):
    /// `agent` (pushed to the node, which measures with it), `aggregator` (taken off its
    /// measurements on arrival) or `operator` (the operator's own `rssiOffset` wins). Without it,
    /// the aggregator applies every confident offset.
    public struct Application: Sendable, Hashable {
        public var place: String
        /// With `operator`: the operator's offset the node measures with, dB.
        public var operatorOffset: Double?
    }

    /// What `calibration` says of `node`; nil when it does not name the node at all (a node whose
    /// beacon was not heard yet, or one that advertises none).
    public init?(node: String, in calibration: NodeCalibration, application: Application? = nil) {
        if let entry = calibration.nodes[node] {
            offset = Self.decibels(entry.offset)
            let precision = "±\(Self.decibels(entry.standardError, signed: false)), \(entry.pairs) path\(entry.pairs == 1 ? "" : "s")"
            applied = entry.confident && application?.place != "operator"
            state = switch (entry.confident, application?.place) {
            case (false, _): "not applied: \(Self.oneLine(entry.reason ?? "not confident"))"
            case (true, "operator"?):
                "not applied: its own rssiOffset\(application?.operatorOffset.map { " (\(Self.decibels($0)))" } ?? "") wins (\(precision))"
            case (true, "agent"?): "applied by the node (\(precision))"
            case (true, "aggregator"?): "applied by the aggregator (\(precision))"
            case (true, _): "applied (\(precision))"
            }
        } else if let rejection = calibration.rejections.first(where: { $0.subject == node }) {
            offset = nil
            applied = false
            state = "not solved: \(Self.oneLine(rejection.reason))"
        } else {
            return nil
        }
    }

    /// `text` with its control characters (a newline in a payload read from the broker) as spaces.
    public static func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
    }

    /// `+3.1 dB`, `-0.4 dB`, `0.0 dB` (one decimal: finer is below any receiver's resolution).
    public static func decibels(_ value: Double, signed: Bool = true) -> String {
        guard value.isFinite else { return "? dB" }
        let tenths = Int((min(max(value, -9999), 9999) * 10).rounded())
        let sign = tenths > 0 && signed ? "+" : tenths < 0 ? "-" : ""
        return "\(sign)\(abs(tenths) / 10).\(abs(tenths) % 10) dB"
    }
}
