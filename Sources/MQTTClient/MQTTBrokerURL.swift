/// `mqtt://host[:port]`, `mqtts://host[:port]` (TLS) or `unix:///path/to/socket` (a broker on the
/// same host, reached through its Unix-domain socket), as both programs take `--broker`.
///
/// A Unix socket follows libmosquitto's own convention: `host` is the socket's path and `port` is 0
/// (`mosquitto_connect` connects to a Unix socket when given port 0). `mqtt+unix:///path`, the form
/// MQTT.js and Matterbridge take, is read the same way.
public struct MQTTBrokerURL: Hashable, Sendable, CustomStringConvertible {
    /// The broker's host name or address; an IPv6 address without its brackets; or, with `port` 0,
    /// the absolute path of the broker's Unix-domain socket.
    public var host: String
    /// The TCP port: as written, else 1883, or 8883 with TLS; 0 for a Unix-domain socket.
    public var port: Int
    /// `mqtts://`: connect with TLS (a CA file is then required).
    public var usesTLS: Bool

    /// `port` nil: 1883, or 8883 with TLS.
    public init(host: String, port: Int? = nil, usesTLS: Bool = false) {
        self.host = host
        self.port = port ?? (usesTLS ? 8883 : 1883)
        self.usesTLS = usesTLS
    }

    /// A broker on this host, through the Unix-domain socket at `socketPath` (absolute).
    public init(unixSocket socketPath: String) {
        self.host = socketPath
        self.port = 0
        self.usesTLS = false
    }

    /// True when `host` is a Unix-domain socket's path (`port` 0).
    public var isUnixSocket: Bool { port == 0 }

    /// The longest socket path Linux takes (`sun_path` holds 108 bytes with its closing NUL).
    public static let maxSocketPathBytes = 107

    /// Nil for anything that is not `mqtt[s]://host[:port]` (an optional trailing `/`) with a port
    /// in 1…65535, an IPv6 host in brackets, or `unix:///absolute/path` (see ``problem(_:)``).
    public init?(_ text: String) {
        if let path = Self.unixSocketPath(text) {
            guard Self.socketPathProblem(path) == nil else { return nil }
            self.init(unixSocket: path)
            return
        }
        let usesTLS: Bool
        var rest: Substring
        if text.hasPrefix("mqtt://") {
            usesTLS = false
            rest = text.dropFirst(7)
        } else if text.hasPrefix("mqtts://") {
            usesTLS = true
            rest = text.dropFirst(8)
        } else {
            return nil
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            // [v6]:port
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            if let colon = rest.firstIndex(of: ":") {
                host = rest[..<colon]
                portText = rest[rest.index(after: colon)...]
            } else {
                host = rest
            }
            let allowed = { (c: Character) in
                c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "." || c == "_")
            }
            guard !host.isEmpty, host.allSatisfy(allowed) else { return nil }
        }
        var port: Int?
        if let portText {
            guard (1...5).contains(portText.count), portText.allSatisfy({ $0.isASCII && $0.isNumber }),
                let value = Int(portText), (1...65_535).contains(value)
            else { return nil }
            port = value
        }
        self.init(host: String(host), port: port, usesTLS: usesTLS)
    }

    /// The URL with the port always written, such as `mqtt://broker:1883`; an IPv6 host in brackets;
    /// `unix:///run/mosquitto/mosquitto.sock` for a Unix socket.
    public var description: String {
        if isUnixSocket { return "unix://" + host }
        return (usesTLS ? "mqtts://" : "mqtt://") + (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    /// The accepted forms, for error messages about a bad `--broker`.
    public static let rule = "mqtt://host[:port], mqtts://host[:port] or unix:///path/to/socket"

    /// What is wrong with `text` as a broker URL, to follow the quoted text in an error
    /// (`'unix://run/x' has a bad socket path: …`); nil when it is a good one.
    public static func problem(_ text: String) -> String? {
        if MQTTBrokerURL(text) != nil { return nil }
        if let path = unixSocketPath(text), let problem = socketPathProblem(path) { return "has a bad socket path: \(problem)" }
        return "is not \(rule)"
    }

    /// The path after `unix://` or `mqtt+unix://`; nil for any other scheme.
    private static func unixSocketPath(_ text: String) -> String? {
        for scheme in ["unix://", "mqtt+unix://"] where text.hasPrefix(scheme) {
            return String(text.dropFirst(scheme.count))
        }
        return nil
    }

    private static func socketPathProblem(_ path: String) -> String? {
        guard path.hasPrefix("/") else {
            return "the socket's path must be absolute, such as unix:///run/mosquitto/mosquitto.sock (three slashes)"
        }
        guard path.count > 1, !path.hasSuffix("/") else { return "the path names a directory, not a socket" }
        guard !path.utf8.contains(0) else { return "the path holds a NUL byte" }
        guard path.utf8.count <= maxSocketPathBytes else {
            return "the path is \(path.utf8.count) bytes; a Unix socket's path takes at most \(maxSocketPathBytes)"
        }
        return nil
    }
}
