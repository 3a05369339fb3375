/// A parsed JSON value, as `JSONParser` produces it for config messages.
///
/// Objects keep their members in message order (error messages then follow the operator's text),
/// and numbers keep their literal so an error can quote `70000` exactly as it was written.
public enum JSONValue: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, with its literal.
    case number(JSONNumber)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, members in message order.
    case object(JSONObject)

    /// What kind of value this is, for messages like `expected an integer, got a string`.
    public var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number(let number): return number.integer != nil ? "an integer" : "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A JSON number: its literal text, its value as a `Double`, and as an integer when it is one.
public struct JSONNumber: Hashable, Sendable {
    /// The number as written in the message (`70000`, `-3.5e1`).
    public let literal: String
    /// The value; always finite (the parser rejects numbers that overflow a `Double`).
    public let double: Double
    /// The value when the literal is an integer without fraction or exponent that fits in 64 bits.
    public let integer: Int64?

    /// Creates a number from its literal and its values.
    public init(literal: String, double: Double, integer: Int64?) {
        self.literal = literal
        self.double = double
        self.integer = integer
    }
}

/// A JSON object with its members in message order. Keys are unique (the parser rejects repeats).
public struct JSONObject: Hashable, Sendable {
    /// The members' keys, in message order.
    public private(set) var keys: [String]
    /// The members' values, in the order of `keys`.
    public private(set) var values: [JSONValue]
    /// Positions by key, built only once an object grows past `linearSearchLimit` members, so a
    /// hostile object with 100,000 keys costs linear, not quadratic, time to parse.
    private var positions: [String: Int]?
    private static let linearSearchLimit = 16

    /// Creates an empty object.
    public init() {
        keys = []
        values = []
    }

    /// The value for `key`.
    public subscript(key: String) -> JSONValue? {
        guard let position = position(of: key) else { return nil }
        return values[position]
    }

    /// The number of members.
    public var count: Int { keys.count }

    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        return keys.firstIndex(of: key)
    }

    /// Appends a member; false (and nothing added) when the key is already present.
    @discardableResult
    mutating func append(key: String, value: JSONValue) -> Bool {
        guard position(of: key) == nil else { return false }
        keys.append(key)
        values.append(value)
        if positions != nil {
            positions?[key] = keys.count - 1
        } else if keys.count > Self.linearSearchLimit {
            var built: [String: Int] = [:]
            for (position, key) in keys.enumerated() { built[key] = position }
            positions = built
        }
        return true
    }
}
