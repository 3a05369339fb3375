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
/// more from the last published level and the mean of the last `confirmWindow` seconds moved as far
/// from its own value then (a person moved; not one loud second of a still tag, whose 1-s mean of a
/// few adverts wanders by more than the step), at most once per `minimumInterval`; once more
/// `settle` seconds after such a step, with the same level, when the filtered RSSI has moved by
/// `settleStep` since, so that the filtered RSSI and distance beside it (which the physics rule
/// reads) catch up with the move; at least every
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
        /// The longer mean that must have moved by the step as well, seconds, default 5: longer
        /// publishes less at rest and a little later after a move.
        public var confirmWindow: Double
        /// Shortest time between two step publishes, seconds, default 1.
        public var minimumInterval: Double
        /// Seconds after a step before the measurement that carries the track's settled values, default 1.
        public var settle: Double
        /// How far the filtered RSSI must have moved since the step for that measurement, dB, default 1.
        public var settleStep: Double
        /// Seconds without an advert before the node says it no longer hears the beacon: shorter
        /// says a move out of a receiver's range sooner, and says it falsely over a gap between adverts.
        public var silenceAfter: Double

        /// Creates parameters.
        public init(window: Double = 1, step: Double = 3, confirmWindow: Double = 5, minimumInterval: Double = 1,
                    settle: Double = 1, settleStep: Double = 1, silenceAfter: Double = 2.5) {
            self.settle = settle
            self.settleStep = settleStep
            self.window = window
            self.step = step
            self.confirmWindow = confirmWindow
            self.minimumInterval = minimumInterval
            self.silenceAfter = silenceAfter
        }

        /// The defaults.
        public static let `default` = Parameters()
    }

    /// The adverts of the last `max(window, confirmWindow)` seconds: times (seconds) and RSSI, oldest first.
    private var times: [Double] = []
    private var levels: [Double] = []
    /// The level published last; nil before the first publish and after "not heard".
    public private(set) var publishedLevel: Double?
    /// The `confirmWindow` mean when the level was published last.
    private var publishedConfirmLevel = Double.nan
    private var lastPublish = -Double.infinity
    /// When the measurement after the last step is due, and the filtered RSSI at that step; nil when none is.
    private var settleAt: Double?
    private var filteredAtStep = Double.nan
    private var lastHeard: Double?

    /// Creates the level of a beacon heard nothing of yet.
    public init() {}

    /// Folds in one advert heard at `time`; true when a measurement goes out now (its `level` is
    /// then `publishedLevel`). `filtered`: the track's filtered RSSI after this advert. `heartbeat`:
    /// the node's longest time between two measurements (the publish policy's). A non-finite time
    /// changes nothing and never publishes.
    public mutating func observe(rssi: Int, filtered: Double, at time: Instant, heartbeat: Double, _ p: Parameters) -> Bool {
        let now = time.seconds
        guard now.isFinite else { return false }
        // A sample older than the last one counts as heard at the last one's time.
        let at = max(now, lastHeard ?? now)
        lastHeard = at
        times.append(at)
        levels.append(Double(rssi))
        var drop = 0
        while drop < times.count - 1, at - times[drop] >= max(p.window, p.confirmWindow) { drop += 1 }
        if drop > 0 {
            times.removeFirst(drop)
            levels.removeFirst(drop)
        }
        let level = (Self.mean(times, levels, since: at - p.window) * 10).rounded() / 10
        let confirm = Self.mean(times, levels, since: at - p.confirmWindow)
        let publish: Bool
        if let published = publishedLevel {
            let elapsed = at - lastPublish
            let step = elapsed >= p.minimumInterval && abs(level - published) >= p.step
                && !(abs(confirm - publishedConfirmLevel) < p.step)
            if !step, elapsed < heartbeat, let due = settleAt, at >= due {
                settleAt = nil
                return abs(filtered - filteredAtStep) >= p.settleStep
            }
            publish = elapsed >= heartbeat || step
            if step {
                settleAt = at + p.settle
                filteredAtStep = filtered
            }
        } else {
            publish = true
        }
        guard publish else { return false }
        publishedLevel = level
        publishedConfirmLevel = confirm
        lastPublish = at
        return true
    }

    /// The mean of the adverts after `since` (the last one at least).
    private static func mean(_ times: [Double], _ levels: [Double], since: Double) -> Double {
        var sum = 0.0
        var count = 0
        for index in times.indices.reversed() where count == 0 || times[index] > since {
            sum += levels[index]
            count += 1
        }
        return sum / Double(count)
    }

    /// Whether to say now that the node no longer hears the beacon: true once, when no advert came
    /// for more than `silenceAfter` seconds since the last one (and a level was published since).
    public mutating func checkSilence(at time: Instant, _ p: Parameters) -> Bool {
        guard time.seconds.isFinite, publishedLevel != nil, let lastHeard,
              time.seconds - lastHeard > p.silenceAfter else { return false }
        publishedLevel = nil
        settleAt = nil
        lastPublish = time.seconds
        times.removeAll(keepingCapacity: true)
        levels.removeAll(keepingCapacity: true)
        return true
    }
}
