import BeaconCore
import Foundation

/// What one ESPresense node would publish about one device, re-implemented from its source
/// (github.com/ESPresense/ESPresense at a6f1105e) so that the shared recordings can be replayed as
/// ESPresense nodes would have reported them:
/// - the filter, `AdaptivePercentileRSSI` (lib/filtering/AdaptivePercentileRSSI.cpp): readings of
///   the last 15 s in a ring of at first 20, resized every 10 s to 1.5 × the readings a window holds
///   (10…200) when that differs by more than a quarter; the reported `rssi` is the mean of the
///   readings within 1.5 interquartile ranges (`getMedianIQR`), `rssiVar` their variance;
/// - the distance, `10^((rssi@1m − rssi) / (10 · absorption))`, absorption 2.7
///   (`BleFingerprint::seen`, include/defaults.h);
/// - when it reports (`BleFingerprint::report`): once per device seen since its last report, on
///   the next multiple of `skip_ms` (5,000 ms), earlier when the distance moved by `skip_distance`
///   (0.5 m) by a fraction of the interval that grows with the move (`max_divisor` 10), and never
///   beyond `max_distance` (16 m).
struct ESPresenseNodeModel {
    struct Report {
        var rssi: Double
        var rssiVariance: Double
        var distance: Double
    }

    static let window = 15_000.0
    static let skipMs = 5_000.0
    static let skipDistance = 0.5
    static let maxDivisor = 10.0
    static let maxDistance = 16.0
    static let absorption = 2.7

    private var ring: [(rssi: Double, ms: Double)] = []
    private var maxReadings = 20
    private var lastRateCheck = 0.0
    private var nextReportMs = 0.0
    private var lastReported = 0.0

    /// One advertisement heard at `ms` (milliseconds): the report the node publishes now, if any.
    mutating func heard(rssi: Double, at ms: Double, rssiAt1m: Double) -> Report? {
        // addMeasurement: a full ring drops its oldest; expired readings leave; the ring adapts.
        ring.append((rssi, ms))
        if ring.count > maxReadings { ring.removeFirst(ring.count - maxReadings) }
        while let oldest = ring.first, ms - oldest.ms > Self.window { ring.removeFirst() }
        if ms - lastRateCheck > 10_000 {
            adjustSize(at: ms)
            lastRateCheck = ms
        }
        let filtered = Self.medianIQR(ring.map(\.rssi))
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
        return Report(rssi: filtered, rssiVariance: Self.variance(ring.map(\.rssi)), distance: distance)
    }

    private mutating func adjustSize(at ms: Double) {
        guard let oldest = ring.first else { return }
        let elapsed = (ms - oldest.ms) / 1000
        guard elapsed > 0 else { return }
        let perSecond = Double(ring.count) / elapsed
        let ideal = min(max(Int((perSecond * Self.window / 1000).rounded(.up) * 1.5), 10), 200)
        if abs(ideal - maxReadings) > maxReadings / 4 {
            maxReadings = ideal
            if ring.count > maxReadings { ring.removeFirst(ring.count - maxReadings) }
        }
    }

    static func medianIQR(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        func at(_ p: Double) -> Double {
            let position = p * Double(sorted.count - 1)
            let low = Int(position)
            let fraction = position - Double(low)
            return low + 1 < sorted.count ? sorted[low] * (1 - fraction) + sorted[low + 1] * fraction : sorted[low]
        }
        let q1 = at(0.25), median = at(0.5), q3 = at(0.75)
        let spread = q3 - q1
        let kept = sorted.filter { $0 >= q1 - 1.5 * spread && $0 <= q3 + 1.5 * spread }
        return kept.isEmpty ? median : kept.reduce(0, +) / Double(kept.count)
    }

    static func variance(_ values: [Double]) -> Double {
        guard values.count >= 2 else { return 0 }
        let mean = values.reduce(0, +) / Double(values.count)
        return max(0, values.reduce(0) { $0 + $1 * $1 } / Double(values.count) - mean * mean)
    }
}
