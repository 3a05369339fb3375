/// One MQTT message the agent wants sent: the core decides, the service sends.
public struct AgentPublication: Hashable, Sendable {
    public enum QoS: Int, Sendable {
        case atMostOnce = 0
        case atLeastOnce = 1
    }

    public var topic: String
    public var payload: [UInt8]
    public var qos: QoS
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: QoS, retain: Bool) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    public init(topic: String, text: String, qos: QoS, retain: Bool) {
        self.init(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain)
    }

    /// The UTF-8 text of the payload, for tests and logs.
    public var text: String { String(decoding: payload, as: UTF8.self) }
}

/// What the agent core asks of the world.
import BeaconCore

public enum AgentAction: Hashable, Sendable {
    case publish(AgentPublication)
    /// Write `contents` atomically to `file` in the state directory; nil removes the file.
    case persist(file: String, contents: [UInt8]?)
    /// One advertisement of a measured beacon, for `--record` (docs/Files.md's input format).
    case record(TraceSample)
    /// Something an operator should see in the log.
    case log(level: LogLevel, message: String)

    public enum LogLevel: String, Sendable {
        case info, warning, error
    }
}
