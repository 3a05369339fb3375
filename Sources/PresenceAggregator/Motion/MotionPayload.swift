import BeaconCore

/// What one message of a motion sensor says (`MotionSensorSettings`), read without trapping.
///
/// Forms, as their sources write them:
/// - Zigbee2MQTT publishes a device's state as one JSON object on `zigbee2mqtt/<name>`: a PIR's
///   `"occupancy": true|false`, an mmWave presence sensor's `"presence": true|false` (Zigbee2MQTT's
///   "MQTT Topics and Messages" guide; its exposes `occupancy` and `presence`). Other keys
///   (battery, illuminance) come in the same object and are ignored; an object with neither key
///   says nothing about motion.
/// - Its availability (`zigbee2mqtt/<name>/availability`, retained) is `{"state":"online"}` or
///   `{"state":"offline"}`, or plain `online`/`offline` with its legacy payload.
/// - An ESPresense node with a PIR or radar publishes `ON` or `OFF` (retained) on
///   `espresense/rooms/<node>/motion` (ESPresense `src/Motion.cpp`, `Motion::Loop`), and its last
///   will `offline` on `espresense/rooms/<node>/status`.
/// - Anything else: `on`/`off`, `true`/`false`, `1`/`0`, `detected`/`clear`, any case, or the
///   sensor's own words (`payload: {on:, off:}`).
public enum MotionPayload: Sendable, Hashable {
    case motion(Bool)
    /// The sensor says it is unavailable.
    case unavailable
    /// Available again: its next state counts.
    case available
    /// Valid but about something else (a JSON object without `occupancy` or `presence`).
    case nothing

    /// Reads a state message; nil when it cannot be read.
    public static func state(_ payload: [UInt8], words: MotionSensorSettings.Words?) -> MotionPayload? {
        guard let text = String(validating: payload, as: UTF8.self) else { return nil }
        let trimmed = Substring(text).trimmingSpaces()
        if let words {
            if trimmed == words.on { return .motion(true) }
            if trimmed == words.off { return .motion(false) }
        }
        if trimmed.first == "{" {
            guard let object = try? JSONParser.parse(Array(trimmed.utf8), maximumBytes: 65_536),
                case .object(let fields) = object
            else { return nil }
            for key in ["occupancy", "presence"] {
                guard let value = fields[key] else { continue }
                if case .bool(let flag) = value { return .motion(flag) }
                return nil
            }
            return .nothing
        }
        return plain(String(trimmed))
    }

    /// Reads an availability message; nil when it cannot be read.
    public static func availability(_ payload: [UInt8]) -> MotionPayload? {
        guard let text = String(validating: payload, as: UTF8.self) else { return nil }
        var word = String(Substring(text).trimmingSpaces())
        if word.first == "{" {
            guard let object = try? JSONParser.parse(Array(word.utf8), maximumBytes: 65_536), case .object(let fields) = object,
                let state = fields["state"], case .string(let value) = state
            else { return nil }
            word = value
        }
        switch word.lowercased() {
        case "online": return .available
        case "offline": return .unavailable
        default: return nil
        }
    }

    private static func plain(_ text: String) -> MotionPayload? {
        switch text.lowercased() {
        case "on", "true", "1", "detected", "occupied", "motion": .motion(true)
        case "off", "false", "0", "clear", "unoccupied", "no_motion": .motion(false)
        case "unavailable", "offline": .unavailable
        default: nil
        }
    }
}
