/// A YAML value as `YAMLParser` reads the configuration files: a scalar, a list or a mapping.
///
/// Scalars stay text: YAML's type guessing (`on` → true, `0755` → octal) is left to each setting's
/// own check, which names the field. Mappings keep their keys in file order.
public enum YAMLNode: Hashable, Sendable {
    case scalar(YAMLScalar)
    case sequence([YAMLNode])
    case mapping(YAMLMapping)

    public var scalar: YAMLScalar? {
        if case .scalar(let scalar) = self { return scalar }
        return nil
    }

    public var sequence: [YAMLNode]? {
        if case .sequence(let items) = self { return items }
        return nil
    }

    public var mapping: YAMLMapping? {
        if case .mapping(let mapping) = self { return mapping }
        return nil
    }

    /// YAML's null: an unquoted empty value, `~` or `null`.
    public var isNull: Bool { scalar?.isNull ?? false }
}

/// One scalar's text, after quotes and escapes, and how it was written.
public struct YAMLScalar: Hashable, Sendable {
    public enum Style: Hashable, Sendable {
        case plain
        case singleQuoted
        case doubleQuoted
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
}

/// A YAML mapping with text keys in file order. Keys are unique (the parser rejects repeats).
public struct YAMLMapping: Hashable, Sendable {
    public private(set) var keys: [String]
    public private(set) var values: [YAMLNode]
    /// Positions by key, built only past `linearSearchLimit` entries, so a file with 100,000 keys
    /// costs linear, not quadratic, time to check for repeats.
    private var positions: [String: Int]?
    private static let linearSearchLimit = 16

    public init() {
        keys = []
        values = []
    }

    public subscript(key: String) -> YAMLNode? {
        guard let position = position(of: key) else { return nil }
        return values[position]
    }

    public var count: Int { keys.count }

    /// The entries in file order.
    public var entries: Zip2Sequence<[String], [YAMLNode]> { zip(keys, values) }

    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        return keys.firstIndex(of: key)
    }

    /// Appends an entry; false (and nothing added) when the key is already present.
    @discardableResult
    public mutating func append(key: String, value: YAMLNode) -> Bool {
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

/// Why a YAML text was refused: the line (from 1) and what is wrong or unsupported there.
public struct YAMLError: Error, Hashable, Sendable, CustomStringConvertible {
    public var line: Int
    public var message: String

    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    /// `line 3: anchors (&) are not supported`.
    public var description: String { "line \(line): \(message)" }
}
