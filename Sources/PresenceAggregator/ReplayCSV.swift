import BeaconCore
import RoomDecisions

/// The CSV lines `presence-aggregator replay` writes (docs/Files.md), formatted without Foundation and
/// with fixed decimals so output is byte-for-byte reproducible.
public enum ReplayCSV {
    public static let decisionHeader = "time,beacon,room,distance"
    public static let measurementHeader = "time,node,room,beacon,rssi,rssiFiltered,sigma,distance,proximity"
    /// A recorded trace of published measurements (docs/Files.md "Recorded traces"): a trace whose
    /// `rssi` is the published filtered RSSI in whole dBm (−127 when the message had none), with
    /// what was published beside it; its `proximity` column marks it as already filtered. The
    /// measurement's own `rssi` (the advert) is `rssiAdvert`.
    public static let recordHeader = "time,node,room,beacon,rssi,measuredPower,rssiFiltered,distance,proximity,rssiAdvert"

    /// One received measurement as a recorded trace's row.
    public static func recordRow(time: Instant, evidence: NodeEvidence) -> String {
        let filtered = evidence.rssiFiltered.isFinite ? evidence.rssiFiltered : nil
        let rssi = filtered.map { Int(max(-1000, min(1000, $0)).rounded()) } ?? -127
        let distance = evidence.isSilence ? "" : evidence.distance.map { fixed($0, decimals: 2) } ?? ""
        return "\(fixed(time.seconds, decimals: 3)),\(evidence.node),\(evidence.room),\(evidence.beacon.rawValue),\(rssi),,"
            + "\(filtered.map { fixed($0, decimals: 2) } ?? ""),\(distance),"
            + (evidence.isSilence ? Proximity.unknown.rawValue : evidence.proximity.rawValue)
            + ",\(recorded(evidence.rssi))"
    }

    /// A recorded number: two decimals (as exact as the agents publish), empty when absent or not
    /// finite (a recorded trace's numbers are finite).
    private static func recorded(_ value: Double?) -> String {
        guard let value, value.isFinite, abs(value) <= 100_000 else { return "" }
        return fixed(value, decimals: 2)
    }

    /// `0.350,beacon1,zone4,2.41`; the distance is empty for `not_home`.
    public static func decisionRow(_ decision: RoomDecision, at time: Instant) -> String {
        let distance = decision.distance.map { fixed($0, decimals: 2) } ?? ""
        return "\(fixed(time.seconds, decimals: 3)),\(decision.beacon.rawValue),\(decision.room),\(distance)"
    }

    /// One input sample after the node's filter.
    public static func measurementRow(_ measurement: TraceReplay.Measurement) -> String {
        let s = measurement.sample, u = measurement.update
        return "\(fixed(s.time.seconds, decimals: 3)),\(s.node),\(s.room),\(s.beacon.rawValue),\(s.rssi),"
            + "\(fixed(u.rssiFiltered, decimals: 2)),\(fixed(u.sigma, decimals: 2)),\(u.distance.map { fixed($0, decimals: 2) } ?? ""),"
            + u.proximity.rawValue
    }

    /// `value` rounded half away from zero to `decimals` places (0…6), e.g. `fixed(2.405, 2)` → "2.41"
    /// within binary precision; non-finite values print as `nan`, `inf`, `-inf`.
    public static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        let places = max(0, min(decimals, 6))
        var scale: Double = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9.0e15 else { return String(value) }
        let units = UInt64(scaled)
        let whole = units / UInt64(scale)
        let fraction = units % UInt64(scale)
        let sign = value < 0 && units != 0 ? "-" : ""
        guard places > 0 else { return "\(sign)\(whole)" }
        var digits = String(fraction)
        while digits.count < places { digits = "0" + digits }
        return "\(sign)\(whole).\(digits)"
    }
}
