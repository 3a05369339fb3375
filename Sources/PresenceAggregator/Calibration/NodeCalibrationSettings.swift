import BeaconCore
import ConfigFile
import RoomDecisions

/// What `check-config` shows of the node calibration: the calibration kept in the state directory
/// (`NodeCalibrationFile`), which the aggregator applies from its start, and per node the offset
/// it applies and why (`NodeCalibrationDisplay`), so an operator sees before deploying which nodes
/// calibrate themselves and which need an `rssiOffset` by hand.
public enum NodeCalibrationSettings {
    /// One row for the calibration (when it was solved, how many of its offsets apply), then one
    /// per node, `calibration.<node>`, sorted; each sourced from the file. `kept` is what loading
    /// the file at `path` gave: nil when there is none yet.
    public static func rows(_ kept: Result<NodeCalibration?, NodeCalibrationFile.Failure>, path: String) -> [EffectiveSetting] {
        let source = SettingSource.kept(path: path)
        let calibration: NodeCalibration
        switch kept {
        case .failure(let failure):
            return [EffectiveSetting(key: "calibration", value: "(unreadable here: \(failure.reason))", source: source)]
        case .success(nil):
            return [EffectiveSetting(
                key: "calibration", value: "(none yet: solved once the nodes have heard each other's beacons for a few minutes)",
                source: source)]
        case .success(let solved?):
            calibration = solved
        }
        let applied = calibration.nodes.values.filter(\.confident).count
        var rows = [EffectiveSetting(
            key: "calibration",
            value: "solved \(ISO8601Timestamp.string(from: calibration.solvedAt)): \(applied) of \(calibration.nodes.count) "
                + "node offsets applied, unless a node's own rssiOffset wins (basis \(calibration.basis.rawValue))",
            source: source)]
        // Nodes the solve left out are named in its rejections (an outsider is a beacon, a blocked path two nodes).
        let leftOut = calibration.rejections.filter { $0.kind == .isolated || $0.kind == .moved }.map(\.subject)
        let named = Set(calibration.nodes.keys).union(leftOut)
        for node in named.sorted() {
            guard let shown = NodeCalibrationDisplay(node: node, in: calibration) else { continue }
            rows.append(EffectiveSetting(key: "calibration.\(node)", value: "\(shown.offset ?? "-") \(shown.state)", source: source))
        }
        return rows
    }
}
