/// MQTT quality of service.
public enum MQTTQoS: UInt8, Sendable, Hashable, CaseIterable, Comparable {
    case atMostOnce = 0
    case atLeastOnce = 1
    case exactlyOnce = 2

    public static func < (lhs: MQTTQoS, rhs: MQTTQoS) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A message received from the broker. The payload is bytes: MQTT does not promise UTF-8.
public struct MQTTMessage: Sendable, Hashable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: MQTTQoS
    /// Set when the broker delivers a retained message because of a (re-)subscription.
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: MQTTQoS = .atMostOnce, retain: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    /// The payload as text when it is valid UTF-8, else nil.
    public var payloadString: String? {
        String(validating: payload, as: UTF8.self)
    }
}
