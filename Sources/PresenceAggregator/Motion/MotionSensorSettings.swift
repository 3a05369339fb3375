import BeaconCore

/// One entry of the aggregator's `motion:` list: a room's motion or presence sensor, read as
/// evidence that someone is in that room now (issue 37; the Motion section of the Room decisions
/// article). Default: no sensors, and decisions exactly as without this section.
public struct MotionSensorSettings: Sendable, Hashable {
    /// The words of a plain-text sensor for "motion" and "no motion".
    public struct Words: Sendable, Hashable {
        public var on: String
        public var off: String

        public init(on: String, off: String) {
            self.on = on
            self.off = off
        }
    }

    /// The MQTT topic the sensor publishes its state on (no wildcard): a Zigbee2MQTT device
    /// (`zigbee2mqtt/hall-pir`), an ESPresense node's `espresense/rooms/<node>/motion`, or any other.
    public var topic: String
    /// The room the sensor watches.
    public var room: String
    /// The sensor's own words for on and off, default nil: JSON with `occupancy` or `presence`, or
    /// plain `on`/`off`, `true`/`false`, `1`/`0`, `ON`/`OFF`, `detected`/`clear` (`MotionPayload`).
    public var payload: Words?
    /// A sensor that has said nothing for this long stops counting, seconds, default 3,600: a
    /// sensor that went quiet while on (its battery, its radio) must not hold a room for ever,
    /// while a presence sensor that sees someone at a desk for an hour still reports now and then.
    public var staleAfter: Double

    public static let defaultStaleAfter = 3_600.0

    public init(topic: String, room: String, payload: Words? = nil, staleAfter: Double = Self.defaultStaleAfter) {
        self.topic = topic
        self.room = room
        self.payload = payload
        self.staleAfter = staleAfter
    }

    /// Where the sensor says it is available or not, derived from its topic: Zigbee2MQTT's
    /// `<topic>/availability` (`{"state":"offline"}`, or plain `offline` with its legacy payload),
    /// and for an ESPresense node's `…/rooms/<node>/motion` the node's last will `…/rooms/<node>/status`.
    public var availabilityTopic: String {
        if topic.hasSuffix("/motion"), topic.split(separator: "/", omittingEmptySubsequences: false).dropLast().dropLast().last == "rooms" {
            return String(topic.dropLast("motion".count)) + "status"
        }
        return topic + "/availability"
    }
}
