/// `mqtt://host[:port]` or `mqtts://host[:port]` (TLS), as both programs take `--broker`.
public struct MQTTBrokerURL: Hashable, Sendable, CustomStringConvertible {
    /// The broker's host name or address; an IPv6 address without its brackets.
    public var host: String
    /// The TCP port: as written, else 1883, or 8883 with TLS.
    public var port: Int
    /// `mqtts://`: connect with TLS (a CA file is then required).
    public var usesTLS: Bool

    /// `port` nil: 1883, or 8883 with TLS.
    public init(host: String, port: Int? = nil, usesTLS: Bool = false) {
        self.host = host
        self.port = port ?? (usesTLS ? 8883 : 1883)
        self.usesTLS = usesTLS
    }

    /// Nil for anything that is not `mqtt[s]://host[:port]` (an optional trailing `/`) with a port
    /// in 1…65535; an IPv6 host goes in brackets.
    public init?(_ text: String) {
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

    /// The URL with the port always written, such as `mqtt://broker:1883`; an IPv6 host in brackets.
    public var description: String {
        (usesTLS ? "mqtts://" : "mqtt://") + (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    /// The accepted form, for error messages about a bad `--broker`.
    public static let rule = "mqtt://host[:port] or mqtts://host[:port]"
}
