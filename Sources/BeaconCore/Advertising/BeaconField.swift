/// One named value of a decoded beacon, for output in a fixed key order without Foundation
/// (`scan --json`, measurement payloads).
public struct BeaconField: Hashable, Sendable, CustomStringConvertible {
    /// A JSON-shaped scalar.
    public enum Value: Hashable, Sendable, CustomStringConvertible {
        /// Text, written as a JSON string.
        case string(String)
        /// A whole number.
        case int(Int)
        /// A number with a fraction.
        case double(Double)
        /// A flag.
        case bool(Bool)

        /// The value as text, without JSON quoting.
        public var description: String {
            switch self {
            case .string(let text): text
            case .int(let number): String(number)
            case .double(let number): String(number)
            case .bool(let flag): String(flag)
            }
        }
    }

    /// The JSON key (`uuid`, `major`, `measuredPower`, …).
    public let key: String
    /// The value.
    public let value: Value

    /// Creates a field from its JSON key and value.
    public init(_ key: String, _ value: Value) {
        self.key = key
        self.value = value
    }

    /// `key=value`, for the human-readable scan output.
    public var description: String { "\(key)=\(value)" }
}
