/// `mqtt://host[:port]` or `mqtts://host[:port]` (TLS), as both programs take `--broker`.
public struct MQTTBrokerURL: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// `mqtts://`: connect with TLS (a CA file is then required).
    public var usesTLS: Bool

    public init(host: String, port: Int, usesTLS: Bool = false) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
    }

    /// Nil for anything that is not `mqtt[s]://host[:port]` with a port in 1…65535.
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
        var host = rest
        var port = usesTLS ? 8883 : 1883
        if rest.hasPrefix("[") {
            // [::1]:1883
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let value = Int(after.dropFirst()) else { return nil }
                port = value
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            guard let value = Int(rest[rest.index(after: colon)...]) else { return nil }
            port = value
        }
        guard !host.isEmpty, (1...65535).contains(port),
            host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":" || $0 == "_" })
        else { return nil }
        self.init(host: String(host), port: port, usesTLS: usesTLS)
    }

    public var description: String {
        (usesTLS ? "mqtts://" : "mqtt://") + (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    public static let rule = "mqtt://host[:port] or mqtts://host[:port]"
}
