import BeaconCore

/// One advert of a node beacon as another node heard it: `receiver` heard `transmitter` at `rssi`.
/// `transmitter` is the node the beacon belongs to (from the nodes' `info`, or the aggregator's
/// configured list), or the beacon's own id when no node of the site claims it.
public struct NodeLevelSample: Sendable, Hashable {
    public var transmitter: String
    public var receiver: String
    public var rssi: Double
    public var time: Instant

    public init(transmitter: String, receiver: String, rssi: Double, time: Instant) {
        self.transmitter = transmitter
        self.receiver = receiver
        self.rssi = rssi
        self.time = time
    }
}

/// One direction of a path between two nodes: `receiver` hearing `transmitter`'s node beacon.
public struct NodeLink: Sendable, Hashable, Comparable {
    public var transmitter: String
    public var receiver: String

    public init(transmitter: String, receiver: String) {
        self.transmitter = transmitter
        self.receiver = receiver
    }

    public static func < (lhs: NodeLink, rhs: NodeLink) -> Bool {
        (lhs.transmitter, lhs.receiver) < (rhs.transmitter, rhs.receiver)
    }

    /// `transmitter→receiver`, as the rejections name a path.
    public var description: String { "\(transmitter)→\(receiver)" }
}

/// A direction's smoothed level over the collector's window.
public struct NodeLinkLevel: Sendable, Hashable {
    /// Median of the window's bucket means, dBm: one burst of loud or weak adverts moves it little.
    public var level: Double
    /// Adverts heard in the window.
    public var samples: Int
    /// The newest third of the window's buckets above the oldest third, dB (medians): how far the
    /// level moved within the window; 0 with too few buckets to say.
    public var shift: Double

    public init(level: Double, samples: Int, shift: Double = 0) {
        self.level = level
        self.samples = samples
        self.shift = shift
    }
}

/// Keeps what the nodes hear of each other's node beacons over the last `window` seconds, per
/// direction, in buckets of `bucket` seconds (mean RSSI and count each), so that a site of many
/// nodes keeps a bounded amount per direction whatever the advertising rate.
public struct NodeLevelCollector: Sendable {
    /// Seconds of adverts each level is smoothed over: a node's level is what it has been hearing
    /// lately, so a moved node's new place replaces its old one within a window.
    public var window: Double
    /// Seconds per bucket.
    public var bucket: Double

    private struct Bucket: Sendable {
        var index: Int64
        var sum: Double
        var count: Int
    }

    private var buckets: [NodeLink: [Bucket]] = [:]

    public init(window: Double = NodeCalibrationParameters.default.window, bucket: Double = 10) {
        self.window = window.isFinite && window > 0 ? window : NodeCalibrationParameters.default.window
        self.bucket = bucket.isFinite && bucket > 0 ? min(bucket, self.window) : 10
    }

    /// Adds one advert heard. A node hearing itself, a non-finite RSSI or time is ignored; an
    /// advert older than the direction's newest bucket is counted in that bucket.
    public mutating func add(_ sample: NodeLevelSample) {
        guard sample.transmitter != sample.receiver, sample.rssi.isFinite, sample.time.seconds.isFinite else { return }
        let link = NodeLink(transmitter: sample.transmitter, receiver: sample.receiver)
        let index = Int64((sample.time.seconds / bucket).rounded(.down))
        var list = buckets[link, default: []]
        if let last = list.indices.last, list[last].index >= index {
            list[last].sum += sample.rssi
            list[last].count += 1
        } else {
            list.append(Bucket(index: index, sum: sample.rssi, count: 1))
        }
        let oldest = index - Int64((window / bucket).rounded(.up))
        if let first = list.first, first.index <= oldest { list.removeAll { $0.index <= oldest } }
        buckets[link] = list
    }

    /// Every direction heard within the window ending at `now`, smoothed.
    public func levels(at now: Instant) -> [NodeLink: NodeLinkLevel] {
        let oldest = Int64(((now.seconds - window) / bucket).rounded(.down))
        var result: [NodeLink: NodeLinkLevel] = [:]
        for (link, list) in buckets {
            let kept = list.filter { $0.index > oldest }
            guard !kept.isEmpty else { continue }
            let means = kept.map { $0.sum / Double($0.count) }
            var shift = 0.0
            if means.count >= 6 {
                let third = means.count / 3
                shift = (Array(means.suffix(third)).median ?? 0) - (Array(means.prefix(third)).median ?? 0)
            }
            result[link] = NodeLinkLevel(level: means.median ?? 0, samples: kept.reduce(0) { $0 + $1.count },
                                         shift: shift)
        }
        return result
    }

    /// Forgets every direction.
    public mutating func removeAll() { buckets.removeAll() }
}
