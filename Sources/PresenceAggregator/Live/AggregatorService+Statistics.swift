extension AggregatorService {
    /// Counters, for tests and logs.
    public struct Statistics: Sendable, Hashable {
        /// Measurement messages that could not be parsed.
        public var malformedMeasurements = 0
        /// Measurements used.
        public var measurements = 0
        /// Node status messages (`online`/`offline`) handled.
        public var nodeStatuses = 0
        /// Node info messages handled (`<root>/nodes/+/info`: node devices).
        public var nodeInfos = 0
        /// Locations restored from retained topics.
        public var restoredLocations = 0
        /// `<root>/config/beacons` messages handled, applied or rejected.
        public var pushedBeaconLists = 0
        /// Ticks handled (a test that moves the clock waits for this).
        public var ticks = 0
        /// Wake-ups at a decision's due time between ticks (a challenger's dwell ending, a new
        /// beacon's settle time): each evaluates only the beacons due then.
        public var dueWakeUps = 0
        /// Publications libmosquitto refused (queue full, no connection for QoS 0).
        public var failedPublications = 0
        /// Publications waiting while the broker is behind: one per retained topic at most, and events.
        public var waitingPublications = 0
        /// Retained publications replaced, while waiting, by a newer value of their topic.
        public var coalescedPublications = 0
        /// Events (`<root>/events`) dropped because the broker stayed behind for too long.
        public var droppedEvents = 0
        /// Unknown beacons evicted by the `maxUnknownBeacons` cap (a flood of random ids).
        public var evictedBeacons = 0
        /// With failover: terms this instance won.
        public var termsLed = 0
        /// With failover: times this instance stopped leading or claiming because another won.
        public var stepDowns = 0
        /// ESPresense nodes and BLE gateways (`sources:`): messages, rejections, measurements.
        public var foreign = ForeignNodeStatistics()
        /// Motion sensors (`motion:`): messages, unreadable payloads, rooms' changes.
        public var motion = MotionStatistics()
    }
}
