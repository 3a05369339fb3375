/// Reads the YAML of our configuration files (etc/*.yaml, the README's examples) into `YAMLNode`s.
///
/// Our own rather than Yams: Yams brings Foundation, whose libraries (with ICU) are about 10 MB of
/// every agent's resident memory, and a C parser. What the files use is supported: block mappings
/// and lists (also `- key: value` items and a list at its key's indentation), plain, 'single-' and
/// "double-quoted" scalars with YAML's escapes, `# comments`, flow lists `[a, b]` and flow mappings
/// `{a: 1}` on one line, empty values and `~`/`null`, one optional `---`. Everything else — anchors,
/// aliases, tags, block scalars (`|`, `>`), values continued over several lines, several documents,
/// directives — is an error naming the line, never a guess. Parsing never traps, and nesting is
/// bounded, so any bytes give a value or an error.
public struct YAMLParser {
    /// Deeper nesting is refused; the configuration files need three levels.
    public static let maximumDepth = 32

    /// A line with content: its number from 1, its bytes without the line break, its indentation.
    private struct Line {
        let number: Int
        let bytes: [UInt8]
        let indent: Int
    }

    private let lines: [Line]
    /// The next line not yet read.
    private var index = 0

    private init(lines: [Line]) {
        self.lines = lines
    }

    /// The document in `text`; nil when it has no content (empty, or only comments).
    public static func parse(_ text: String) throws(YAMLError) -> YAMLNode? {
        var parser = YAMLParser(lines: try contentLines(Array(text.utf8)))
        guard let first = parser.lines.first else { return nil }
        let root = try parser.blockNode(column: first.indent, depth: 0)
        if parser.index < parser.lines.count {
            throw unexpectedIndentation(parser.lines[parser.index])
        }
        return root
    }

    // MARK: - Lines

    /// The lines that carry content: blank and comment lines and the document markers are left out.
    private static func contentLines(_ text: [UInt8]) throws(YAMLError) -> [Line] {
        var bytes = text[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }  // a UTF-8 byte order mark
        var lines: [Line] = []
        var number = 0
        var started = false  // a `---` was seen
        var ended = false  // a `...` was seen
        for raw in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            var line = Array(raw)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            var indent = 0
            while indent < line.count, line[indent] == space { indent += 1 }
            let content = skipBlanks(line, from: indent)
            if content == line.count || line[content] == hash { continue }
            if content > indent {
                throw YAMLError(line: number, message: "a tab in the indentation (YAML indents with spaces only)")
            }
            if indent == 0, isMarker(line, "---") || isMarker(line, "...") {
                if line[0] == hyphen {
                    if started || !lines.isEmpty || ended {
                        throw YAMLError(line: number, message: "a second document (---) is not supported: one document per file")
                    }
                    started = true
                } else {
                    ended = true
                }
                let rest = skipBlanks(line, from: 3)
                if rest < line.count, line[rest] != hash {
                    throw YAMLError(line: number, message: "content on the '\(line[0] == hyphen ? "---" : "...")' line is not supported")
                }
                continue
            }
            if ended {
                throw YAMLError(line: number, message: "content after the end of the document (...) is not supported")
            }
            if indent == 0, line[0] == UInt8(ascii: "%"), lines.isEmpty {
                throw YAMLError(line: number, message: "directives (%YAML, %TAG) are not supported")
            }
            lines.append(Line(number: number, bytes: line, indent: indent))
        }
        return lines
    }

    private static func isMarker(_ line: [UInt8], _ marker: StaticString) -> Bool {
        let count = marker.utf8CodeUnitCount
        guard line.count >= count else { return false }
        let matches = marker.withUTF8Buffer { line.starts(with: $0) }
        return matches && isBlankOrEnd(line, count)
    }

    // MARK: - Block structure

    /// The node that starts at `column` of the current line: a list, a mapping or a one-line value.
    private mutating func blockNode(column: Int, depth: Int) throws(YAMLError) -> YAMLNode {
        guard index < lines.count else { return .scalar(YAMLScalar("")) }
        let line = lines[index]
        guard depth < Self.maximumDepth else {
            throw YAMLError(line: line.number, message: "nested deeper than \(Self.maximumDepth) levels")
        }
        if Self.isListItem(line.bytes, at: column) { return try blockList(indent: column, depth: depth) }
        if let key = try Self.mappingKey(line, at: column) {
            return try blockMapping(indent: column, first: key, depth: depth)
        }
        let node = try Self.lineValue(line, at: column, depth: depth)
        index += 1
        return node
    }

    /// `- item` lines at `indent`; the first may start mid-line (`- - a`, or a list item's list).
    private mutating func blockList(indent: Int, depth: Int) throws(YAMLError) -> YAMLNode {
        var items: [YAMLNode] = []
        var column = indent
        while index < lines.count {
            let line = lines[index]
            let valueColumn = Self.skipBlanks(line.bytes, from: column + 1)
            if Self.isLineEnd(line.bytes, valueColumn) {
                // `-` alone: the item is the more indented block below, or null.
                index += 1
                if index < lines.count, lines[index].indent > indent {
                    items.append(try blockNode(column: lines[index].indent, depth: depth + 1))
                } else {
                    items.append(.scalar(YAMLScalar("")))
                }
            } else {
                items.append(try blockNode(column: valueColumn, depth: depth + 1))
            }
            guard index < lines.count else { break }
            let next = lines[index]
            if next.indent > indent { throw Self.unexpectedIndentation(next) }
            // Less indented, or a key at this indentation: the list is over, the caller goes on.
            guard next.indent == indent, Self.isListItem(next.bytes, at: indent) else { break }
            column = indent
        }
        return .sequence(items)
    }

    /// `key: value` lines at `indent`; the first key is already read (it may start mid-line, after `- `).
    private mutating func blockMapping(
        indent: Int, first: (key: String, valueColumn: Int), depth: Int
    ) throws(YAMLError) -> YAMLNode {
        var mapping = YAMLMapping()
        var key = first
        while true {
            let line = lines[index]
            let valueColumn = Self.skipBlanks(line.bytes, from: key.valueColumn)
            let value: YAMLNode
            if Self.isLineEnd(line.bytes, valueColumn) {
                // `key:` alone: a more indented block, a list at the key's own indentation, or null.
                index += 1
                if index < lines.count, lines[index].indent > indent {
                    value = try blockNode(column: lines[index].indent, depth: depth + 1)
                } else if index < lines.count, lines[index].indent == indent, Self.isListItem(lines[index].bytes, at: indent) {
                    value = try blockList(indent: indent, depth: depth + 1)
                } else {
                    value = .scalar(YAMLScalar(""))
                }
            } else {
                if Self.isListItem(line.bytes, at: valueColumn) {
                    throw YAMLError(line: line.number, message: "a list cannot start on its key's line; put each '- item' on a line of its own")
                }
                value = try Self.lineValue(line, at: valueColumn, depth: depth + 1)
                index += 1
            }
            guard mapping.append(key: key.key, value: value) else {
                throw YAMLError(line: line.number, message: "duplicate key \(ConfigError.quoted(key.key))")
            }
            guard index < lines.count else { break }
            let next = lines[index]
            if next.indent < indent { break }
            if next.indent > indent { throw Self.unexpectedIndentation(next) }
            guard let nextKey = try Self.mappingKey(next, at: indent) else {
                if Self.isListItem(next.bytes, at: indent) {
                    throw YAMLError(line: next.number, message: "a '- ' list item where a 'key: value' was expected")
                }
                throw YAMLError(line: next.number, message: "expected 'key: value' at this indentation")
            }
            key = nextKey
        }
        return .mapping(mapping)
    }

    /// The key of a `key: value` line starting at `column`, and the column after its `:`; nil when
    /// the text there is not a key (a value, a list item).
    private static func mappingKey(_ line: Line, at column: Int) throws(YAMLError) -> (key: String, valueColumn: Int)? {
        let bytes = line.bytes
        guard column < bytes.count else { return nil }
        let first = bytes[column]
        if first == doubleQuote || first == singleQuote {
            let (text, end) = try quoted(line, at: column)
            let colon = skipBlanks(bytes, from: end)
            guard colon < bytes.count, bytes[colon] == UInt8(ascii: ":"), isBlankOrEnd(bytes, colon + 1) else { return nil }
            return (text, colon + 1)
        }
        if first == UInt8(ascii: "?"), isBlankOrEnd(bytes, column + 1) {
            throw YAMLError(line: line.number, message: "complex keys (?) are not supported")
        }
        if indicators.contains(first) || first == UInt8(ascii: ":") || first == hyphen && isBlankOrEnd(bytes, column + 1) {
            return nil
        }
        var position = column
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: ":"), isBlankOrEnd(bytes, position + 1) {
                return (text(bytes[column..<position]), position + 1)
            }
            if byte == hash, isBlank(bytes[position - 1]) { return nil }
            position += 1
        }
        return nil
    }

    // MARK: - One-line values

    /// The value from `column` to the end of the line (a comment may follow): a scalar or a flow
    /// list or mapping.
    private static func lineValue(_ line: Line, at column: Int, depth: Int) throws(YAMLError) -> YAMLNode {
        let bytes = line.bytes
        guard column < bytes.count else { return .scalar(YAMLScalar("")) }
        let first = bytes[column]
        if first == UInt8(ascii: "[") || first == UInt8(ascii: "{") {
            var position = column
            let node = try flowCollection(line, at: &position, depth: depth)
            try expectLineEnd(line, after: position)
            return node
        }
        if first == doubleQuote || first == singleQuote {
            let (text, end) = try quoted(line, at: column)
            try expectLineEnd(line, after: end)
            return .scalar(YAMLScalar(text, style: first == doubleQuote ? .doubleQuoted : .singleQuoted))
        }
        try checkPlainStart(line, at: column)
        var end = column
        while end < bytes.count, !(end > column && bytes[end] == hash && isBlank(bytes[end - 1])) { end += 1 }
        while end > column, isBlank(bytes[end - 1]) { end -= 1 }
        var position = column
        while position < end {
            if bytes[position] == UInt8(ascii: ":"), isBlankOrEnd(bytes, position + 1) {
                throw YAMLError(line: line.number, message: "': ' in an unquoted value; put the value in quotes")
            }
            position += 1
        }
        return .scalar(YAMLScalar(text(bytes[column..<end])))
    }

    /// Refuses what cannot start a plain scalar, naming the feature when it is one we leave out.
    private static func checkPlainStart(_ line: Line, at column: Int) throws(YAMLError) {
        let bytes = line.bytes
        guard column < bytes.count else { return }
        let first = bytes[column]
        let message: String
        switch first {
        case UInt8(ascii: "&"): message = "anchors (&) are not supported"
        case UInt8(ascii: "*"): message = "aliases (*) are not supported"
        case UInt8(ascii: "!"): message = "tags (!) are not supported"
        case UInt8(ascii: "|"), UInt8(ascii: ">"):
            message = "block scalars (| and >) are not supported; write the value on one line, in quotes if need be"
        case UInt8(ascii: "?") where isBlankOrEnd(bytes, column + 1): message = "complex keys (?) are not supported"
        case UInt8(ascii: ":") where isBlankOrEnd(bytes, column + 1): message = "a ':' without a key"
        case hyphen where isBlankOrEnd(bytes, column + 1): message = "a '- ' list item is not allowed here"
        case UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ","), UInt8(ascii: "%"), UInt8(ascii: "@"),
            UInt8(ascii: "`"), hash:
            message = "\(describe(first)) cannot start an unquoted value; put the value in quotes"
        default: return
        }
        throw YAMLError(line: line.number, message: message)
    }

    /// After a value only blanks and a comment may follow on its line.
    private static func expectLineEnd(_ line: Line, after position: Int) throws(YAMLError) {
        let next = skipBlanks(line.bytes, from: position)
        if next == line.bytes.count || (next > position && line.bytes[next] == hash) { return }
        throw YAMLError(line: line.number, message: "unexpected \(describe(line.bytes[next])) after the value")
    }

    /// A 'single-' or "double-quoted" scalar starting at `column`: its text and the column after
    /// the closing quote. It must close on its line.
    private static func quoted(_ line: Line, at column: Int) throws(YAMLError) -> (String, Int) {
        let bytes = line.bytes
        let quote = bytes[column]
        var out: [UInt8] = []
        var position = column + 1
        while position < bytes.count {
            let byte = bytes[position]
            if quote == singleQuote {
                if byte == singleQuote {
                    // '' is a quote inside; one ' ends the scalar.
                    if position + 1 < bytes.count, bytes[position + 1] == singleQuote {
                        out.append(singleQuote)
                        position += 2
                        continue
                    }
                    return (text(out[...]), position + 1)
                }
            } else if byte == doubleQuote {
                return (text(out[...]), position + 1)
            } else if byte == UInt8(ascii: "\\") {
                try escape(line, at: position, into: &out, next: &position)
                continue
            }
            out.append(byte)
            position += 1
        }
        throw YAMLError(line: line.number, message: "a quoted value must end on its line (values over several lines are not supported)")
    }

    /// One `\` escape of a double-quoted scalar at `position`, appended to `out` as UTF-8.
    private static func escape(_ line: Line, at position: Int, into out: inout [UInt8], next: inout Int) throws(YAMLError) {
        let bytes = line.bytes
        guard position + 1 < bytes.count else {
            throw YAMLError(line: line.number, message: "a '\\' at the end of the line (values over several lines are not supported)")
        }
        let code = bytes[position + 1]
        next = position + 2
        let scalar: UInt32
        switch code {
        case UInt8(ascii: "0"): scalar = 0
        case UInt8(ascii: "a"): scalar = 0x07
        case UInt8(ascii: "b"): scalar = 0x08
        case UInt8(ascii: "t"), tab: scalar = 0x09
        case UInt8(ascii: "n"): scalar = 0x0A
        case UInt8(ascii: "v"): scalar = 0x0B
        case UInt8(ascii: "f"): scalar = 0x0C
        case UInt8(ascii: "r"): scalar = 0x0D
        case UInt8(ascii: "e"): scalar = 0x1B
        case space, doubleQuote, UInt8(ascii: "/"), UInt8(ascii: "\\"): scalar = UInt32(code)
        case UInt8(ascii: "N"): scalar = 0x85
        case UInt8(ascii: "_"): scalar = 0xA0
        case UInt8(ascii: "L"): scalar = 0x2028
        case UInt8(ascii: "P"): scalar = 0x2029
        case UInt8(ascii: "x"), UInt8(ascii: "u"), UInt8(ascii: "U"):
            let digits = code == UInt8(ascii: "x") ? 2 : code == UInt8(ascii: "u") ? 4 : 8
            var value: UInt32 = 0
            for offset in 0..<digits {
                guard next + offset < bytes.count, let digit = hexValue(bytes[next + offset]) else {
                    throw YAMLError(line: line.number, message: "'\\\(Character(Unicode.Scalar(code)))' needs \(digits) hexadecimal digits")
                }
                value = value << 4 | UInt32(digit)
            }
            next += digits
            scalar = value
        default:
            throw YAMLError(line: line.number, message: "unknown escape '\\\(printable(code))' in a double-quoted value")
        }
        guard let unicode = Unicode.Scalar(scalar) else {
            throw YAMLError(line: line.number, message: "escape U+\(String(scalar, radix: 16, uppercase: true)) is not a Unicode scalar value")
        }
        UTF8.encode(unicode) { out.append($0) }
    }

    // MARK: - Flow collections

    /// `[a, b]` or `{a: 1, b: 2}` starting at `position`, nested as deep as allowed; it must close
    /// on its line. `position` ends after the closing bracket.
    private static func flowCollection(_ line: Line, at position: inout Int, depth: Int) throws(YAMLError) -> YAMLNode {
        let bytes = line.bytes
        guard depth < maximumDepth else {
            throw YAMLError(line: line.number, message: "nested deeper than \(maximumDepth) levels")
        }
        let isList = bytes[position] == UInt8(ascii: "[")
        let close = isList ? UInt8(ascii: "]") : UInt8(ascii: "}")
        let unclosed = YAMLError(
            line: line.number,
            message: "\(isList ? "a [ list" : "a { mapping") must close with \(isList ? "]" : "}") on its line (over several lines is not supported)")
        position += 1
        var items: [YAMLNode] = []
        var mapping = YAMLMapping()
        while true {
            position = skipBlanks(bytes, from: position)
            guard position < bytes.count, !(bytes[position] == hash && isBlank(bytes[position - 1])) else { throw unclosed }
            if bytes[position] == close {
                position += 1
                return isList ? .sequence(items) : .mapping(mapping)
            }
            if isList {
                items.append(try flowValue(line, at: &position, depth: depth + 1))
            } else {
                let key = try flowKey(line, at: &position)
                position = skipBlanks(bytes, from: position)
                var value = YAMLNode.scalar(YAMLScalar(""))
                if position < bytes.count, bytes[position] == UInt8(ascii: ":") {
                    position = skipBlanks(bytes, from: position + 1)
                    if position < bytes.count, bytes[position] != UInt8(ascii: ","), bytes[position] != close {
                        value = try flowValue(line, at: &position, depth: depth + 1)
                    }
                }
                guard mapping.append(key: key, value: value) else {
                    throw YAMLError(line: line.number, message: "duplicate key \(ConfigError.quoted(key))")
                }
            }
            position = skipBlanks(bytes, from: position)
            guard position < bytes.count else { throw unclosed }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
            } else if bytes[position] != close {
                if isList, bytes[position] == UInt8(ascii: ":") {
                    throw YAMLError(line: line.number, message: "'key: value' inside [ ] is not supported; use { key: value }")
                }
                if bytes[position] == hash, isBlank(bytes[position - 1]) { throw unclosed }
                throw YAMLError(line: line.number, message: "expected ',' or '\(isList ? "]" : "}")', found \(describe(bytes[position]))")
            }
        }
    }

    /// A key inside `{ }`: quoted, or plain up to its `:`.
    private static func flowKey(_ line: Line, at position: inout Int) throws(YAMLError) -> String {
        let bytes = line.bytes
        let first = bytes[position]
        if first == doubleQuote || first == singleQuote {
            let (text, end) = try quoted(line, at: position)
            position = end
            return text
        }
        if first == UInt8(ascii: "[") || first == UInt8(ascii: "{") {
            throw YAMLError(line: line.number, message: "complex keys (a list or mapping as a key) are not supported")
        }
        try checkPlainStart(line, at: position)
        return plainFlowScalar(bytes, at: &position)
    }

    /// A value inside `[ ]` or `{ }`.
    private static func flowValue(_ line: Line, at position: inout Int, depth: Int) throws(YAMLError) -> YAMLNode {
        let bytes = line.bytes
        let first = bytes[position]
        if first == UInt8(ascii: "[") || first == UInt8(ascii: "{") {
            return try flowCollection(line, at: &position, depth: depth)
        }
        if first == doubleQuote || first == singleQuote {
            let (text, end) = try quoted(line, at: position)
            position = end
            return .scalar(YAMLScalar(text, style: first == doubleQuote ? .doubleQuoted : .singleQuoted))
        }
        try checkPlainStart(line, at: position)
        return .scalar(YAMLScalar(plainFlowScalar(bytes, at: &position)))
    }

    /// A plain scalar inside `[ ]` or `{ }`: up to `,`, a bracket, `: ` or ` #`.
    private static func plainFlowScalar(_ bytes: [UInt8], at position: inout Int) -> String {
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if flowIndicators.contains(byte) { break }
            if byte == UInt8(ascii: ":"),
                position + 1 == bytes.count || isBlank(bytes[position + 1]) || flowIndicators.contains(bytes[position + 1]) {
                break
            }
            if byte == hash, position > start, isBlank(bytes[position - 1]) { break }
            position += 1
        }
        var end = position
        while end > start, isBlank(bytes[end - 1]) { end -= 1 }
        return text(bytes[start..<end])
    }

    // MARK: - Bytes

    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
    private static let hash = UInt8(ascii: "#")
    private static let hyphen = UInt8(ascii: "-")
    private static let singleQuote = UInt8(ascii: "'")
    private static let doubleQuote = UInt8(ascii: "\"")
    /// What cannot start a plain key.
    private static let indicators: Set<UInt8> = Set("[]{},&*!|>'\"%@`#".utf8)
    private static let flowIndicators: Set<UInt8> = Set(",[]{}".utf8)

    private static func isBlank(_ byte: UInt8) -> Bool { byte == space || byte == tab }

    /// `- ` (or a lone `-`) at `column`: a block list item.
    private static func isListItem(_ bytes: [UInt8], at column: Int) -> Bool {
        column < bytes.count && bytes[column] == hyphen && isBlankOrEnd(bytes, column + 1)
    }

    private static func isBlankOrEnd(_ bytes: [UInt8], _ position: Int) -> Bool {
        position >= bytes.count || isBlank(bytes[position])
    }

    private static func skipBlanks(_ bytes: [UInt8], from position: Int) -> Int {
        var position = max(position, 0)
        while position < bytes.count, isBlank(bytes[position]) { position += 1 }
        return position
    }

    /// Nothing but a comment left (`position` follows a blank or starts the content).
    private static func isLineEnd(_ bytes: [UInt8], _ position: Int) -> Bool {
        position >= bytes.count || bytes[position] == hash
    }

    /// The input is a `String`, so its bytes are UTF-8; escapes add only whole scalars.
    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func printable(_ byte: UInt8) -> String {
        byte >= 0x21 && byte < 0x7F ? String(Character(Unicode.Scalar(byte))) : "x" + HexDigits.string([byte])
    }

    private static func describe(_ byte: UInt8) -> String {
        byte >= 0x21 && byte < 0x7F ? "'\(printable(byte))'" : "byte 0x" + HexDigits.string([byte])
    }

    private static func unexpectedIndentation(_ line: Line) -> YAMLError {
        YAMLError(
            line: line.number,
            message: "unexpected indentation (a value cannot go on over several lines; write it on one line, in quotes if need be)")
    }
}
