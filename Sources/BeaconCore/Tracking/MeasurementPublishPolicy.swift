/// Decides when a node publishes a beacon's measurement (MQTT.md): when its proximity changes,
/// when its distance moved by more than `distanceStep`, and at least every `heartbeat` while it
/// is heard — never once per advertisement.
///
/// `distanceStep` is a fraction of the last published distance (0.3: from 4 m, a move beyond
/// 5.2 m or below 2.8 m publishes), because RSSI noise makes distance errors grow with distance.
/// Distance-step publishes are at most one per `minimumInterval`, so a noisy beacon cannot
/// publish per advert; a proximity change publishes at once (the classifier's hysteresis keeps
/// those rare). So a beacon heard for T seconds publishes at most T/minimumInterval + 1 times
/// plus once per proximity change.
public struct MeasurementPublishPolicy: Sendable {
    public struct Parameters: Sendable, Hashable, Codable {
        /// Relative distance change since the last publish that triggers a publish.
        public var distanceStep: Double
        /// Longest time between two publishes while the beacon is heard, seconds.
        public var heartbeat: Double
        /// Shortest time between two distance-step publishes, seconds.
        public var minimumInterval: Double

        public init(distanceStep: Double, heartbeat: Double, minimumInterval: Double = 1) {
            self.distanceStep = distanceStep
            self.heartbeat = heartbeat
            self.minimumInterval = minimumInterval
        }

        /// Heartbeat 5 s (ESPresense's default; Home Assistant's `mqtt_room` times out after 5 s).
        /// Step 0.3, measured by `presence-bench calibrate`: the smallest on a 0.05 grid with which a
        /// still beacon publishes at most one measurement per minute beyond its heartbeat (median of
        /// the 60 static-rssi series).
        public static let `default` = Parameters(distanceStep: 0.3, heartbeat: 5, minimumInterval: 1)
    }

    public let parameters: Parameters
    private var lastProximity: Proximity?
    private var lastDistance: Double = 0
    private var lastTime: Instant?

    public init(parameters: Parameters = .default) {
        self.parameters = parameters
    }

    /// Whether the measurement at `time` should be published; when it returns true the policy
    /// remembers it as the last published one.
    /// A non-finite `time` never publishes.
    public mutating func shouldPublish(proximity: Proximity, distance: Double, at time: Instant) -> Bool {
        guard time.seconds.isFinite else { return false }
        guard let lastTime, let lastProximity else { return record(proximity, distance, time) }
        if proximity != lastProximity { return record(proximity, distance, time) }
        let elapsed = time.since(lastTime)
        if elapsed >= parameters.heartbeat { return record(proximity, distance, time) }
        if elapsed >= parameters.minimumInterval, distance.isFinite, lastDistance.isFinite {
            let step = abs(distance - lastDistance)
            if step > parameters.distanceStep * lastDistance { return record(proximity, distance, time) }
        }
        return false
    }

    /// Forgets the last publish, so the next measurement publishes.
    public mutating func reset() {
        lastTime = nil
        lastProximity = nil
    }

    private mutating func record(_ proximity: Proximity, _ distance: Double, _ time: Instant) -> Bool {
        lastProximity = proximity
        lastDistance = distance
        if lastTime.map({ time > $0 }) ?? true { lastTime = time }
        return true
    }
}
