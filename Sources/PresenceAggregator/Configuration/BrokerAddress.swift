/// Where the broker is: `mqtt://host[:port]` (plain TCP, default port 1883) or `mqtts://host[:port]`
/// (TLS, default port 8883).
public struct BrokerAddress: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var usesTLS: Bool

    public init(host: String, port: Int? = nil, usesTLS: Bool = false) {
        self.host = host
        self.usesTLS = usesTLS
        self.port = port ?? (usesTLS ? 8883 : 1883)
    }

    /// The rule, for error messages.
    public static let rule = "mqtt://host[:port] or mqtts://host[:port]"

    /// Parses a broker URL; nil unless it is `mqtt://` or `mqtts://`, a non-empty host (a name,
    /// an IPv4 address or a bracketed IPv6 address) and an optional port 1…65535, nothing else.
    public init?(url text: String) {
        let usesTLS: Bool
        let rest: Substring
        if text.hasPrefix("mqtt://") {
            usesTLS = false
            rest = text.dropFirst(7)
        } else if text.hasPrefix("mqtts://") {
            usesTLS = true
            rest = text.dropFirst(8)
        } else {
            return nil
        }
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

    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(usesTLS ? "mqtts" : "mqtt")://\(shownHost):\(port)"
    }
}
