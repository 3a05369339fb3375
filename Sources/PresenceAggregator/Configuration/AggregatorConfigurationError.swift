/// Why the aggregator's configuration was rejected: the field (as the user wrote it — a YAML path,
/// an environment variable or a flag) and what is wrong with it.
///
/// Renders as `field: message`, e.g. `decision.dwell: -1 is not a positive number of seconds` or
/// `PRESENCE_BROKER: 'foo' is not mqtt://host[:port] or mqtts://host[:port]`.
public struct AggregatorConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `decision.dwell`, `PRESENCE_BROKER`, `--broker`, or the config file's path.
    public var field: String
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "\(field): \(message)" }
}
