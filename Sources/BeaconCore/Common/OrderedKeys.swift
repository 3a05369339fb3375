/// Unique keys in the order they came, with a look-up of each key's position that never turns
/// quadratic: a plain search while there are few keys, a dictionary built once they pass
/// `linearSearchLimit`, so a hostile JSON object or YAML mapping with 100,000 keys costs linear time
/// to read and check for repeats. `JSONObject` and ConfigFile's `YAMLMapping` keep their keys in one.
public struct OrderedKeys: Hashable, Sendable {
    /// The keys, in the order appended.
    public private(set) var keys: [String] = []
    /// Positions by key, built only past `linearSearchLimit` keys.
    private var positions: [String: Int]?
    private static let linearSearchLimit = 16

    /// No keys.
    public init() {}

    /// The number of keys.
    public var count: Int { keys.count }

    /// The position of `key` in `keys`, nil when absent.
    public func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        return keys.firstIndex(of: key)
    }

    /// Appends `key` at position `count`; false (and nothing added) when it is already present.
    public mutating func append(_ key: String) -> Bool {
        guard position(of: key) == nil else { return false }
        keys.append(key)
        if positions != nil {
            positions?[key] = keys.count - 1
        } else if keys.count > Self.linearSearchLimit {
            var built: [String: Int] = [:]
            for (position, key) in keys.enumerated() { built[key] = position }
            positions = built
        }
        return true
    }

    /// Equal when the keys are, in the same order (the look-up is derived from them).
    public static func == (left: OrderedKeys, right: OrderedKeys) -> Bool { left.keys == right.keys }

    /// Hashes the keys in order.
    public func hash(into hasher: inout Hasher) { hasher.combine(keys) }
}
