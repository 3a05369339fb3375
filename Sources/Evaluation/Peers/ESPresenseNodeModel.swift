import BeaconCore
import Foundation

/// What one ESPresense node would publish about one device, re-implemented from its source
/// (github.com/ESPresense/ESPresense at a6f1105e) so that the shared recordings can be replayed as
/// ESPresense nodes would have reported them:
/// - the filter, `AdaptivePercentileRSSI` (`IQRFencedMeanRSSI`): the reported `rssi` is the mean of
///   the last 15 s within 1.5 interquartile ranges, `rssiVar` the variance of the readings;
/// - the distance, `10^((rssi@1m − rssi) / (10 · absorption))`, absorption 2.7
///   (`BleFingerprint::seen`, include/defaults.h);
/// - when it reports (`BleFingerprint::report`): once per device seen since its last report, on
///   the next multiple of `skip_ms` (5,000 ms), earlier when the distance moved by `skip_distance`
///   (0.5 m) by a fraction of the interval that grows with the move (`max_divisor` 10), and never
///   beyond `max_distance` (16 m).
public struct ESPresenseNodeModel: Sendable {
    public struct Report: Sendable {
        public var rssi: Double
        public var rssiVariance: Double
        public var distance: Double
    }

    public init() {}

    static let skipMs = 5_000.0
    static let skipDistance = 0.5
    static let maxDivisor = 10.0
    static let maxDistance = 16.0
    static let absorption = 2.7

    private var filter = IQRFencedMeanRSSI()
    private var nextReportMs = 0.0
    private var lastReported = 0.0

    /// One advertisement heard at `ms` (milliseconds): the report the node publishes now, if any.
    public mutating func heard(rssi: Double, at ms: Double, rssiAt1m: Double) -> Report? {
        let filtered = filter.update(rssi: rssi, at: ms)
        let distance = pow(10, (rssiAt1m - filtered) / (10 * Self.absorption))
        guard distance <= Self.maxDistance else { return nil }
        if ms < nextReportMs {
            let movement = abs(distance - lastReported)
            guard movement >= Self.skipDistance else { return nil }
            let roundedLog2 = log2((pow(2, movement / Self.skipDistance)).rounded()).rounded(.towardZero)
            let early = Self.skipMs / max(2, min(Self.maxDivisor, Self.maxDivisor - roundedLog2))
            guard ms >= nextReportMs - early else { return nil }
        }
        let remainder = ms.truncatingRemainder(dividingBy: Self.skipMs)
        nextReportMs = ms + (Self.skipMs - remainder).truncatingRemainder(dividingBy: Self.skipMs)
        lastReported = distance
        return Report(rssi: filtered, rssiVariance: Self.variance(filter.readings), distance: distance)
    }

    static func variance(_ values: [Double]) -> Double {
        guard values.count >= 2 else { return 0 }
        let mean = values.reduce(0, +) / Double(values.count)
        return max(0, values.reduce(0) { $0 + $1 * $1 } / Double(values.count) - mean * mean)
    }
}
