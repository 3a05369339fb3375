#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// ESPresense's RSSI filter, `AdaptivePercentileRSSI` (github.com/ESPresense/ESPresense,
/// lib/filtering/AdaptivePercentileRSSI.cpp), re-implemented from its source: the readings of the
/// last 15 s in a ring of at first 20, resized every 10 s to 1.5 × the readings a window holds
/// (10…200) when that differs by more than a quarter; the value is the mean of the readings within
/// 1.5 interquartile ranges of the quartiles (`getMedianIQR`), the median if none is. Used by
/// `presence-bench evaluate --espresense` (as an ESPresense node reports) and as a yardstick of
/// proximity (`presence-bench proximity`).
public struct IQRFencedMeanRSSI: Sendable {
    /// The window, milliseconds.
    public static let window = 15_000.0
    private(set) var ring: [(rssi: Double, ms: Double)] = []
    private var maxReadings = 20
    private var lastRateCheck = 0.0

    /// Creates an empty filter.
    public init() {}

    /// The readings in the ring, oldest first.
    public var readings: [Double] { ring.map(\.rssi) }

    /// Adds a reading heard at `ms` (milliseconds, non-decreasing) and returns the fenced mean of
    /// the ring; a non-finite reading is ignored (NaN while the ring is empty).
    public mutating func update(rssi: Double, at ms: Double) -> Double {
        if rssi.isFinite, ms.isFinite {
            // addMeasurement: a full ring drops its oldest; expired readings leave; the ring adapts.
            ring.append((rssi, ms))
            if ring.count > maxReadings { ring.removeFirst(ring.count - maxReadings) }
            while let oldest = ring.first, ms - oldest.ms > Self.window { ring.removeFirst() }
            if ms - lastRateCheck > 10_000 {
                adjustSize(at: ms)
                lastRateCheck = ms
            }
        }
        return ring.isEmpty ? .nan : Self.medianIQR(ring.map(\.rssi))
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

    /// The mean of `values` within Tukey's fences (1.5 IQR beyond the linearly interpolated
    /// quartiles); the median when every value is fenced off.
    public static func medianIQR(_ values: [Double]) -> Double {
        let (kept, median) = fenced(values)
        return kept.isEmpty ? median : kept.reduce(0, +) / Double(kept.count)
    }

    /// The sorted `values` within Tukey's fences, and the median of them all (NaN when none).
    static func fenced(_ values: [Double]) -> (kept: [Double], median: Double) {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return ([], .nan) }
        func at(_ p: Double, _ sorted: [Double]) -> Double {
            let position = p * Double(sorted.count - 1)
            let low = Int(position)
            let fraction = position - Double(low)
            return low + 1 < sorted.count ? sorted[low] * (1 - fraction) + sorted[low + 1] * fraction : sorted[low]
        }
        let q1 = at(0.25, sorted), q3 = at(0.75, sorted)
        let spread = q3 - q1
        return (sorted.filter { $0 >= q1 - 1.5 * spread && $0 <= q3 + 1.5 * spread }, at(0.5, sorted))
    }
}
