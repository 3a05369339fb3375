/// Why an MQTT operation failed. `code` is for programs, `message` for people (it comes from
/// `mosquitto_strerror`, `mosquitto_connack_string` or `mosquitto_reason_string` where libmosquitto
/// has words for it).
public struct MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure, for programs to switch on.
    public enum Code: Sendable, Equatable {
        /// A `MOSQ_ERR_*` code returned by libmosquitto.
        case library(Int32)
        /// The broker refused the connection: the CONNACK return code (MQTT 3.1.1, 1–5) or
        /// reason code (MQTT 5, ≥ 0x80).
        case connectionRefused(reasonCode: Int)
        /// A QoS 0 message cannot be handed over while there is no connection.
        case notConnected
        /// The bounded QoS ≥ 1 out-queue is full; the message was dropped and counted.
        case queueFull(limit: Int)
        /// The broker answered a SUBSCRIBE with failure (0x80 or an MQTT 5 reason code ≥ 0x80).
        case subscriptionRejected(filter: String, reasonCode: Int)
        /// The broker answered a QoS ≥ 1 PUBLISH with an MQTT 5 reason code ≥ 0x80.
        case publishRejected(reasonCode: Int)
        /// A topic name or filter breaks the MQTT rules; the message says which rule.
        case invalidTopic(String)
        /// Options that cannot work together or files libmosquitto refused.
        case invalidConfiguration
        /// A bounded wait ran out.
        case timedOut
        /// The connection was stopped before the operation completed.
        case stopped
    }

    /// What kind of failure.
    public let code: Code
    /// A readable explanation, for people and logs.
    public let message: String

    /// Creates an error from a code and a readable message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The code and the message, for logs.
    public var description: String { "MQTTError(\(code)): \(message)" }

    /// True when the broker refused the credentials (bad user name or password, not authorised).
    public var isAuthenticationFailure: Bool {
        guard case .connectionRefused(let reason) = code else { return false }
        // 3.1.1: 4 bad user name or password, 5 not authorised.
        // 5: 0x86 bad user name or password, 0x87 not authorized, 0x8C bad authentication method.
        return reason == 4 || reason == 5 || reason == 0x86 || reason == 0x87 || reason == 0x8C
    }
}
