import BeaconCore
import RoomDecisions

/// Home Assistant MQTT discovery (docs/MQTT.md's `homeassistant/…/config` row).
///
/// - Per beacon one device with a `device_tracker` (source `bluetooth_le`) whose state is `home`
///   or `not_home`, so that Home Assistant's `person` and `zone.home` use it; its one attribute,
///   `room`, changes only with the room, so Home Assistant's recorder stores a tracker state per
///   room change, not per measurement. A *Room* sensor (`device_class: enum`) whose `options` are
///   every room the site knows plus `not_home`: Home Assistant refuses a state outside them, so
///   `addRoom` must be followed by every beacon's room config before that room is published as a
///   state. A diagnostic *Distance* sensor. Where the site's floors are known (configured, or
///   learned by the site model from its walks' truth), a *Floor* sensor (`device_class: enum`,
///   `options` the floors plus `not_home`) from the location's `floor`: what upstairs/downstairs
///   automations want. All are available while `<root>/aggregator/status` is `online`.
/// - The aggregator is a device of its own, with a connectivity sensor on its status.
/// - Each node is a device `via` the aggregator, with a connectivity sensor on
///   `<root>/nodes/<node>/status` and its telemetry as diagnostic sensors, unavailable while the
///   node is offline and expiring when telemetry stops coming. A foreign node's device has only
///   its connectivity, on the availability topic the node itself publishes (`NodeKind`).
///
/// Config topics are `<prefix>/<component>/beaconpresence_<root>/<object>/config` with `/` in the
/// root written `_` (`siteID`), and `unique_id`s and device identifiers carry the root too, so two
/// sites on one broker (or one Home Assistant) never collide. A beacon's objects end in `_tracker`,
/// `_room` or `_distance`, a node's are `node_<node>_<entity>` with other endings, and the
/// aggregator's is `aggregator_connectivity`: no id of one can name another's.
public struct HomeAssistantDiscovery: Sendable {
    /// Who publishes the entities (discovery's `origin`).
    public struct Origin: Sendable, Hashable {
        public var name: String
        public var softwareVersion: String
        /// The project's address; left out of the payload when nil.
        public var supportURL: String?

        public init(name: String = "BeaconPresence", softwareVersion: String, supportURL: String? = nil) {
            self.name = name
            self.softwareVersion = softwareVersion
            self.supportURL = supportURL
        }
    }

    /// One entity kind of the beacon's device.
    public enum Entity: String, Sendable, CaseIterable {
        case tracker
        case room
        case distance
        /// Only where floors are known (`entities`).
        case floor

        var component: String { self == .tracker ? "device_tracker" : "sensor" }
    }

    /// One entity of a node's device: its connectivity, a field of its telemetry each, and its
    /// receiver offset as the nodes' calibration solved it.
    public enum NodeEntity: String, Sendable, CaseIterable {
        case connectivity
        case advertsPerSecond = "adverts_per_second"
        case beacons
        case reconnects
        /// The radio's state (`scanning`, `retrying`), when the agent reports one: unknown otherwise.
        case radio
        /// The node's offset from `<root>/calibration`, dB, with the rest of its entry (confident,
        /// standard error, paths) as attributes: offered once the calibration names the node.
        case rssiOffset = "rssi_offset"

        var component: String { self == .connectivity ? "binary_sensor" : "sensor" }

        /// The telemetry key the sensor shows (nil for connectivity).
        var telemetryKey: String? {
            switch self {
            case .connectivity, .rssiOffset: nil
            case .advertsPerSecond: "advertsPerSecond"
            case .beacons: "beacons"
            case .reconnects: "reconnects"
            case .radio: "radio"
            }
        }

        var name: String {
            switch self {
            case .connectivity: "Connectivity"
            case .advertsPerSecond: "Adverts per second"
            case .beacons: "Beacons"
            case .reconnects: "Reconnects"
            case .radio: "Radio"
            case .rssiOffset: "RSSI offset"
            }
        }
    }

    /// What a node's device shows besides its id: from its info message, when one was seen, and
    /// what kind of node it is (which topics its sensors read, which sensors it has).
    public struct NodeDevice: Sendable, Hashable {
        /// Given to Home Assistant as the device's suggested area.
        public var room: String?
        public var version: String?
        public var kind: NodeKind
        /// Named by the nodes' calibration: its device has the RSSI offset sensor. A site whose
        /// nodes do not calibrate each other gets no sensor that would stay unknown.
        public var calibrated: Bool

        public init(room: String? = nil, version: String? = nil, kind: NodeKind = .agent, calibrated: Bool = false) {
            self.room = room
            self.version = version
            self.kind = kind
            self.calibrated = calibrated
        }
    }

    /// Seconds without telemetry after which a node's telemetry sensors turn unavailable: three
    /// of the agents' default 30 s intervals, so one lost message (QoS 0) is no gap.
    public static let telemetryExpiry = 90

    public let prefix: String
    public let topics: TopicScheme
    public let origin: Origin
    /// `beaconpresence_<root with / as _>`: the site's part of every id, so two sites on one broker
    /// or one Home Assistant (`hq/presence`, `lab/presence`) never share an id.
    public let siteID: String
    /// Every room the site knows, sorted: the room sensors' `options` (with `not_home` after them).
    public private(set) var rooms: [String] = []
    /// Every floor the site knows, sorted: the floor sensors' `options` (with `not_home` after them).
    /// Empty: no floor sensor.
    public let floors: [String]
    /// The entities of each beacon's device: the floor sensor only where floors are known.
    public var entities: [Entity] { floors.isEmpty ? Entity.allCases.filter { $0 != .floor } : Entity.allCases }
    /// Per entity, its payload cut around the beacon's fields (`payload` rendered once with
    /// placeholders): a new beacon's three configs are then a few appends each instead of a JSON
    /// writer's work (they were half the aggregator's cold start). Nil if the cut did not
    /// reproduce `payload` (a placeholder character in the prefix, root or origin). Cut again
    /// when a room is added.
    private var templates: [PayloadTemplate]?
    /// Nodes announced as devices, with what their device shows (`HomeAssistantDiscovery+Nodes`).
    var nodeDevices: [TopicLevelID: NodeDevice] = [:]
    /// Node devices the broker kept from before that no node has claimed yet, with when they were
    /// seen: a node retired while the aggregator was down (its info and status cleared) left them.
    var unclaimedNodeDevices: [TopicLevelID: Instant] = [:]
    /// Whether the aggregator's own device was announced in this run (node devices name it).
    var aggregatorAnnounced = false

    public init(prefix: String, topics: TopicScheme, origin: Origin, rooms: [String] = [], floors: [String] = []) {
        self.floors = Array(Set(floors.filter { $0 != RoomDecision.notHome })).sorted()
        self.prefix = prefix
        self.topics = topics
        self.origin = origin
        siteID = Self.siteID(root: topics.root)
        self.rooms = Array(Set(rooms.filter { $0 != RoomDecision.notHome })).sorted()
        cutTemplates()
    }

    /// Adds a room to the room sensors' options; false if it was known (or is `not_home`). After
    /// true, every beacon's room config must be sent again before any beacon is in that room.
    public mutating func addRoom(_ room: String) -> Bool {
        guard room != RoomDecision.notHome else { return false }
        var low = 0, high = rooms.count
        while low < high {
            let middle = (low + high) / 2
            if rooms[middle] < room { low = middle + 1 } else { high = middle }
        }
        guard low == rooms.count || rooms[low] != room else { return false }
        rooms.insert(room, at: low)
        cutTemplates()
        return true
    }

    private mutating func cutTemplates() {
        templates = nil
        let templates = Entity.allCases.map { PayloadTemplate(render($0, id: PayloadTemplate.Field.id.placeholder,
            name: PayloadTemplate.Field.name.placeholder, model: PayloadTemplate.Field.model.placeholder,
            serialNumber: PayloadTemplate.Field.serialNumber.placeholder)) }
        // The cut must give what the writer gives, escapes included.
        let probe = BeaconID(rawValue: "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-5-6")
        let probeName = "Ann's \"keys\"\\\u{1}é"
        if zip(Entity.allCases, templates).allSatisfy({ entity, template in
            template.render(id: "alice", name: probeName, model: Self.model(of: probe), serialNumber: probe.rawValue)
                == payload(entity, beacon: "alice", canonical: probe, name: probeName)
        }) {
            self.templates = templates
        }
    }

    /// Home Assistant's own status topic (`online` when it (re)starts): discovery is re-sent then.
    public var statusTopic: String { "\(prefix)/status" }

    /// The site part for `root`: one-to-one, and `[a-zA-Z0-9_-]` only, as discovery's node id needs.
    /// A `_` written in the root itself becomes `_U` (roots are lowercase), so `hq_presence` and
    /// `hq/presence` differ too.
    public static func siteID(root: String) -> String {
        var id = "beaconpresence_"
        for character in root {
            switch character {
            case "/": id += "_"
            case "_": id += "_U"
            default: id.append(character)
            }
        }
        return id
    }

    /// The config topic of one entity of the beacon with topic id `id`.
    public func configTopic(_ entity: Entity, beacon id: String) -> String {
        "\(prefix)/\(entity.component)/\(siteID)/\(id)_\(entity.rawValue)/config"
    }

    /// `beaconpresence_<root>_<beacon>_<entity>`.
    public func uniqueID(_ entity: Entity, beacon id: String) -> String {
        "\(siteID)_\(id)_\(entity.rawValue)"
    }

    /// The retained config messages of one beacon.
    public func configurations(beacon id: String, canonical: BeaconID, name: String) -> [AggregatorPublication] {
        entities.map { configuration($0, beacon: id, canonical: canonical, name: name) }
    }

    /// The retained config message of one entity of a beacon.
    public func configuration(_ entity: Entity, beacon id: String, canonical: BeaconID, name: String) -> AggregatorPublication {
        guard let templates, let index = Entity.allCases.firstIndex(of: entity) else {
            return .retained(configTopic(entity, beacon: id), payload(entity, beacon: id, canonical: canonical, name: name))
        }
        return .retained(configTopic(entity, beacon: id),
                         templates[index].render(id: id, name: name, model: Self.model(of: canonical), serialNumber: canonical.rawValue))
    }

    /// Empty retained messages: Home Assistant removes the beacon's entities (a forgotten beacon).
    public func removals(beacon id: String) -> [AggregatorPublication] {
        entities.map { .clear(configTopic($0, beacon: id)) }
    }

    /// The discovery payload of one entity.
    public func payload(_ entity: Entity, beacon id: String, canonical: BeaconID, name: String) -> String {
        render(entity, id: id, name: name, model: Self.model(of: canonical), serialNumber: canonical.rawValue)
    }

    /// The tracker's state from the plain room topic: `home` for any room, `not_home` as it is,
    /// and an empty payload (a forgotten beacon's cleared topic) left empty, which Home Assistant ignores.
    public static let trackerStateTemplate = "{{ value if value in ('', 'not_home') else 'home' }}"
    /// The tracker's attributes from the plain room topic: only the room, so they change with it.
    public static let trackerAttributesTemplate = "{{ {'room': value} | tojson }}"
    /// The floor sensor's state from the location JSON: its `floor`; `not_home` away; and `None`
    /// (which an MQTT sensor shows as unknown) in a room whose floor nobody gave.
    public static let floorStateTemplate =
        "{{ value_json.floor if value_json.floor is defined else ('not_home' if value_json.room == 'not_home' else None) }}"

    private func render(_ entity: Entity, id: String, name: String, model: String, serialNumber: String) -> String {
        var json = JSONObjectWriter()
        switch entity {
        case .tracker:
            // No name: the entity is named after its device ("Alice's keys"). No icon: Home
            // Assistant's own shows home and away.
            json.addNull("name")
            json.add("unique_id", uniqueID(.tracker, beacon: id))
            json.add("state_topic", topics.locationRoom(id))
            json.add("value_template", Self.trackerStateTemplate)
            json.add("payload_home", "home")
            json.add("payload_not_home", RoomDecision.notHome)
            json.add("source_type", "bluetooth_le")
            // The plain room topic, not the location JSON, whose distance and candidates change
            // with every measurement.
            json.add("json_attributes_topic", topics.locationRoom(id))
            json.add("json_attributes_template", Self.trackerAttributesTemplate)
        case .room:
            json.add("name", "Room")
            json.add("unique_id", uniqueID(.room, beacon: id))
            json.add("state_topic", topics.locationRoom(id))
            json.add("device_class", "enum")
            json.addRaw("options", JSONObjectWriter.array((rooms + [RoomDecision.notHome]).map(Self.quoted)))
            json.add("icon", "mdi:map-marker")
        case .distance:
            json.add("name", "Distance")
            json.add("unique_id", uniqueID(.distance, beacon: id))
            json.add("state_topic", topics.location(id))
            // `null` (not_home) renders "None", which an MQTT sensor shows as unknown.
            json.add("value_template", "{{ value_json.distance }}")
            json.add("unit_of_measurement", "m")
            json.add("device_class", "distance")
            json.add("state_class", "measurement")
            json.add("entity_category", "diagnostic")
        case .floor:
            json.add("name", "Floor")
            json.add("unique_id", uniqueID(.floor, beacon: id))
            json.add("state_topic", topics.location(id))
            json.add("value_template", Self.floorStateTemplate)
            json.add("device_class", "enum")
            json.addRaw("options", JSONObjectWriter.array((floors + [RoomDecision.notHome]).map(Self.quoted)))
            json.add("icon", "mdi:home-floor-1")
        }
        addAvailability(topics.aggregatorStatus, to: &json)
        json.add("qos", 1)
        var device = JSONObjectWriter()
        device.addRaw("identifiers", JSONObjectWriter.array([Self.quoted("\(siteID)_\(id)")]))
        device.add("name", name)
        device.add("manufacturer", origin.name)
        device.add("model", model)
        device.add("serial_number", serialNumber)
        json.addRaw("device", device.json)
        addOrigin(to: &json)
        return json.json
    }

    func addAvailability(_ topic: String, to json: inout JSONObjectWriter) {
        json.add("availability_topic", topic)
        json.add("payload_available", "online")
        json.add("payload_not_available", "offline")
    }

    func addOrigin(to json: inout JSONObjectWriter) {
        var originObject = JSONObjectWriter()
        originObject.add("name", origin.name)
        originObject.add("sw_version", origin.softwareVersion)
        if let supportURL = origin.supportURL { originObject.add("support_url", supportURL) }
        json.addRaw("origin", originObject.json)
    }

    /// The beacon's format, from its canonical id, as the device model.
    static func model(of beacon: BeaconID) -> String {
        let raw = beacon.rawValue
        if raw.hasPrefix("ibeacon-") { return "iBeacon" }
        if raw.hasPrefix("altbeacon-") { return "AltBeacon" }
        if raw.hasPrefix("eddystone-") { return "Eddystone-UID" }
        return "Bluetooth LE device"
    }

    static func quoted(_ text: String) -> String {
        var out = ""
        JSONText.appendQuoted(text, to: &out)
        return out
    }
}
