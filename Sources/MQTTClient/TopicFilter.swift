/// An MQTT topic filter (`presence/+/status`, `presence/#`) and the pure rule that decides which
/// topics it matches (MQTT 3.1.1 §4.7, same in 5):
/// - `+` matches exactly one level, which may be empty;
/// - `#` matches the parent level and any number of levels below (`a/#` matches `a`);
/// - a filter that starts with a wildcard does not match topics starting with `$` (`$SYS/…`).
public struct TopicFilter: Sendable, Hashable, CustomStringConvertible {
    enum Level: Sendable, Hashable {
        case exact(String)
        case singleLevel
        case multiLevel
    }

    /// The filter as written.
    public let rawValue: String
    let levels: [Level]

    /// Parses and validates a filter: non-empty, at most 65,535 UTF-8 bytes, no NUL, `+` and `#`
    /// only as a whole level, `#` only last.
    public init(_ rawValue: String) throws(MQTTError) {
        guard !rawValue.isEmpty else { throw MQTTError(.invalidTopic(rawValue), "topic filter is empty") }
        guard rawValue.utf8.count <= 65_535 else {
            throw MQTTError(.invalidTopic(rawValue), "topic filter is longer than 65,535 bytes")
        }
        guard !rawValue.utf8.contains(0) else {
            throw MQTTError(.invalidTopic(rawValue), "topic filter contains a NUL character")
        }
        let parts = rawValue.split(separator: "/", omittingEmptySubsequences: false)
        var levels: [Level] = []
        levels.reserveCapacity(parts.count)
        for (index, part) in parts.enumerated() {
            switch part {
            case "+":
                levels.append(.singleLevel)
            case "#":
                guard index == parts.count - 1 else {
                    throw MQTTError(.invalidTopic(rawValue), "'#' is allowed only as the last level of '\(rawValue)'")
                }
                levels.append(.multiLevel)
            default:
                if part.contains("+") || part.contains("#") {
                    throw MQTTError(
                        .invalidTopic(rawValue),
                        "wildcards must fill a whole level: '\(part)' in '\(rawValue)'"
                    )
                }
                levels.append(.exact(String(part)))
            }
        }
        self.rawValue = rawValue
        self.levels = levels
    }

    /// The filter as written.
    public var description: String { rawValue }

    /// True when the filter has a `+` or `#`.
    public var hasWildcards: Bool {
        levels.contains { if case .exact = $0 { false } else { true } }
    }

    /// Whether a message published to `topic` is delivered to a subscription with this filter.
    public func matches(_ topic: String) -> Bool {
        // Every received message is matched against every subscription: walked in place, not
        // split into an array of levels (an allocation per filter per message).
        var topic = topic
        return topic.withUTF8 { matches(bytes: $0) }
    }

    private func matches(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if bytes.first == UInt8(ascii: "$") {
            switch levels.first {
            case .singleLevel?, .multiLevel?: return false
            default: break
            }
        }
        var start = 0
        var consumedAll = false
        for level in levels {
            if case .multiLevel = level { return true }
            guard !consumedAll else { return false }
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "/") { end += 1 }
            if case .exact(let name) = level {
                // The name's own bytes against the level's: the UTF-8 view's iterator cost more
                // than the rest of the match (every message against every subscription).
                let segment = UnsafeBufferPointer(rebasing: bytes[start..<end])
                let same = name.utf8.withContiguousStorageIfAvailable { $0.elementsEqual(segment) }
                    ?? name.utf8.elementsEqual(segment)
                if !same { return false }
            }
            if end == bytes.count { consumedAll = true } else { start = end + 1 }
        }
        return consumedAll
    }

    /// Validates a topic name for PUBLISH: non-empty, at most 65,535 UTF-8 bytes, no wildcards,
    /// no NUL.
    public static func validateTopicName(_ topic: String) throws(MQTTError) {
        guard !topic.isEmpty else { throw MQTTError(.invalidTopic(topic), "topic is empty") }
        guard topic.utf8.count <= 65_535 else {
            throw MQTTError(.invalidTopic(topic), "topic is longer than 65,535 bytes")
        }
        // Scanned in place: the UTF-8 view's iterator cost more than the rest of a publish's
        // checks (every publication of the aggregator, issue 38).
        var bytes = topic
        let found = bytes.withUTF8 { utf8 in
            utf8.first { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") || $0 == 0 }
        }
        switch found {
        case UInt8(ascii: "+"), UInt8(ascii: "#"):
            throw MQTTError(.invalidTopic(topic), "a topic to publish to may not contain '+' or '#': '\(topic)'")
        case 0:
            throw MQTTError(.invalidTopic(topic), "topic contains a NUL character")
        default:
            break
        }
    }
}
