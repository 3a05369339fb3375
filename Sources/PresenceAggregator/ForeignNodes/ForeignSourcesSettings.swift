import BeaconCore

/// Radios the site already owns that feed the aggregator besides its own agents (`sources:` in
/// the aggregator's YAML; ESPresense and BLE gateways article). Default: none.
public struct ForeignSourcesSettings: Sendable, Hashable {
    /// ESPresense nodes, nil (the default) when off.
    public var espresense: ESPresenseSettings?
    /// BLE-to-MQTT gateways (Theengs Gateway, OpenMQTTGateway), default none.
    public var gateways: [GatewaySettings]
    /// Follow devices that are not known beacons too (`sources.followUnknown`), default false: an
    /// ESPresense node or a gateway reports every phone, TV and tag in range, and a site follows
    /// its own beacons (the file's `beacons:` and `<root>/config/beacons`).
    public var followUnknown: Bool

    public init(espresense: ESPresenseSettings? = nil, gateways: [GatewaySettings] = [], followUnknown: Bool = false) {
        self.espresense = espresense
        self.gateways = gateways
        self.followUnknown = followUnknown
    }

    /// Whether any foreign source is configured.
    public var isEmpty: Bool { espresense == nil && gateways.isEmpty }
}

/// `sources.espresense`.
public struct ESPresenseSettings: Sendable, Hashable {
    /// Their topic prefix (`espresense`, the firmware's `CHANNEL`): devices on
    /// `<topic>/devices/<id>/<node>`, availability on `<topic>/rooms/<node>/status`.
    public var topic: String
    /// Node → room where a node's name is not its room (ESPresense names a node after its room).
    public var rooms: [String: String]
    /// A node that has not reported a device for this long no longer hears it, seconds, default
    /// 15: ESPresense reports a device it hears at least every `skip_ms` (5 s by default,
    /// `DEFAULT_SKIP_MS`) and never says it stopped hearing one.
    public var silenceTimeout: Double
    /// The nodes' `absorption` (default 2.7, ESPresense's own default), used only to recover an
    /// RSSI from a message that carries a distance alone.
    public var absorption: Double

    public static let defaultSilenceTimeout = 15.0

    public init(topic: String = "espresense", rooms: [String: String] = [:],
                silenceTimeout: Double = Self.defaultSilenceTimeout, absorption: Double = ESPresenseEvidence.defaultAbsorption) {
        self.topic = topic
        self.rooms = rooms
        self.silenceTimeout = silenceTimeout
        self.absorption = absorption
    }

    /// The room node `node` serves.
    public func room(of node: String) -> String { rooms[node] ?? node }
}

/// One entry of `sources.gateways`.
public struct GatewaySettings: Sendable, Hashable {
    /// The MQTT filter their adverts come on, e.g. `home/+/BTtoMQTT/+`: the level before
    /// `BTtoMQTT` (or, without one, the first `+` level) names the gateway.
    public var topic: String
    /// Gateway name (as in its topic) → room.
    public var rooms: [String: String]
    /// The room of a gateway that `rooms` does not name; default none (such a gateway's adverts
    /// are refused, logged once a minute).
    public var room: String?
    /// Where the gateways say `online`/`offline` when not beside their adverts (a Theengs
    /// Gateway's moved `lwt_topic`): a topic, or a filter with `+` at the gateway's level
    /// (`GatewayAvailability`); default nil, `<…>/<gateway>/LWT` beside `BTtoMQTT`.
    public var availability: String?

    public init(topic: String = "home/+/BTtoMQTT/+", rooms: [String: String] = [:], room: String? = nil, availability: String? = nil) {
        self.topic = topic
        self.rooms = rooms
        self.room = room
        self.availability = availability
    }

    /// Which level of a matching topic names the gateway.
    public var gatewayLevel: Int? {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        if let marker = levels.firstIndex(of: "BTtoMQTT"), marker > 0 { return marker - 1 }
        return levels.firstIndex(of: "+")
    }

    /// Whether the gateway's level comes right before a `BTtoMQTT` level, as OpenMQTTGateway and
    /// Theengs Gateway write it: their last will (`<…>/<gateway>/LWT`) is then beside it.
    public var namesGatewayBeforeBTtoMQTT: Bool {
        (topic.split(separator: "/", omittingEmptySubsequences: false).firstIndex(of: "BTtoMQTT") ?? 0) > 0
    }

    /// The gateway the topic names at its gateway level, nil when that level is a wildcard (the
    /// entry reads any gateway).
    public var namedGateway: String? {
        guard let level = gatewayLevel else { return nil }
        let name = topic.split(separator: "/", omittingEmptySubsequences: false)[level]
        return name == "+" || name == "#" ? nil : String(name)
    }

    /// Where this entry's gateways say `online`/`offline`: `availability` when given and valid,
    /// else beside their adverts; nil when neither is known.
    public var availabilityTopic: GatewayAvailability? {
        guard let availability else { return GatewayAvailability.besideAdverts(of: self) }
        return try? GatewayAvailability(configured: availability, namedGateway: namedGateway)
    }

    /// The room of gateway `name`, nil when not configured.
    public func room(of name: String) -> String? { rooms[name] ?? room }
}
