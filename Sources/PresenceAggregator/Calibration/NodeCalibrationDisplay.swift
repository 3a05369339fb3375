import RoomDecisions

/// One node's calibration in words, as `watch` and `check-config` show it: the offset the solve
/// found and whether the aggregator applies it, and why not. One wording for both, so an operator
/// reads the same thing wherever they look.
public struct NodeCalibrationDisplay: Sendable, Hashable {
    /// The solved offset, `+3.1 dB`; nil when the solve has no offset for the node.
    public var offset: String?
    /// `applied (±0.4 dB, 5 paths)`, `not applied: <why>`, `not solved: <why>`.
    public var state: String
    /// True when the aggregator takes the offset off the node's measurements.
    public var applied: Bool

    /// What `calibration` says of `node`; nil when it does not name the node at all (a node whose
    /// beacon was not heard yet, or one that advertises none).
    public init?(node: String, in calibration: NodeCalibration) {
        if let entry = calibration.nodes[node] {
            offset = Self.decibels(entry.offset)
            applied = entry.confident
            state = entry.confident
                ? "applied (±\(Self.decibels(entry.standardError, signed: false)), \(entry.pairs) path\(entry.pairs == 1 ? "" : "s"))"
                : "not applied: \(Self.oneLine(entry.reason ?? "not confident"))"
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
