/// A worn beacon's level as its node publishes it (docs/MQTT.md, the measurement's `level`): the
/// mean RSSI of the beacon's own adverts over the last `window` seconds, and when a measurement
/// goes out for it.
///
/// Why a node publishes this for a beacon marked worn: a person moves in a second, and the Kalman
/// filter's level (`rssiFiltered`, published on a step) lags that by more than a second; a site
/// model that weighs rooms by each receiver's level reads a short mean of the adverts far sooner,
/// and the node is the only one that hears every advert. And a receiver that stops hearing a worn
/// tag is the quickest sign of a move: the node says "not heard" after `silenceAfter` seconds
/// instead of the classifier's longer silence.
///
/// When it publishes (in place of the track's publish policy, whose steps follow the lagging
/// filter): at the first advert and the first after a silence; when the level moved by `step` dB or
/// more from the last published level, at most once per `minimumInterval`; at least every
/// `heartbeat` seconds while heard; and "not heard" once when no advert came for `silenceAfter`
/// seconds, instead of the track's later silence. At rest the level stays within the step and only
/// the heartbeat goes out. Each measurement still carries the track's filtered RSSI, distance and
/// proximity of that moment. The level is rounded to 0.1 dB, as on the wire, so a replay meets
/// exactly the numbers the aggregator receives live.
public struct WornLevel: Sendable {
    /// The window, the step and the silence of a worn beacon's level.
    public struct Parameters: Sendable, Hashable, Codable {
        /// The level is the mean of the adverts of this many seconds, default 1: longer is steadier
        /// and slower to follow a move.
        public var window: Double
        /// A change of the level from the last published one that publishes, dB: smaller follows a
        /// move sooner and publishes more at rest.
        public var step: Double
        /// Shortest time between two step publishes, seconds, default 1.
        public var minimumInterval: Double
        /// Seconds without an advert before the node says it no longer hears the beacon: shorter
        /// says a move out of a receiver's range sooner, and says it falsely over a gap between adverts.
        public var silenceAfter: Double

        /// Creates parameters.
        public init(window: Double = 1, step: Double = 3, minimumInterval: Double = 1, silenceAfter: Double = 2.5) {
            self.window = window
            self.step = step
            self.minimumInterval = minimumInterval
            self.silenceAfter = silenceAfter
        }

        /// The defaults.
        public static let `default` = Parameters()
    }

    /// The adverts of the last window: times (seconds) and RSSI, oldest first.
    private var times: [Double] = []
    private var levels: [Double] = []
    /// The level published last; nil before the first publish and after "not heard".
    public private(set) var publishedLevel: Double?
    private var lastPublish = -Double.infinity
    private var lastHeard: Double?

    /// Creates the level of a beacon heard nothing of yet.
    public init() {}

    /// Folds in one advert heard at `time`; true when a measurement goes out now (its `level` is
    /// then `publishedLevel`). `heartbeat`: the node's longest time between two measurements (the
    /// publish policy's). A non-finite time changes nothing and never publishes.
    public mutating func observe(rssi: Int, at time: Instant, heartbeat: Double, _ p: Parameters) -> Bool {
        let now = time.seconds
        guard now.isFinite else { return false }
        // A sample older than the last one counts as heard at the last one's time.
        let at = max(now, lastHeard ?? now)
        lastHeard = at
        times.append(at)
        levels.append(Double(rssi))
        var drop = 0
        while drop < times.count - 1, at - times[drop] >= p.window { drop += 1 }
        if drop > 0 {
            times.removeFirst(drop)
            levels.removeFirst(drop)
        }
        var sum = 0.0
        for level in levels { sum += level }
        let level = (sum / Double(levels.count) * 10).rounded() / 10
        let publish: Bool
        if let published = publishedLevel {
            let elapsed = at - lastPublish
            publish = elapsed >= heartbeat || (elapsed >= p.minimumInterval && abs(level - published) >= p.step)
        } else {
            publish = true
        }
        guard publish else { return false }
        publishedLevel = level
        lastPublish = at
        return true
    }

    /// Whether to say now that the node no longer hears the beacon: true once, when no advert came
    /// for more than `silenceAfter` seconds since the last one (and a level was published since).
    public mutating func checkSilence(at time: Instant, _ p: Parameters) -> Bool {
        guard time.seconds.isFinite, publishedLevel != nil, let lastHeard,
              time.seconds - lastHeard > p.silenceAfter else { return false }
        publishedLevel = nil
        lastPublish = time.seconds
        times.removeAll(keepingCapacity: true)
        levels.removeAll(keepingCapacity: true)
        return true
    }
}
