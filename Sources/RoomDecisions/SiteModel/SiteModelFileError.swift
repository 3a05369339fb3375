import BeaconCore

/// Why a model file was not accepted: the line (for JSON syntax) or the field it concerns.
/// Renders as `line 3: …` or `rooms[1].nodes.i-dl.sigma: …`; the reader prefixes the file's path.
public struct SiteModelFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// 1-based line of a syntax error, nil for an error in a field's value.
    public var line: Int?
    /// The JSON field, e.g. `rooms[1].nodes.i-dl.sigma`; nil for a syntax error.
    public var field: String?
    /// What is wrong, without the line or field.
    public var message: String

    /// Creates an error at a line (syntax) or about a field (value).
    public init(line: Int? = nil, field: String? = nil, message: String) {
        self.line = line
        self.field = field
        self.message = message
    }

    /// `line 3: …` or `rooms[1].nodes.i-dl.sigma: …`; the reader puts the file's path in front.
    public var description: String {
        var parts: [String] = []
        if let line { parts.append("line \(line)") }
        if let field, !field.isEmpty { parts.append(field) }
        return parts.isEmpty ? message : parts.joined(separator: ": ") + ": " + message
    }
}
