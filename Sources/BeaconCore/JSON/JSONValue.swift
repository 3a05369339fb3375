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
    /// The members' keys, with each one's position.
    private var index = OrderedKeys()
    /// The members' values, in the order of `keys`.
    public private(set) var values: [JSONValue]

    /// Creates an empty object.
    public init() {
        values = []
    }

    /// The members' keys, in message order.
    public var keys: [String] { index.keys }

    /// The value for `key`.
    public subscript(key: String) -> JSONValue? {
        guard let position = index.position(of: key) else { return nil }
        return values[position]
    }

    /// The number of members.
    public var count: Int { index.count }

    /// Appends a member; false (and nothing added) when the key is already present.
    @discardableResult
    mutating func append(key: String, value: JSONValue) -> Bool {
        guard index.append(key) else { return false }
        values.append(value)
        return true
    }
}
