/// An operator-chosen id that is safe as one MQTT topic level: node, room, region and beacon-alias
/// ids (docs/MQTT.md).
///
/// Only lowercase `a`–`z`, `0`–`9`, `_` and `-`, 1 to 64 characters. The type can only be made by
/// validation, so `/`, `+`, `#`, NUL, spaces, uppercase, empty or over-long strings can never reach a
/// topic: a `/` would silently move a message to another topic, `+`/`#` are wildcards a broker
/// rejects in a publish, and mixed case would make `Kitchen` and `kitchen` two rooms.
public struct TopicLevelID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The longest id accepted.
    public static let maximumLength = 64
    /// What an id may look like, for error messages.
    public static let rule = "1–64 characters of a-z, 0-9, '_' and '-'"

    /// The validated text.
    public let rawValue: String

    /// Nil unless `text` is 1–64 characters of `[a-z0-9_-]`.
    public init?(_ text: String) {
        guard Self.isValid(text) else { return nil }
        self.rawValue = text
    }

    /// Whether `text` is a valid id.
    public static func isValid(_ text: String) -> Bool {
        var count = 0
        for byte in text.utf8 {
            count += 1
            guard count <= maximumLength else { return false }
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "_"), UInt8(ascii: "-"):
                continue
            default:
                return false
            }
        }
        return count > 0
    }

    /// The id as text.
    public var description: String { rawValue }

    /// Orders ids by their text.
    public static func < (lhs: TopicLevelID, rhs: TopicLevelID) -> Bool { lhs.rawValue < rhs.rawValue }
}
