import ConfigFile

/// Why the aggregator's configuration was rejected: the field (as the user wrote it — a YAML path,
/// an environment variable or a flag, or the config file's path), what is wrong with it, and where
/// the value came from. It is the settings layer's own problem, reported as it is.
///
/// Renders as `field: message`, e.g. `decision.dwell: -1 is not a positive number of seconds` or
/// `PRESENCE_BROKER: 'foo' is not mqtt://host[:port], mqtts://host[:port] or unix:///path/to/socket`; a file's line leads
/// the message (`aggregator.yaml:7: …`).
public typealias AggregatorConfigurationError = SettingProblem

/// Every mistake of one configuration (file, environment and flags together), in the order found.
public struct AggregatorConfigurationProblems: Error, Hashable, Sendable, CustomStringConvertible {
    public var errors: [AggregatorConfigurationError]

    public init(errors: [AggregatorConfigurationError]) {
        self.errors = errors
    }

    /// One mistake a line.
    public var description: String { errors.map(\.description).joined(separator: "\n") }

    /// Each mistake on its own line after `prefix` (`run: `), for stderr.
    public func lines(prefix: String) -> String { errors.map { prefix + $0.description + "\n" }.joined() }
}
