/// Reads the fields of one JSON object of a config message, turning every problem into a
/// `ConfigError` that names the field: `regions[1].major: 70000 is not in 0…65535`.
///
/// Unknown keys are rejected (Zigbee2MQTT-style strictness): a typo such as `notifyOnEnter` must not
/// silently leave the default in force. `null` counts as absent for optional fields.
public struct JSONFieldReader {
    public let object: JSONObject
    public let path: FieldPath

    /// Fails unless `value` is an object.
    public init(_ value: JSONValue, at path: FieldPath) throws(ConfigError) {
        guard case .object(let object) = value else {
            throw ConfigError(.wrongType, path: path, message: "expected an object, got \(value.kindDescription)")
        }
        self.object = object
        self.path = path
    }

    /// A reader of an object already taken apart.
    public init(object: JSONObject, at path: FieldPath) {
        self.object = object
        self.path = path
    }

    /// Fails on the first key not in `known`.
    public func rejectUnknownKeys(_ known: [String]) throws(ConfigError) {
        for key in object.keys where !known.contains(key) {
            throw ConfigError(.unknownKey,
                path: path.appending(key), message: "unknown key (known keys: \(known.joined(separator: ", ")))")
        }
    }

    /// The value of `key`, nil when absent or `null`.
    public func optional(_ key: String) -> JSONValue? {
        guard let value = object[key], value != .null else { return nil }
        return value
    }

    public func required(_ key: String) throws(ConfigError) -> JSONValue {
        guard let value = optional(key) else { throw ConfigError(.missing, path: path.appending(key), message: "required") }
        return value
    }

    // MARK: - Typed access

    public func string(_ value: JSONValue, key: String) throws(ConfigError) -> String {
        guard case .string(let text) = value else { throw typeError(key, expected: "a string", got: value) }
        return text
    }

    public func bool(_ value: JSONValue, key: String) throws(ConfigError) -> Bool {
        guard case .bool(let flag) = value else { throw typeError(key, expected: "true or false", got: value) }
        return flag
    }

    public func array(_ value: JSONValue, key: String) throws(ConfigError) -> [JSONValue] {
        guard case .array(let elements) = value else { throw typeError(key, expected: "an array", got: value) }
        return elements
    }

    /// An integer within `range`.
    public func integer(_ value: JSONValue, key: String, in range: ClosedRange<Int64>) throws(ConfigError) -> Int64 {
        guard case .number(let number) = value else { throw typeError(key, expected: "an integer", got: value) }
        guard let integer = number.integer else {
            // 1e3 or 7.0 are integers in value but not in form; a 20-digit integer overflows.
            if number.double == number.double.rounded(), !number.literal.contains("."),
                !number.literal.contains("e"), !number.literal.contains("E")
            {
                throw ConfigError(.outOfRange,
                    path: path.appending(key),
                    message: "\(number.literal.prefix(32)) is not in \(range.lowerBound)…\(range.upperBound)")
            }
            throw ConfigError(.wrongType, path: path.appending(key), message: "expected an integer, got \(number.literal.prefix(32))")
        }
        guard range.contains(integer) else {
            throw ConfigError(.outOfRange, path: path.appending(key), message: "\(number.literal) is not in \(range.lowerBound)…\(range.upperBound)")
        }
        return integer
    }

    /// A number within `range`.
    public func number(_ value: JSONValue, key: String, in range: ClosedRange<Double>) throws(ConfigError) -> Double {
        guard case .number(let number) = value else { throw typeError(key, expected: "a number", got: value) }
        guard range.contains(number.double) else {
            throw ConfigError(.outOfRange,
                path: path.appending(key),
                message: "\(number.literal.prefix(32)) is not in \(JSONText.number(range.lowerBound))…\(JSONText.number(range.upperBound))")
        }
        return number.double
    }

    /// A `TopicLevelID`.
    public func id(_ value: JSONValue, key: String) throws(ConfigError) -> TopicLevelID {
        let text = try string(value, key: key)
        guard let id = TopicLevelID(text) else {
            throw ConfigError(.invalidValue,
                path: path.appending(key), message: "\(ConfigError.quoted(text)) is not a valid id (\(TopicLevelID.rule))")
        }
        return id
    }

    private func typeError(_ key: String, expected: String, got value: JSONValue) -> ConfigError {
        ConfigError(.wrongType, path: path.appending(key), message: "expected \(expected), got \(value.kindDescription)")
    }
}
