import MQTTClient
import BeaconCore
import RoomDecisions

/// Everything the live aggregator (`presence-aggregator run`) needs, with documented defaults.
///
/// Loaded from a YAML file (`etc/presence-aggregator.yaml` is the documented example), then the
/// environment (`PRESENCE_BROKER`, …), then command-line flags: each layer overrides the one before
/// (`AggregatorConfiguration.settings` gives every key, variable, flag and default). Every value is validated as it is
/// read and an error names the field as the user wrote it (`decision.dwell: -1 is not a positive
/// number of seconds`).
public struct AggregatorConfiguration: Sendable {
    /// The broker, default `mqtt://127.0.0.1:1883`.
    public var broker: MQTTBrokerURL
    /// User name, default none (anonymous).
    public var username: String?
    /// Password, default none; also read from a file (`passwordFile`), so it need not sit in the
    /// YAML or the environment.
    public var password: String?
    /// The file `password` was read from (`passwordFile`), for `check-config`, which shows the path
    /// and never the password.
    public var passwordFile: String?
    /// CA file that verifies the broker's certificate; used with `mqtts://`. Default for `mqtts://`:
    /// the system bundle `/etc/ssl/certs/ca-certificates.crt`.
    public var caFile: String?
    /// Client certificate and key (both or neither), for brokers that require one.
    public var certificateFile: String?
    public var keyFile: String?
    /// MQTT client id, default `presence-aggregator`; unique per broker (one aggregator per site).
    public var clientID: String
    /// Topic root, default `presence`.
    public var topics: TopicScheme
    /// Known beacons: canonical id → alias (used in topics), display name and own away timeout.
    /// Default none: every beacon is published under its canonical id. The live aggregator merges
    /// them with the operator's `<root>/config/beacons`, these entries winning for the beacons they
    /// name (`AggregatorKnownBeacons`).
    public var knownBeacons: [KnownBeacon]
    /// The room decision's parameters, default `RoomDecisionParameters.default`.
    public var decision: RoomDecisionParameters
    /// A learned site model (`decision.model`, a file `presence-aggregator learn` wrote), default
    /// none: the physics decision alone. With one, the model decides each beacon's room and the
    /// physics decision remains its fallback (`SiteModelDecider`).
    public var siteModel: SiteModel?
    /// The file `siteModel` was read from, for `check-config`.
    public var siteModelPath: String?
    /// What reading `siteModel` warned of (keys of removed settings), logged at start and shown by `check-config`.
    public var siteModelWarnings: [String] = []
    /// Each room's floor (room → floor), from the file's `floors:` (floor → its rooms). Default
    /// none. A room given no floor here takes the one the site model learned from its walks'
    /// truth, if any; where a beacon's room has a floor, its location carries it (`floor`) and
    /// Home Assistant gets a floor sensor per beacon.
    public var floors: [String: String] = [:]

    /// The floor of `room`: configured, else learned by the site model; nil when neither knows it.
    public func floor(of room: String) -> String? {
        if let floor = floors[room] { return floor }
        guard let model = siteModel, let index = model.roomIndex(room) else { return nil }
        return model.floors[index]
    }

    /// Every room with a known floor: the configuration's over the model's.
    public var roomFloors: [String: String] {
        var result: [String: String] = [:]
        if let model = siteModel {
            for (index, room) in model.rooms.enumerated() { if let floor = model.floors[index] { result[room] = floor } }
        }
        result.merge(floors) { _, configured in configured }
        return result
    }
    /// Home Assistant MQTT discovery, default on.
    public var homeAssistantDiscovery: Bool
    /// Discovery prefix, default `homeassistant` (Home Assistant's default).
    public var homeAssistantPrefix: String
    /// A beacon that is not a known beacon and has not been heard for this long is forgotten: its
    /// retained topics (location, room, discovery) are cleared. Seconds, default 86,400 (24 h):
    /// long enough that a visitor's phone or a beacon in a drawer does not churn Home Assistant
    /// entities daily, short enough that a street's worth of passing beacons does not pile up.
    /// Known beacons are never forgotten (their entities stay, `not_home`). 0 turns forgetting off.
    public var forgetAfter: Double
    /// How often the decider lets time pass without measurements, seconds, 0.05…1, default 1
    /// (at least once a second: dwell and away timers resolve to this).
    public var tickInterval: Double
    /// MQTT keepalive, whole seconds 5…3600, default 30. The broker declares a silent client gone
    /// (and publishes its last will) after 1.5 × this, which bounds how fast a standby takes over.
    public var keepAlive: Int
    /// Leadership between several instances for one site (a warm standby), default off: one
    /// instance that always publishes.
    public var failover: FailoverSettings
    /// Most beacons that are not known beacons tracked at once, default 20,000 (at least 1). A new
    /// one beyond that evicts the least recently heard of them, forgotten as by `forgetAfter`
    /// (counted in `AggregatorCore.evictedBeacons`); known beacons are never evicted. Bounds the
    /// aggregator's memory (the Scaling article says how much per beacon) and its retained
    /// topics under a flood of random beacon ids, while real beacons, heard every few seconds, are
    /// never the least recently heard.
    public var maxUnknownBeacons: Int
    /// Radios the site already owns, read besides its own agents: ESPresense nodes and BLE-to-MQTT
    /// gateways (`sources:`, file only), default none.
    public var sources = ForeignSourcesSettings()
    /// Rooms' motion and presence sensors (`motion:`, file only), read as evidence that someone is
    /// in the room now (`MotionSensorSettings`; the Room decisions article, "Motion"), default none.
    public var motion: [MotionSensorSettings] = []
    /// How motion weighs in the decision (`decision.motionHold`; the rest are the defaults of
    /// `MotionParameters`).
    public var motionDecision = MotionParameters.default
    /// When a location is published again in the same room because its distance changed
    /// (`LocationRefreshRule`: 25 % at once, any 0.1 m after 60 s), default `.default`.
    public var locationRefresh = LocationRefreshRule.default
    /// Settings of an older file or environment that no longer exist and were ignored
    /// (`removedSettings`), one warning each: logged at start, printed by `check-config` and `replay`.
    public var warnings: [String] = []

    public static let defaultCAFile = "/etc/ssl/certs/ca-certificates.crt"

    /// Settings since removed, by YAML path (a section stands for every key in it), with why: a file
    /// or environment that still gives one loads with a warning naming it, and decides as today.
    public static let removedSettings: [String: String] = [
        "decision.worn": "a beacon marked worn is decided as any other (the worn profile, its rise rule and level "
            + "queries lost to the defaults on a real house: docs/research/2026-12-07-worn-path-removed.md)",
    ]

    /// The environment variables of `removedSettings`, each with its YAML path.
    public static let removedEnvironment: [String: String] = Dictionary(uniqueKeysWithValues: [
        "MARGIN", "FALL_RATE", "DWELL", "EVIDENCE", "LEAD_CAP", "FAST_LEAD", "FAST_FOR", "RISE_LEAD", "RISE_DWELL",
        "RISE_EVIDENCE", "RISE_QUERY",
    ].map { ("PRESENCE_WORN_" + $0, "decision.worn") })

    public init(
        broker: MQTTBrokerURL = MQTTBrokerURL(host: "127.0.0.1"),
        username: String? = nil,
        password: String? = nil,
        caFile: String? = nil,
        certificateFile: String? = nil,
        keyFile: String? = nil,
        clientID: String = "presence-aggregator",
        topics: TopicScheme = .default,
        knownBeacons: [KnownBeacon] = [],
        decision: RoomDecisionParameters = .default,
        homeAssistantDiscovery: Bool = true,
        homeAssistantPrefix: String = "homeassistant",
        forgetAfter: Double = 86_400,
        tickInterval: Double = 1,
        keepAlive: Int = 30,
        failover: FailoverSettings = FailoverSettings(),
        maxUnknownBeacons: Int = 20_000
    ) {
        self.broker = broker
        self.username = username
        self.password = password
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.clientID = clientID
        self.topics = topics
        self.knownBeacons = knownBeacons
        self.decision = decision
        self.homeAssistantDiscovery = homeAssistantDiscovery
        self.homeAssistantPrefix = homeAssistantPrefix
        self.forgetAfter = forgetAfter
        self.tickInterval = tickInterval
        self.keepAlive = keepAlive
        self.failover = failover
        self.maxUnknownBeacons = maxUnknownBeacons
    }

    /// The documented defaults.
    public static let `default` = AggregatorConfiguration()
}

/// How several `presence-aggregator` instances of one site share the work (PastOneBuilding.md, "A standby
/// aggregator"): every instance listens and decides; the one holding the lease publishes.
public struct FailoverSettings: Sendable, Hashable {
    /// Off (the default): this is the site's only instance and always publishes.
    public var enabled: Bool
    /// This instance's id, unique among the site's instances (`agg-a`): it names the instance in
    /// the lease and its MQTT client ids. Required when enabled.
    public var instance: TopicLevelID?
    /// A standby that hears nothing of the leader for this long (no lease renewal, no last will)
    /// takes over anyway, seconds; the leader renews every quarter of it. A safety net for a last
    /// will that never comes (the broker restarted while the leader was gone). Default 60.
    public var leaseTimeout: Double

    public init(enabled: Bool = false, instance: TopicLevelID? = nil, leaseTimeout: Double = 60) {
        self.enabled = enabled
        self.instance = instance
        self.leaseTimeout = leaseTimeout
    }
}
