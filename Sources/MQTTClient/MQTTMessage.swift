/// MQTT quality of service.
public enum MQTTQoS: UInt8, Sendable, Hashable, CaseIterable, Comparable {
    /// QoS 0: sent once, never acknowledged; lost if the connection drops.
    case atMostOnce = 0
    /// QoS 1: acknowledged by PUBACK; may arrive more than once.
    case atLeastOnce = 1
    /// QoS 2: the four-packet exchange ending in PUBCOMP; arrives once.
    case exactlyOnce = 2

    /// Orders QoS levels by their number.
    public static func < (lhs: MQTTQoS, rhs: MQTTQoS) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A message received from the broker. The payload is bytes: MQTT does not promise UTF-8.
public struct MQTTMessage: Sendable, Hashable {
    /// The topic the message was published to.
    public var topic: String
    /// The payload, as bytes.
    public var payload: [UInt8]
    /// The QoS the message was delivered with.
    public var qos: MQTTQoS
    /// Set when the broker delivers a retained message because of a (re-)subscription.
    public var retain: Bool

    /// Creates a message (the client makes them; tests and replays may too).
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
