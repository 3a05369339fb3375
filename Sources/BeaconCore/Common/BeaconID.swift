/// A beacon's canonical id, exactly as docs/MQTT.md spells it: `ibeacon-<uuid>-<major>-<minor>`,
/// `altbeacon-<40 hex>`, `eddystone-<namespace>-<instance>`, or `mac-<12 hex>`.
///
/// Identity is what the beacon advertises, not its address (phones rotate addresses), so the
/// address form is only the fallback for devices with no beacon ids.
public struct BeaconID: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The id as text, as it appears in topics and payloads.
    public let rawValue: String

    /// Wraps text as an id without checking it; use ``BeaconID/init(parsing:)`` for text from users.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Wraps a literal as an id without checking it (for tests and constants).
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// The id as text.
    public var description: String { rawValue }

    /// Orders ids by their text.
    public static func < (lhs: BeaconID, rhs: BeaconID) -> Bool { lhs.rawValue < rhs.rawValue }
}
