/// One MQTT message the aggregator core wants sent. An empty retained payload clears the topic.
public struct AggregatorPublication: Sendable, Hashable, CustomStringConvertible {
    public var topic: String
    public var payload: String
    public var retain: Bool
    /// 0 or 1 (docs/MQTT.md: retained state and events at QoS 1).
    public var qos: Int

    public init(topic: String, payload: String, retain: Bool, qos: Int = 1) {
        self.topic = topic
        self.payload = payload
        self.retain = retain
        self.qos = qos
    }

    /// A retained QoS 1 message.
    static func retained(_ topic: String, _ payload: String) -> AggregatorPublication {
        AggregatorPublication(topic: topic, payload: payload, retain: true)
    }

    /// Clears a retained topic.
    static func clear(_ topic: String) -> AggregatorPublication {
        AggregatorPublication(topic: topic, payload: "", retain: true)
    }

    public var description: String { "\(topic)\(retain ? " (retained)" : ""): \(payload)" }
}
