import BeaconCore

/// A YAML value as `YAMLReader` reads a configuration file: a scalar, a list or a mapping, with the
/// line it starts on (from 1), so every setting's error can name its line.
///
/// Scalars stay text: YAML's type guessing (`on` → true, `0755` → octal) is left to each setting's
/// own check, which names the field. Mappings keep their keys in file order. Two nodes are equal when
/// their values are, wherever they stand in the file.
public struct YAMLNode: Hashable, Sendable {
    public enum Value: Hashable, Sendable {
        case scalar(YAMLScalar)
        case sequence([YAMLNode])
        case mapping(YAMLMapping)
    }

    public var value: Value
    /// The line the node starts on, from 1 (0 for nodes built in code).
    public var line: Int

    public init(_ value: Value, line: Int = 0) {
        self.value = value
        self.line = line
    }

    public static func scalar(_ scalar: YAMLScalar, line: Int = 0) -> YAMLNode { YAMLNode(.scalar(scalar), line: line) }
    public static func sequence(_ items: [YAMLNode], line: Int = 0) -> YAMLNode { YAMLNode(.sequence(items), line: line) }
    public static func mapping(_ mapping: YAMLMapping, line: Int = 0) -> YAMLNode { YAMLNode(.mapping(mapping), line: line) }

    public static func == (left: YAMLNode, right: YAMLNode) -> Bool { left.value == right.value }
    public func hash(into hasher: inout Hasher) { hasher.combine(value) }

    public var scalar: YAMLScalar? {
        if case .scalar(let scalar) = value { return scalar }
        return nil
    }

    public var sequence: [YAMLNode]? {
        if case .sequence(let items) = value { return items }
        return nil
    }

    public var mapping: YAMLMapping? {
        if case .mapping(let mapping) = value { return mapping }
        return nil
    }

    /// YAML's null: an unquoted empty value, `~` or `null`.
    public var isNull: Bool { scalar?.isNull ?? false }
}

/// One scalar's text, after quotes and escapes, and how it was written.
public struct YAMLScalar: Hashable, Sendable {
    public enum Style: Hashable, Sendable {
        /// Unquoted and untagged: the only style YAML resolves to null, booleans or numbers.
        case plain
        case singleQuoted
        case doubleQuoted
        /// `|` or `>`.
        case block
        /// Tagged `!!str`: text, whatever it looks like.
        case tagged
    }

    public var text: String
    public var style: Style

    public init(_ text: String, style: Style = .plain) {
        self.text = text
        self.style = style
    }

    /// YAML's null: `key:` with nothing after it, `~`, `null`, `Null` or `NULL`, unquoted (`''` is
    /// an empty text, not null).
    public var isNull: Bool {
        guard style == .plain else { return false }
        switch text {
        case "", "~", "null", "Null", "NULL": return true
        default: return false
        }
    }

    /// The value of a boolean setting: YAML 1.2's `true`/`false` (any case) and, because a file
    /// written for a YAML 1.1 reader means the same by them, `yes`/`no`/`on`/`off`; quoted or not, as
    /// the same words in an environment variable. Nil for anything else, so the setting's check
    /// names the field.
    public var boolean: Bool? {
        switch text.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: return nil
        }
    }
}

/// A YAML mapping with text keys in file order. Keys are unique (the reader rejects repeats).
public struct YAMLMapping: Hashable, Sendable {
    /// The keys, with each one's position.
    private var index = OrderedKeys()
    public private(set) var values: [YAMLNode]
    /// The line of each key, from 1.
    public private(set) var keyLines: [Int]

    public init() {
        values = []
        keyLines = []
    }

    /// The keys, in file order.
    public var keys: [String] { index.keys }

    public static func == (left: YAMLMapping, right: YAMLMapping) -> Bool {
        left.keys == right.keys && left.values == right.values
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(keys)
        hasher.combine(values)
    }

    public subscript(key: String) -> YAMLNode? {
        guard let position = index.position(of: key) else { return nil }
        return values[position]
    }

    /// The line of `key`, if present.
    public func line(of key: String) -> Int? {
        index.position(of: key).map { keyLines[$0] }
    }

    public var count: Int { index.count }

    /// The entries in file order.
    public var entries: [(key: String, line: Int, value: YAMLNode)] {
        keys.indices.map { (keys[$0], keyLines[$0], values[$0]) }
    }

    /// Appends an entry; false (and nothing added) when the key is already present.
    @discardableResult
    public mutating func append(key: String, value: YAMLNode, line: Int = 0) -> Bool {
        guard index.append(key) else { return false }
        values.append(value)
        keyLines.append(line)
        return true
    }
}

/// Why a YAML text was refused: the line (from 1) and what is wrong there.
public struct YAMLError: Error, Hashable, Sendable, CustomStringConvertible {
    public var line: Int
    public var message: String

    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    /// `line 3: duplicate key 'a'`.
    public var description: String { "line \(line): \(message)" }
}
