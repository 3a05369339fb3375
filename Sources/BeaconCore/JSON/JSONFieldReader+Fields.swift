// Reading a field by its key, in the two ways messages need: strictly, where a value of the wrong
// type is an error naming the field (configuration, measurements), and leniently, where it is left
// out (a node's info, a retained location, a lease: displays and hints whose writer may be older or
// newer than the reader).

extension JSONFieldReader {
    // MARK: - Strict, by key

    /// The string at `key`; nil when absent or `null`; another type is an error naming the field.
    public func optionalString(_ key: String) throws(ConfigError) -> String? {
        guard let value = optional(key) else { return nil }
        return try string(value, key: key)
    }

    /// The string at `key`; absent, `null` or another type is an error naming the field.
    public func requiredString(_ key: String) throws(ConfigError) -> String {
        try string(try required(key), key: key)
    }

    /// The number at `key` within `range`; nil when absent or `null`.
    public func optionalNumber(_ key: String, in range: ClosedRange<Double> = -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude)
        throws(ConfigError) -> Double?
    {
        guard let value = optional(key) else { return nil }
        return try number(value, key: key, in: range)
    }

    /// The object at `key` as a reader of its own fields; absent, `null` or another type is an error.
    public func requiredObject(_ key: String) throws(ConfigError) -> JSONFieldReader {
        try JSONFieldReader(try required(key), at: path.appending(key))
    }

    // MARK: - Lenient

    /// A message's top-level object, or nil when the bytes are not JSON or not an object.
    public init?(
        lenient payload: [UInt8], maximumBytes: Int = JSONParser.defaultMaximumBytes,
        maximumDepth: Int = JSONParser.defaultMaximumDepth
    ) {
        guard let value = try? JSONParser.parse(payload, maximumBytes: maximumBytes, maximumDepth: maximumDepth) else { return nil }
        self.init(lenient: value)
    }

    /// A value that must be an object (an array's entry), or nil.
    public init?(lenient value: JSONValue, at path: FieldPath = .root) {
        guard case .object(let object) = value else { return nil }
        self.object = object
        self.path = path
    }

    /// The string at `key`; nil when absent, `null` or of another type.
    public func lenientString(_ key: String) -> String? {
        guard case .string(let text)? = object[key] else { return nil }
        return text
    }

    /// The number at `key`; nil when absent, `null` or of another type.
    public func lenientNumber(_ key: String) -> Double? {
        guard case .number(let number)? = object[key] else { return nil }
        return number.double
    }

    /// The integer at `key` (no fraction, no exponent, fits 64 bits); nil otherwise.
    public func lenientInteger(_ key: String) -> Int64? {
        guard case .number(let number)? = object[key] else { return nil }
        return number.integer
    }

    /// The object at `key`; nil when absent, `null` or of another type.
    public func lenientObject(_ key: String) -> JSONFieldReader? {
        guard case .object(let inner)? = object[key] else { return nil }
        return JSONFieldReader(object: inner, at: path.appending(key))
    }

    /// The array at `key`; nil when absent, `null` or of another type.
    public func lenientArray(_ key: String) -> [JSONValue]? {
        guard case .array(let elements)? = object[key] else { return nil }
        return elements
    }
}
