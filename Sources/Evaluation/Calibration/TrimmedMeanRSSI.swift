import BeaconCore

/// The Android Beacon Library's default ranging filter, `RunningAverageRssiFilter`
/// (github.com/AltBeacon/android-beacon-library, lib/src/main/java/org/altbeacon/beacon/service),
/// re-implemented from its source: the samples younger than `window` seconds (20 s), sorted; with
/// more than two, `count/10 + 1` dropped from each end (integer division: 1 of 3…9, 2 of 10…19);
/// the rest averaged. Kept here only as a yardstick the node is measured against
/// (`presence-bench calibrate` and `presence-bench proximity`), causal like the node.
public struct TrimmedMeanRSSI: Sendable {
    /// How far back samples count, seconds: a sample leaves once it is `window` old.
    public let window: Double
    private var samples: [(time: Double, rssi: Double)] = []
    private var start = 0

    /// Creates the filter; the default window is the library's.
    public init(window: Double = 20) {
        self.window = window.isFinite && window > 0 ? window : 20
    }

    /// Adds a sample at `time` (seconds, non-decreasing) and returns the trimmed mean of the window
    /// ending there; a non-finite sample is ignored (the mean so far, NaN before any).
    public mutating func update(rssi: Double, at time: Double) -> Double {
        if rssi.isFinite, time.isFinite {
            samples.append((time, rssi))
            while start < samples.count, time - samples[start].time >= window { start += 1 }
            if start > 1024 {
                samples.removeFirst(start)
                start = 0
            }
        }
        guard start < samples.count else { return .nan }
        let sorted = samples[start...].map(\.rssi).sorted()
        let drop = sorted.count > 2 ? sorted.count / 10 + 1 : 0
        let kept = sorted[drop..<(sorted.count - drop)]
        return kept.reduce(0, +) / Double(kept.count)
    }
}
