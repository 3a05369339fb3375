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
    /// `beaconpresence_<root with / as _>`: the site's part of every id, so two sites on one broker
    /// or one Home Assistant (`hq/presence`, `lab/presence`) never share an id.
    public let siteID: String
    /// Per entity, its payload cut around the beacon's fields (`payload` rendered once with
    /// placeholders): a new beacon's three configs are then a few appends each instead of a JSON
    /// writer's work (they were half the aggregator's cold start). Nil if the cut did not
    /// reproduce `payload` (a placeholder character in the prefix, root or origin).
    private var templates: [PayloadTemplate]?

    public init(prefix: String, topics: TopicScheme, origin: Origin) {
        self.prefix = prefix
        self.topics = topics
        self.origin = origin
        siteID = Self.siteID(root: topics.root)
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
        guard let templates else {
            return Entity.allCases.map { .retained(configTopic($0, beacon: id), payload($0, beacon: id, canonical: canonical, name: name)) }
        }
        let model = Self.model(of: canonical)
        return zip(Entity.allCases, templates).map { entity, template in
            .retained(configTopic(entity, beacon: id),
                      template.render(id: id, name: name, model: model, serialNumber: canonical.rawValue))
        }
    }

    /// Empty retained messages: Home Assistant removes the beacon's entities (a forgotten beacon).
    public func removals(beacon id: String) -> [AggregatorPublication] {
        Entity.allCases.map { .clear(configTopic($0, beacon: id)) }
    }

    /// The discovery payload of one entity.
    public func payload(_ entity: Entity, beacon id: String, canonical: BeaconID, name: String) -> String {
        render(entity, id: id, name: name, model: Self.model(of: canonical), serialNumber: canonical.rawValue)
    }

    private func render(_ entity: Entity, id: String, name: String, model: String, serialNumber: String) -> String {
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
        device.addRaw("identifiers", JSONObjectWriter.array([Self.quoted("\(siteID)_\(id)")]))
        device.add("name", name)
        device.add("manufacturer", origin.name)
        device.add("model", model)
        device.add("serial_number", serialNumber)
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

    private static func quoted(_ text: String) -> String {
        var out = ""
        JSONText.appendQuoted(text, to: &out)
        return out
    }
}

/// A discovery payload cut at the beacon's fields: literal JSON text between them. JSON escaping
/// works character by character, so a field escaped on its own gives the bytes the writer gives for
/// the whole string it sits in.
private struct PayloadTemplate: Sendable {
    enum Field: Int, Sendable, CaseIterable {
        case id, name, model, serialNumber

        /// A private-use character standing for the field while the template is cut.
        var placeholder: String { String(Character(Unicode.Scalar(0xF0000 + UInt32(rawValue))!)) }
    }

    /// `literals.count == fields.count + 1`: literal, field, literal, …, literal.
    private var literals: [String] = []
    private var fields: [Field] = []
    private var literalLength = 0

    init(_ rendered: String) {
        var literal = ""
        for scalar in rendered.unicodeScalars {
            if scalar.value >= 0xF0000, let field = Field(rawValue: Int(scalar.value - 0xF0000)) {
                literals.append(literal)
                fields.append(field)
                literal = ""
            } else {
                literal.unicodeScalars.append(scalar)
            }
        }
        literals.append(literal)
        literalLength = literals.reduce(0) { $0 + $1.utf8.count }
    }

    func render(id: String, name: String, model: String, serialNumber: String) -> String {
        var out = ""
        out.reserveCapacity(literalLength + 2 * id.utf8.count + name.utf8.count + model.utf8.count + serialNumber.utf8.count + 32)
        for index in fields.indices {
            out += literals[index]
            switch fields[index] {
            case .id: Self.appendEscaped(id, to: &out)
            case .name: Self.appendEscaped(name, to: &out)
            case .model: Self.appendEscaped(model, to: &out)
            case .serialNumber: Self.appendEscaped(serialNumber, to: &out)
            }
        }
        out += literals[literals.count - 1]
        return out
    }

    /// `text` as inside a JSON string literal (`JSONText.quoted` without its quotes).
    private static func appendEscaped(_ text: String, to out: inout String) {
        if JSONText.needsEscape(text) {
            out += JSONText.quoted(text).dropFirst().dropLast()
        } else {
            out += text
        }
    }
}
