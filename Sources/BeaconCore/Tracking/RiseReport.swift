/// A worn beacon's rise, as its node reports it (issue 40, sixth round): the last adverts stand
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
        /// The last adverts must stand this many dB above the mean before, default 6 dB
        /// (`evaluate --rise-oracle` on every advert: 6 dB over 5 s cut the flaps six- to
        /// fourteen-fold for 0.3–0.6 s). 0 or less, or not finite: no rise reports.
        public var rise: Double
        /// The mean is taken over this many seconds before the last adverts, default 5 s.
        public var over: Double
        /// How many of the last adverts must stand that high, default 2 (one is often a reflection).
        public var adverts: Int
        /// They must all be this recent, seconds, default 1 s.
        public var within: Double
        /// Shortest time between two rise reports of one (beacon, node), seconds, default 0: a report
        /// at every advert while the rise holds (issue 40, seventh round: the aggregator gets a fresh
        /// chance at each, 0.1–0.5 s sooner; 9–18 % more messages while the tag moves, none more at
        /// rest). At most the adverts' own rate.
        public var every: Double
        /// A fall (issue 40, seventh round): the node also publishes at once, at most once per
        /// `every`, when its last adverts (the loudest of them) stand this many dB below the same
        /// mean, so that the room it serves is met at its faded level. Default 0: off.
        public var fall: Double
        /// The mean before must rest on adverts spanning at least this many seconds, oldest to
        /// newest (issue 40, eighth round): at a track's start (a beacon just come into range, an
        /// agent just restarted) it may rest on one advert, and the first adverts can count as a
        /// rise on nothing. Default 0: any one advert will do, as before. Measured (the Room
        /// decisions article): 0.5 s drops the reports on one advert, which name the wrong room
        /// 36–91 % of the time against 9–24 % of all, yet the worn walks' decisions gain nothing
        /// and lose one event here and there, so it stays off. Must stay under `over`, which
        /// bounds the span; at `over` or more, no reports.
        public var baseline: Double

        /// Creates parameters.
        public init(rise: Double = 6, over: Double = 5, adverts: Int = 2, within: Double = 1, every: Double = 0,
                    fall: Double = 0, baseline: Double = 0) {
            self.fall = fall
            self.baseline = baseline
            self.rise = rise
            self.over = over
            self.adverts = adverts
            self.within = within
            self.every = every
        }

        /// The measured defaults (the Room decisions article, "Issue 40, sixth round").
        public static let `default` = Parameters()

        /// Whether rise reports are on.
        public var isOn: Bool {
            rise.isFinite && rise > 0 && over > 0 && adverts >= 1 && within > 0 && !(baseline >= over)
        }
    }

    /// One (beacon, node)'s recent adverts and its last report: what a worn track keeps.
    public struct Detector: Sendable {
        private var times: [Double] = []
        private var levels: [Double] = []
        private var lastReport = -Double.infinity
        private var lastFall = -Double.infinity
        /// Whether the last advert folded in made a fall (`Parameters.fall`) to publish.
        public private(set) var fell = false

        /// Creates a detector that has heard nothing.
        public init() {}

        /// Folds in one advert heard at `time` (seconds); returns the rise to report now, if any.
        /// A node that heard nothing in the seconds before reports none (it publishes its first
        /// advert anyway: a new proximity).
        public mutating func observe(rssi: Double, at time: Double, _ p: Parameters) -> RiseReport? {
            fell = false
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
            var loudest = -Double.infinity
            for index in first..<times.count {
                quietest = min(quietest, levels[index])
                loudest = max(loudest, levels[index])
            }
            // The mean of the adverts before the window of the last ones: the oldest `count` kept.
            var sum = 0.0
            var count = 0
            for index in 0..<first where time - times[index] >= p.within {
                sum += levels[index]
                count += 1
            }
            // With a baseline set, too short a span is no mean to rise over: a track's first adverts report none.
            guard count > 0, !(times[count - 1] - times[0] < p.baseline) else { return nil }
            let mean = sum / Double(count)
            if p.fall > 0, time - lastFall >= p.every, mean - loudest >= p.fall {
                lastFall = time
                fell = true
            }
            let rise = quietest - mean
            guard time - lastReport >= p.every, rise >= p.rise else { return nil }
            lastReport = time
            return RiseReport(rise: rise, level: quietest)
        }

        /// The loudest advert heard in the `within` seconds up to `time`, nil when none was: what a
        /// node answers a level query with (`RoomDecisionParameters.riseQuery`).
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
