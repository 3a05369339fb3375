import BeaconCore
import RoomDecisions

/// The reference baseline of data/README.md: after every sample, the room of the strongest
/// raw RSSI heard in the last `window` seconds (ties go to the most recent sample). No filter, no
/// hysteresis; used to validate the scorer against the README's published figures.
public struct StrongestRecentRSSIBaseline: Sendable {
    public let window: Double
    private var recent: [TraceSample] = []
    private var start = 0
    private var room: String?

    public init(window: Double = 1) {
        self.window = window
    }

    /// Folds in one sample of one beacon; returns the new room when it changed.
    public mutating func step(_ sample: TraceSample) -> String? {
        recent.append(sample)
        while start < recent.count, sample.time.since(recent[start].time) >= window { start += 1 }
        if start > 4096 {
            recent.removeFirst(start)
            start = 0
        }
        var best = recent[recent.count - 1]
        for candidate in recent[start...] where candidate.rssi >= best.rssi { best = candidate }
        guard best.room != room else { return nil }
        room = best.room
        return best.room
    }

    /// Decision rows of the baseline over one beacon's samples.
    public static func decisions(of samples: [TraceSample], window: Double = 1) -> [(time: Instant, room: String)] {
        var baseline = StrongestRecentRSSIBaseline(window: window)
        var rows: [(time: Instant, room: String)] = []
        for sample in samples {
            if let room = baseline.step(sample) { rows.append((sample.time, room)) }
        }
        return rows
    }
}
