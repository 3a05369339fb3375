import BeaconCore

/// Home Assistant MQTT discovery for the aggregator's beacons: per beacon one device with a
/// `device_tracker` (source `bluetooth_le`; its state is the room name or `not_home`, which Home
/// Assistant shows as the location), a room sensor and a diagnostic distance sensor, all available
/// while `<root>/aggregator/status` is `online`.
///
/// Config topics are `<prefix>/<component>/beaconpresence_<root>/<beacon>/config` with `/` in the
/// root written `_` (`siteID`), and `unique_id`s and device identifiers carry the root too, so two
/// sites on one broker (or one Home Assistant) never collide.
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

        var component: String { self == .tracker ? "device_tracker" : "sensor" }
    }

    public let prefix: String
    public let topics: TopicScheme
    public let origin: Origin

    public init(prefix: String, topics: TopicScheme, origin: Origin) {
        self.prefix = prefix
        self.topics = topics
        self.origin = origin
    }

    /// Home Assistant's own status topic (`online` when it (re)starts): discovery is re-sent then.
    public var statusTopic: String { "\(prefix)/status" }

    /// `beaconpresence_<root with / as _>`: the site's part of every id, so two sites on one broker
    /// or one Home Assistant (`hq/presence`, `lab/presence`) never share an id. A `_` written in the
    /// root itself becomes `_U` (roots are lowercase), so `hq_presence` and `hq/presence` differ too.
    public var siteID: String { Self.siteID(root: topics.root) }

    /// The site part for `root`: one-to-one, and `[a-zA-Z0-9_-]` only, as discovery's node id needs.
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
        Entity.allCases.map { .retained(configTopic($0, beacon: id), payload($0, beacon: id, canonical: canonical, name: name)) }
    }

    /// Empty retained messages: Home Assistant removes the beacon's entities (a forgotten beacon).
    public func removals(beacon id: String) -> [AggregatorPublication] {
        Entity.allCases.map { .clear(configTopic($0, beacon: id)) }
    }

    /// The discovery payload of one entity.
    public func payload(_ entity: Entity, beacon id: String, canonical: BeaconID, name: String) -> String {
        var json = JSONObjectWriter()
        switch entity {
        case .tracker:
            // No name: the entity is named after its device ("Alice's keys").
            json.addNull("name")
            json.add("unique_id", uniqueID(.tracker, beacon: id))
            json.add("state_topic", topics.locationRoom(id))
            json.add("payload_home", "home")
            json.add("payload_not_home", RoomDecision.notHome)
            json.add("source_type", "bluetooth_le")
            json.add("json_attributes_topic", topics.location(id))
            json.add("icon", "mdi:bluetooth")
        case .room:
            json.add("name", "Room")
            json.add("unique_id", uniqueID(.room, beacon: id))
            json.add("state_topic", topics.locationRoom(id))
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
        }
        json.add("availability_topic", topics.aggregatorStatus)
        json.add("payload_available", "online")
        json.add("payload_not_available", "offline")
        json.add("qos", 1)
        var device = JSONObjectWriter()
        device.addRaw("identifiers", JSONObjectWriter.array([quoted("\(siteID)_\(id)")]))
        device.add("name", name)
        device.add("manufacturer", origin.name)
        device.add("model", Self.model(of: canonical))
        device.add("serial_number", canonical.rawValue)
        json.addRaw("device", device.json)
        var originObject = JSONObjectWriter()
        originObject.add("name", origin.name)
        originObject.add("sw_version", origin.softwareVersion)
        if let supportURL = origin.supportURL { originObject.add("support_url", supportURL) }
        json.addRaw("origin", originObject.json)
        return json.json
    }

    /// The beacon's format, from its canonical id, as the device model.
    static func model(of beacon: BeaconID) -> String {
        let raw = beacon.rawValue
        if raw.hasPrefix("ibeacon-") { return "iBeacon" }
        if raw.hasPrefix("altbeacon-") { return "AltBeacon" }
        if raw.hasPrefix("eddystone-") { return "Eddystone-UID" }
        return "Bluetooth LE device"
    }

    private func quoted(_ text: String) -> String {
        var out = ""
        JSONText.appendQuoted(text, to: &out)
        return out
    }
}
