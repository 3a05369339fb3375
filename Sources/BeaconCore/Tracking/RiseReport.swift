/// A worn beacon's rise, as its node reports it: the last adverts stand
/// `rise` dB or more above the node's own mean of the seconds before. A move raises the room moved
/// to; a body's shadow only lowers the room held, so a rise tells a move from a fade. Only a node
/// sees every advert (it publishes at most one message a second), so the node decides the rise and
/// publishes it at once, carrying `rise` and `level` (docs/MQTT.md, the measurement's `rise` and
/// `riseRssi`). Only beacons whose known-beacon entry says `worn` report rises; the rest publish
/// exactly as before.
public struct RiseReport: Sendable, Hashable {
    /// dB the last adverts (the quietest of them) stand above the node's mean of the seconds before.
    public var rise: Double
    /// The level they rose to: the quietest of the last adverts, dBm.
    public var level: Double

    /// Creates a report.
    public init(rise: Double, level: Double) {
        self.rise = rise
        self.level = level
    }

    /// When a node reports a rise of a beacon marked worn.
    public struct Parameters: Sendable, Hashable, Codable {
        /// The last adverts must stand this many dB above the mean before, default 6 dB: lower
        /// reports fades' recoveries as moves, higher misses moves. 0 or less, or not finite: no
        /// rise reports.
        public var rise: Double
        /// The mean is taken over this many seconds before the last adverts, default 5 s.
        public var over: Double
        /// How many of the last adverts must stand that high, default 2 (one is often a reflection).
        public var adverts: Int
        /// They must all be this recent, seconds, default 1 s.
        public var within: Double
        /// Shortest time between two rise reports of one (beacon, node), seconds, default 0: a report
        /// at every advert while the rise holds, so the aggregator gets a fresh chance at each, for
        /// more messages while the tag moves (none more at rest). At most the adverts' own rate.
        public var every: Double

        /// Creates parameters.
        public init(rise: Double = 6, over: Double = 5, adverts: Int = 2, within: Double = 1, every: Double = 0) {
            self.rise = rise
            self.over = over
            self.adverts = adverts
            self.within = within
            self.every = every
        }

        /// The defaults (the Room decisions article says how they were chosen).
        public static let `default` = Parameters()

        /// Whether rise reports are on.
        public var isOn: Bool {
            rise.isFinite && rise > 0 && over > 0 && adverts >= 1 && within > 0
        }
    }

    /// One (beacon, node)'s recent adverts and its last report: what a worn track keeps.
    public struct Detector: Sendable {
        private var times: [Double] = []
        private var levels: [Double] = []
        private var lastReport = -Double.infinity

        /// Creates a detector that has heard nothing.
        public init() {}

        /// Folds in one advert heard at `time` (seconds); returns the rise to report now, if any.
        /// A node that heard nothing in the seconds before reports none (it publishes its first
        /// advert anyway: a new proximity).
        public mutating func observe(rssi: Double, at time: Double, _ p: Parameters) -> RiseReport? {
            guard p.isOn, time.isFinite, rssi.isFinite else { return nil }
            if let last = times.last, time < last { return nil }
            times.append(time)
            levels.append(rssi)
            let keep = p.within + p.over
            var drop = 0
            while drop < times.count, time - times[drop] >= keep { drop += 1 }
            if drop > 0 {
                times.removeFirst(drop)
                levels.removeFirst(drop)
            }
            guard times.count > p.adverts else { return nil }
            let first = times.count - p.adverts
            guard time - times[first] < p.within else { return nil }
            var quietest = Double.infinity
            for index in first..<times.count { quietest = min(quietest, levels[index]) }
            // The mean of the adverts before the window of the last ones: the oldest `count` kept.
            var sum = 0.0
            var count = 0
            for index in 0..<first where time - times[index] >= p.within {
                sum += levels[index]
                count += 1
            }
            guard count > 0 else { return nil }
            let mean = sum / Double(count)
            let rise = quietest - mean
            guard time - lastReport >= p.every, rise >= p.rise else { return nil }
            lastReport = time
            return RiseReport(rise: rise, level: quietest)
        }

        /// The loudest advert heard in the `within` seconds up to `time`, nil when none was: what a
        /// node answers a level query with (`SwitchingRule.riseQuery`).
        public func loudest(within: Double, at time: Double) -> Double? {
            var loudest: Double?
            for (index, heard) in times.enumerated().reversed() {
                guard time - heard <= within else { break }
                if heard <= time { loudest = max(loudest ?? -.infinity, levels[index]) }
            }
            return loudest
        }
    }
}
