import ArgumentParser
import PresenceAggregator

/// The broker and account flags `run` and `watch` share; both load them into the same typed
/// configuration, so the two commands check them alike.
struct BrokerOptions: ParsableArguments {
    @Option(help: "Broker: mqtt://host[:port], mqtts://host[:port] or unix:///path/to/socket (PRESENCE_BROKER).")
    var broker: String?

    @Option(help: "User name (PRESENCE_USERNAME); the password comes from PRESENCE_PASSWORD or --password-file.")
    var username: String?

    @Option(help: "File whose first line is the password (PRESENCE_PASSWORD_FILE).")
    var passwordFile: String?

    @Option(help: "CA file that verifies the broker's certificate (mqtts://).")
    var caFile: String?

    @Option(help: "Topic root, e.g. presence or hq/presence (PRESENCE_ROOT).")
    var root: String?

    /// The flags given, keyed by setting.
    var flags: [AggregatorSetting: String] {
        var flags: [AggregatorSetting: String] = [:]
        flags[.broker] = broker
        flags[.username] = username
        flags[.passwordFile] = passwordFile
        flags[.caFile] = caFile
        flags[.root] = root
        return flags
    }
}
