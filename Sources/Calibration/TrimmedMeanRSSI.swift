import BeaconCore

/// A running trimmed mean of RSSI over the last `window` seconds: the samples of the window sorted,
/// the top and bottom `trim` share dropped, the rest averaged. The Android Beacon Library's default
/// ranging filter (`RunningAverageRssiFilter`: 20 s, 10 % off each end); kept here only as the
/// yardstick the node's Kalman filter is measured against (`presence-bench calibrate`'s
/// `proximityAtRest`), causal like the node.
public struct TrimmedMeanRSSI: Sendable {
    /// How far back samples count, seconds.
    public let window: Double
    /// The share dropped from each end of the sorted window.
    public let trim: Double
    private var samples: [(time: Double, rssi: Double)] = []
    private var start = 0

    /// Creates the filter; the defaults are the Android Beacon Library's.
    public init(window: Double = 20, trim: Double = 0.1) {
        self.window = window.isFinite && window > 0 ? window : 20
        self.trim = trim.isFinite ? min(max(trim, 0), 0.49) : 0.1
    }

    /// Adds a sample at `time` (seconds, non-decreasing) and returns the trimmed mean of the window
    /// ending there; a non-finite sample is ignored (the mean so far, NaN before any).
    public mutating func update(rssi: Double, at time: Double) -> Double {
        if rssi.isFinite, time.isFinite {
            samples.append((time, rssi))
            while start < samples.count, time - samples[start].time > window { start += 1 }
            if start > 1024 {
                samples.removeFirst(start)
                start = 0
            }
        }
        guard start < samples.count else { return .nan }
        let sorted = samples[start...].map(\.rssi).sorted()
        let drop = Int(Double(sorted.count) * trim)
        let kept = sorted[drop..<(sorted.count - drop)]
        return kept.reduce(0, +) / Double(kept.count)
    }
}
