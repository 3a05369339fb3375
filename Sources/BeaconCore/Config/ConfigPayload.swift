/// What a retained config message asks for: replace the configuration, or clear it (an empty
/// payload, docs/MQTT.md).
public enum ConfigPayload<Content: Sendable>: Sendable {
    /// The empty message: forget this configuration.
    case cleared
    /// A valid message: apply `Content` as a whole.
    case replaced(Content)
}

extension ConfigPayload: Equatable where Content: Equatable {}
extension ConfigPayload: Hashable where Content: Hashable {}
