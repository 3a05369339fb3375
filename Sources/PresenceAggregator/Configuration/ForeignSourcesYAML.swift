import BeaconCore
import ConfigFile
import MQTTClient
import RoomDecisions

/// The `sources:` section of the aggregator's YAML (ESPresense and BLE gateways article):
///
/// ```yaml
/// sources:
///   espresense:
///     topic: espresense            # their prefix; absent: ESPresense is off
///     rooms: {desk-node: office}   # node -> room where the name is not the room
///     silenceTimeout: 15           # s without a report of a device: no longer heard
///   gateways:
///     - topic: home/+/BTtoMQTT/+   # the level before BTtoMQTT names the gateway
///       rooms: {gw-office: office}
///       room: hall                 # any other gateway on this topic (optional)
///       availability: lwt/+/state  # where they say online/offline, + at the gateway's level
///                                  # (optional; default <…>/<gateway>/LWT beside BTtoMQTT)
///   followUnknown: false           # follow devices that are not known beacons too
/// ```
///
/// File only (no variable or flag: a map of rooms does not fit one). Every mistake is named with
/// its line, `aggregator.yaml:12: sources.gateways[0].rooms.gw-office: …`.
struct ForeignSourcesYAML {
    private(set) var settings = ForeignSourcesSettings()
    private(set) var shown: [EffectiveSetting] = []
    private(set) var errors: [AggregatorConfigurationError] = []
    private let file: String

    init(_ node: YAMLNode, file: String) {
        self.file = file
        guard !node.isNull else { return }
        guard let mapping = node.mapping else {
            fail("sources", "expected a mapping (espresense, gateways, followUnknown)", node.line)
            return
        }
        for (key, line, value) in mapping.entries {
            switch key {
            case "espresense": espresense(value, line: line)
            case "gateways": gateways(value, line: line)
            case "followUnknown":
                guard let flag = value.scalar.flatMap({ AggregatorConfiguration.boolean($0.text) }) else {
                    fail("sources.followUnknown", "expected true or false", line)
                    continue
                }
                settings.followUnknown = flag
                shown.append(EffectiveSetting(key: "sources.followUnknown", value: String(flag), source: source(line)))
            default:
                fail("sources.\(key)", "unknown key (known keys: espresense, gateways, followUnknown)", line)
            }
        }
    }

    private func source(_ line: Int) -> SettingSource { .file(path: file, line: line) }

    private mutating func fail(_ field: String, _ message: String, _ line: Int) {
        errors.append(AggregatorConfigurationError(field: field, message: message, source: source(line)))
    }

    private mutating func espresense(_ node: YAMLNode, line: Int) {
        if node.isNull { return }
        guard let mapping = node.mapping else { return fail("sources.espresense", "expected a mapping (topic, rooms, silenceTimeout, absorption)", line) }
        var result = ESPresenseSettings()
        var topicGiven = false
        var shown: [EffectiveSetting] = []
        for (key, keyLine, value) in mapping.entries {
            let field = "sources.espresense.\(key)"
            switch key {
            case "topic":
                guard let text = value.scalar?.text, TopicScheme(root: text) != nil else {
                    fail(field, "expected their topic prefix, \(TopicScheme.rootRule) (ESPresense's is espresense)", keyLine)
                    continue
                }
                result.topic = text
                topicGiven = true
                shown.append(EffectiveSetting(key: field, value: text, source: source(keyLine)))
            case "rooms":
                result.rooms = rooms(value, field: field, line: keyLine, nodeRule: TopicLevelID.isValid, nodeRuleText: TopicLevelID.rule)
                shown.append(EffectiveSetting(key: field, value: Self.describe(result.rooms), source: source(keyLine)))
            case "silenceTimeout":
                guard let seconds = number(value), seconds > 0, seconds <= 3600 else {
                    fail(field, "expected a number of seconds in 0…3600", keyLine)
                    continue
                }
                result.silenceTimeout = seconds
                shown.append(EffectiveSetting(key: field, value: JSONObjectWriter.number(seconds, decimals: 3), source: source(keyLine)))
            case "absorption":
                guard let factor = number(value), factor >= 1, factor <= 5 else {
                    fail(field, "expected ESPresense's absorption, 1…5", keyLine)
                    continue
                }
                result.absorption = factor
                shown.append(EffectiveSetting(key: field, value: JSONObjectWriter.number(factor, decimals: 3), source: source(keyLine)))
            default:
                fail(field, "unknown key (known keys: topic, rooms, silenceTimeout, absorption)", keyLine)
            }
        }
        guard topicGiven else {
            // A refused topic was named already; one mistake, one message.
            if mapping["topic"] == nil, !mapping.entries.isEmpty { fail("sources.espresense.topic", "required to read ESPresense nodes (their prefix, e.g. espresense)", line) }
            return
        }
        settings.espresense = result
        self.shown += shown
    }

    private mutating func gateways(_ node: YAMLNode, line: Int) {
        if node.isNull { return }
        guard let items = node.sequence else { return fail("sources.gateways", "expected a list of gateways (- topic: …)", line) }
        for (position, item) in items.enumerated() {
            let path = "sources.gateways[\(position)]"
            guard let mapping = item.mapping else {
                fail(path, "expected a mapping (topic, rooms, room, availability)", item.line)
                continue
            }
            var result = GatewaySettings()
            var topicGiven = false
            var shown: [EffectiveSetting] = []
            // Checked once the topic is read, whatever the keys' order: it says which gateways
            // a topic without `+` can be about.
            var availability: (text: String, line: Int)?
            for (key, keyLine, value) in mapping.entries {
                let field = "\(path).\(key)"
                switch key {
                case "topic":
                    guard let text = value.scalar?.text, (try? TopicFilter(text)) != nil, GatewaySettings(topic: text).gatewayLevel != nil else {
                        fail(field, "expected an MQTT filter whose level before BTtoMQTT (or first +) names the gateway, e.g. home/+/BTtoMQTT/+", keyLine)
                        continue
                    }
                    result.topic = text
                    topicGiven = true
                    shown.append(EffectiveSetting(key: field, value: text, source: source(keyLine)))
                case "rooms":
                    result.rooms = rooms(value, field: field, line: keyLine, nodeRule: Self.isTopicLevel,
                                         nodeRuleText: "a topic level: no '/', '+' or '#'")
                    shown.append(EffectiveSetting(key: field, value: Self.describe(result.rooms), source: source(keyLine)))
                case "room":
                    guard let text = value.scalar?.text, Self.isRoom(text) else {
                        fail(field, "expected a room id (\(TopicLevelID.rule), not not_home)", keyLine)
                        continue
                    }
                    result.room = text
                    shown.append(EffectiveSetting(key: field, value: text, source: source(keyLine)))
                case "availability":
                    guard let text = value.scalar?.text, !text.isEmpty else {
                        fail(field, "expected the gateways' availability topic, or a filter with one + where the gateway's name goes", keyLine)
                        continue
                    }
                    availability = (text, keyLine)
                default:
                    fail(field, "unknown key (known keys: topic, rooms, room, availability)", keyLine)
                }
            }
            guard topicGiven else {
                if mapping["topic"] != nil { continue }
                fail("\(path).topic", "required: the filter the gateway's adverts come on, e.g. home/+/BTtoMQTT/+", item.line)
                continue
            }
            if let availability {
                do {
                    _ = try GatewayAvailability(configured: availability.text, namedGateway: result.namedGateway)
                } catch {
                    fail("\(path).availability", error.reason, availability.line)
                    continue
                }
                result.availability = availability.text
                shown.append(EffectiveSetting(key: "\(path).availability", value: availability.text, source: source(availability.line)))
            } else {
                // Where the aggregator and Home Assistant read the gateways' online/offline.
                shown.append(EffectiveSetting(key: "\(path).availability", value: result.availabilityTopic?.filter
                    ?? "(none: no BTtoMQTT level after the gateway's)", source: .defaultValue))
            }
            settings.gateways.append(result)
            self.shown += shown
        }
    }

    /// A mapping of node (or gateway) names to rooms.
    private mutating func rooms(_ node: YAMLNode, field: String, line: Int, nodeRule: (String) -> Bool, nodeRuleText: String) -> [String: String] {
        if node.isNull { return [:] }
        guard let mapping = node.mapping else {
            fail(field, "expected a mapping of node to room ({desk-node: office})", line)
            return [:]
        }
        var rooms: [String: String] = [:]
        for (name, nameLine, value) in mapping.entries {
            guard nodeRule(name) else {
                fail("\(field).\(name.prefix(64))", "is not a node name (\(nodeRuleText))", nameLine)
                continue
            }
            guard let room = value.scalar?.text, Self.isRoom(room) else {
                fail("\(field).\(name)", "expected a room id (\(TopicLevelID.rule), not not_home)", nameLine)
                continue
            }
            rooms[name] = room
        }
        return rooms
    }

    private func number(_ node: YAMLNode) -> Double? {
        guard let text = node.scalar?.text, let value = Double(text), value.isFinite else { return nil }
        return value
    }

    static func isRoom(_ text: String) -> Bool { TopicLevelID.isValid(text) && text != RoomDecision.notHome }

    static func isTopicLevel(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 128 && !text.contains(where: { $0 == "/" || $0 == "+" || $0 == "#" })
    }

    static func describe(_ rooms: [String: String]) -> String {
        rooms.isEmpty ? "(none)" : rooms.sorted { $0.key < $1.key }.map { "\($0.key) → \($0.value)" }.joined(separator: ", ")
    }
}
