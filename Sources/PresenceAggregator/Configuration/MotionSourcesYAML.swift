import BeaconCore
import ConfigFile
import MQTTClient
import RoomDecisions

/// The `motion:` list of the aggregator's YAML (issue 37; Running the aggregator, "Motion sensors"):
///
/// ```yaml
/// motion:
///   - topic: zigbee2mqtt/hall-pir              # Zigbee2MQTT: JSON with "occupancy" (or "presence")
///     room: hall
///   - topic: espresense/rooms/office/motion    # an ESPresense node's PIR or radar: ON/OFF
///     room: office
///   - topic: home/bath/motion                  # any other: on/off, true/false, 1/0, ON/OFF
///     room: bath
///     payload: {on: "detected", off: "clear"}  # optional: its own words
///     staleAfter: 3600                         # optional: s of silence before it stops counting
/// ```
///
/// File only, as `sources:`. Every mistake is named with its line, `aggregator.yaml:4: motion[1].room: …`.
struct MotionSourcesYAML {
    private(set) var sensors: [MotionSensorSettings] = []
    private(set) var shown: [EffectiveSetting] = []
    private(set) var errors: [AggregatorConfigurationError] = []
    private let file: String

    static let keys = "topic, room, payload, staleAfter"

    init(_ node: YAMLNode, file: String) {
        self.file = file
        guard !node.isNull else { return }
        guard let items = node.sequence else {
            fail("motion", "expected a list of sensors (- topic: …, room: …)", node.line)
            return
        }
        var topics: [String: Int] = [:]
        for (position, item) in items.enumerated() {
            let path = "motion[\(position)]"
            guard let mapping = item.mapping else {
                fail(path, "expected a mapping (\(Self.keys))", item.line)
                continue
            }
            var topic: String?, room: String?, words: MotionSensorSettings.Words?
            var staleAfter = MotionSensorSettings.defaultStaleAfter
            var failed = false
            var shown: [EffectiveSetting] = []
            for (key, line, value) in mapping.entries {
                let field = "\(path).\(key)"
                switch key {
                case "topic":
                    guard let text = value.scalar?.text, Self.isTopic(text) else {
                        fail(field, "expected the sensor's MQTT topic (no + or #, not empty), e.g. zigbee2mqtt/hall-pir", line)
                        failed = true
                        continue
                    }
                    if let other = topics[text] {
                        fail(field, "\(ConfigError.quoted(text)) is already a sensor's topic (line \(other))", line)
                        failed = true
                        continue
                    }
                    topics[text] = line
                    topic = text
                    shown.append(EffectiveSetting(key: field, value: text, source: source(line)))
                case "room":
                    guard let text = value.scalar?.text, ForeignSourcesYAML.isRoom(text) else {
                        fail(field, "expected a room id (\(TopicLevelID.rule), not not_home)", line)
                        failed = true
                        continue
                    }
                    room = text
                    shown.append(EffectiveSetting(key: field, value: text, source: source(line)))
                case "payload":
                    guard let pair = value.mapping, let on = pair["on"]?.scalar?.text, let off = pair["off"]?.scalar?.text,
                        !on.isEmpty, !off.isEmpty, on != off, pair.entries.count == 2
                    else {
                        fail(field, "expected the sensor's two words, {on: detected, off: clear}", line)
                        failed = true
                        continue
                    }
                    words = .init(on: on, off: off)
                    shown.append(EffectiveSetting(key: field, value: "on: \(on), off: \(off)", source: source(line)))
                case "staleAfter":
                    guard let text = value.scalar?.text, let seconds = Double(text), seconds.isFinite, seconds >= 10,
                        seconds <= 86_400
                    else {
                        fail(field, "expected a number of seconds in 10…86400", line)
                        failed = true
                        continue
                    }
                    staleAfter = seconds
                    shown.append(EffectiveSetting(key: field, value: JSONObjectWriter.number(seconds, decimals: 3), source: source(line)))
                default:
                    fail(field, "unknown key (known keys: \(Self.keys))", line)
                    failed = true
                }
            }
            if topic == nil, mapping["topic"] == nil { fail("\(path).topic", "required: the topic the sensor publishes on", item.line); failed = true }
            if room == nil, mapping["room"] == nil { fail("\(path).room", "required: the room the sensor watches", item.line); failed = true }
            guard !failed, let topic, let room else { continue }
            sensors.append(MotionSensorSettings(topic: topic, room: room, payload: words, staleAfter: staleAfter))
            self.shown += shown
        }
    }

    private func source(_ line: Int) -> SettingSource { .file(path: file, line: line) }

    private mutating func fail(_ field: String, _ message: String, _ line: Int) {
        errors.append(AggregatorConfigurationError(field: field, message: message, source: source(line)))
    }

    static func isTopic(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 1_024 && !text.contains(where: { $0 == "+" || $0 == "#" }) && (try? TopicFilter(text)) != nil
    }
}
