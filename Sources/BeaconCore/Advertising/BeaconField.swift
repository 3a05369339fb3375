/// One named value of a decoded beacon, for output in a fixed key order without Foundation
/// (`scan --json`, measurement payloads).
public struct BeaconField: Hashable, Sendable, CustomStringConvertible {
    /// A JSON-shaped scalar.
    public enum Value: Hashable, Sendable, CustomStringConvertible {
        case string(String)
        case int(Int)
        case double(Double)
        case bool(Bool)

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
    public let value: Value

    public init(_ key: String, _ value: Value) {
        self.key = key
        self.value = value
    }

    public var description: String { "\(key)=\(value)" }
}
