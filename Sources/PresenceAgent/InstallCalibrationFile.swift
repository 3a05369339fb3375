import BeaconCore

/// `install-calibration.json` in the agent's state directory: the node's reference that
/// `presence-agent calibrate` measured, kept beside the last good configuration so it survives
/// restarts, and applied at the agent's start.
///
/// Which offset a node runs with, the first that is set: a pushed `rssiOffset`
/// (`<root>/nodes/<node>/config`), the operator's `tracking.rssiOffset` (file, environment, flag),
/// this file, 0. An operator's own value wins over a measured one; a pushed value overrides the
/// node's own settings as every pushed setting does.
public enum InstallCalibrationFile {
    public static let name = "install-calibration.json"

    /// What the agent needs of the file.
    public struct Stored: Sendable, Hashable {
        public var rssiOffset: Double
        public var beacon: String
        /// When it was measured, as written (ISO 8601).
        public var calibratedAt: String
    }

    /// The file's contents for a reference measured by `calibrate`.
    public static func contents(_ reference: InstallCalibration.Reference) -> [UInt8] {
        var object = JSONObjectWriter()
        object.add("rssiOffset", reference.rssiOffset, decimals: 1)
        object.add("beacon", reference.beacon.rawValue)
        object.add("rssi", reference.rssi, decimals: 1)
        object.add("measuredPower", reference.measuredPower, decimals: 0)
        object.add("measuredPowerFrom", reference.powerSource.rawValue)
        object.add("readings", reference.readings)
        object.add("standardError", reference.standardError, decimals: 2)
        object.add("seconds", reference.seconds, decimals: 1)
        object.add("calibratedAt", ISO8601Timestamp.string(from: reference.at))
        return Array((object.finish() + "\n").utf8)
    }

    /// The stored reference, or why the file cannot be used (naming the field).
    public static func parse(_ bytes: [UInt8]) -> Result<Stored, ConfigError> {
        do {
            let value = try JSONParser.parse(bytes)
            let reader = try JSONFieldReader(value, at: .root)
            let offset = try reader.number(try reader.required("rssiOffset"), key: "rssiOffset", in: NodeSettings.Limits.rssiOffset)
            return .success(Stored(
                rssiOffset: offset, beacon: try reader.optionalString("beacon") ?? "?",
                calibratedAt: try reader.optionalString("calibratedAt") ?? "?"))
        } catch {
            return .failure(error)
        }
    }

    /// Applies a stored reference to the node's own settings unless the operator set an offset,
    /// and says what was done for the log: nil when there is no file.
    public static func apply(
        _ bytes: [UInt8]?, to settings: inout AgentCore.Settings, operatorOffset: Double?
    ) -> AgentAction? {
        guard let bytes else { return nil }
        switch parse(bytes) {
        case .failure(let error):
            return .log(level: .error, message: "\(name) cannot be used (\(error)); run presence-agent calibrate again")
        case .success(let stored):
            if let operatorOffset {
                return .log(level: .info, message: "the calibration in \(name) (rssiOffset \(format(stored.rssiOffset)) dB, \(stored.calibratedAt)) "
                        + "is not used: tracking.rssiOffset \(format(operatorOffset)) is set, and an operator's value wins")
            }
            settings.tracking.distance.rssiOffset = stored.rssiOffset
            // Measured by the operator at install: the aggregator's calibration neither replaces nor corrects it.
            settings.operatorSetRSSIOffset = true
            return .log(level: .info, message: "rssiOffset \(format(stored.rssiOffset)) dB from \(name) (presence-agent calibrate with "
                    + "\(stored.beacon), \(stored.calibratedAt))")
        }
    }

    private static func format(_ value: Double) -> String { JSONObjectWriter.number(value, decimals: 1) }
}
