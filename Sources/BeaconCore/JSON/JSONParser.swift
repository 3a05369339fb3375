/// A strict RFC 8259 JSON parser for config messages, over raw payload bytes.
///
/// Our own, where the configuration files' YAML goes through a library (libyaml), because no JSON
/// library at hand gives what docs/MQTT.md promises for config messages: Foundation's `JSONSerialization`
/// and `JSONDecoder` let a repeated key silently win, name no field path or byte offset, and bring
/// Foundation into the pure core. Here errors carry the field path and byte offset
/// (`regions[2]: invalid JSON at byte 123: expected ',' or '}'`), repeated keys are rejected, and every
/// resource is bounded — payload size, nesting depth — so hostile bytes give an error, never a crash
/// or an unbounded allocation.
public struct JSONParser {
    /// The default payload limit: 1 MiB, room for about 10,000 regions.
    public static let defaultMaximumBytes = 1 << 20
    /// The default nesting limit; config messages need three levels.
    public static let defaultMaximumDepth = 32

    private let bytes: [UInt8]
    private var position = 0
    private var depth = 0
    private let maximumDepth: Int
    private var path = FieldPath.root

    private init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    /// Parses one JSON value that fills `bytes` (whitespace around it allowed).
    public static func parse(
        _ bytes: [UInt8],
        maximumBytes: Int = defaultMaximumBytes,
        maximumDepth: Int = defaultMaximumDepth
    ) throws(ConfigError) -> JSONValue {
        var parser = try atFirstValue(of: bytes, maximumBytes: maximumBytes, maximumDepth: maximumDepth)
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.error("unexpected data after the JSON value") }
        return value
    }

    /// A parser at the first value of `bytes`, after the checks both ways of reading make: the size
    /// limit, and a value there at all.
    private static func atFirstValue(of bytes: [UInt8], maximumBytes: Int, maximumDepth: Int) throws(ConfigError) -> JSONParser {
        guard bytes.count <= maximumBytes else {
            throw ConfigError(.payloadTooLarge,
                path: .root, message: "payload is \(bytes.count) bytes; the limit is \(maximumBytes) bytes")
        }
        var parser = JSONParser(bytes: bytes, maximumDepth: maximumDepth)
        parser.skipWhitespace()
        guard parser.position < bytes.count else { throw parser.error("expected a JSON value, found nothing") }
        return parser
    }

    /// Reads the members of the JSON object that fills `bytes` one by one, without building a
    /// tree: `member` is called with each key, and this parser at its value, and reads the value
    /// with `memberString()`, `memberNumber()` or `skipMemberValue()` (a value it leaves unread is
    /// skipped). The payload is checked as `parse` checks it — size, depth, syntax, keys that
    /// appear twice — and errors are the same. A measurement, thousands a second at a large site,
    /// is read this way: no dictionary, no tree, no `String` for the values it does not read (issue 38).
    public static func readObject(
        _ bytes: [UInt8],
        maximumBytes: Int = defaultMaximumBytes,
        maximumDepth: Int = defaultMaximumDepth,
        member: (_ key: String, _ value: inout JSONParser) throws(ConfigError) -> Void
    ) throws(ConfigError) {
        var parser = try atFirstValue(of: bytes, maximumBytes: maximumBytes, maximumDepth: maximumDepth)
        guard parser.peek() == UInt8(ascii: "{") else {
            // Not an object: the same error `parse` gives, or the caller's for another type.
            _ = try parse(bytes, maximumBytes: maximumBytes, maximumDepth: maximumDepth)
            throw ConfigError(.wrongType, path: .root, message: "expected a JSON object")
        }
        try parser.enterContainer()
        parser.position += 1  // {
        parser.skipWhitespace()
        if parser.peek() == UInt8(ascii: "}") {
            parser.position += 1
        } else {
            // A measurement has about 14 keys: comparing short strings beats hashing them, and
            // comparing a hash of each key's bytes first beats comparing them all (`JSONKeySignature`).
            var keys: [String] = []
            var signatures: [JSONKeySignature] = []
            keys.reserveCapacity(16)
            signatures.reserveCapacity(16)
            members: while true {
                parser.skipWhitespace()
                guard parser.peek() == UInt8(ascii: "\"") else { throw parser.error("expected a key in double quotes") }
                let keyOffset = parser.position
                let key = try parser.parseString()
                let signature = JSONKeySignature(bytes, keyOffset + 1..<parser.position - 1)
                parser.skipWhitespace()
                guard parser.peek() == UInt8(ascii: ":") else { throw parser.error("expected ':' after key") }
                parser.position += 1
                parser.skipWhitespace()
                parser.path.push(.key(key))
                let valueOffset = parser.position
                try member(key, &parser)
                if parser.position == valueOffset { try parser.skipMemberValue() }
                for (index, known) in signatures.enumerated() where known.mayEqual(signature) && keys[index] == key {
                    throw ConfigError(.invalidJSON, path: parser.path, message: "invalid JSON at byte \(keyOffset): key appears twice")
                }
                keys.append(key)
                signatures.append(signature)
                parser.path.pop()
                parser.skipWhitespace()
                switch parser.peek() {
                case UInt8(ascii: ","): parser.position += 1
                case UInt8(ascii: "}"):
                    parser.position += 1
                    break members
                default: throw parser.error("expected ',' or '}' in object")
                }
            }
        }
        parser.depth -= 1
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.error("unexpected data after the JSON value") }
    }

    /// In `readObject`'s `member`: the value as a string, nil for `null`; another type is the
    /// error `JSONFieldReader` gives, naming the member.
    public mutating func memberString() throws(ConfigError) -> String? {
        switch peek() ?? 0 {
        case UInt8(ascii: "\""): return try parseString()
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return nil
        default: return try memberTypeError { reader, key, value throws(ConfigError) in try reader.string(value, key: key) }
        }
    }

    /// In `readObject`'s `member`: the value as a number, nil for `null`; another type is the
    /// error `JSONFieldReader` gives, naming the member.
    public mutating func memberNumber() throws(ConfigError) -> Double? {
        switch peek() ?? 0 {
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = position
            _ = try parseNumberSyntax()
            if let exact = JSONDecimal.exactDouble(bytes, start..<position) { return exact }
            position = start
            return try parseNumber().double
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return nil
        default:
            return try memberTypeError { reader, key, value throws(ConfigError) in
                try reader.number(value, key: key, in: -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude)
            }
        }
    }

    /// In `readObject`'s `member`: checks the value and passes over it. A short ASCII string or
    /// a short number without an exponent is checked without being made a `String` or a `Double`
    /// (it is valid exactly when the full parse accepts it); anything else is parsed as `parse` does.
    public mutating func skipMemberValue() throws(ConfigError) {
        let start = position
        switch peek() ?? 0 {
        case UInt8(ascii: "\""):
            var end = start + 1
            while end < bytes.count {
                let byte = bytes[end]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
                end += 1
            }
            if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
                position = end + 1
                return
            }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            // The full grammar, but no literal or Double: at most 15 digits without an exponent is finite.
            var end = start
            if bytes[end] == UInt8(ascii: "-") { end += 1 }
            let digitsStart = end
            while end < bytes.count, isDigit(bytes[end]) || bytes[end] == UInt8(ascii: ".") { end += 1 }
            let plain = end - digitsStart <= 15 && (end == bytes.count || !(bytes[end] == UInt8(ascii: "e") || bytes[end] == UInt8(ascii: "E")))
            if plain {
                _ = try parseNumberSyntax()
                return
            }
        default:
            break
        }
        position = start
        _ = try parseValue()
    }

    /// Reads the value (so that a syntax error is reported first) and lets `JSONFieldReader` say
    /// what is wrong with its type.
    private mutating func memberTypeError<T>(
        _ read: (JSONFieldReader, String, JSONValue) throws(ConfigError) -> T
    ) throws(ConfigError) -> T {
        let value = try parseValue()
        guard case .key(let key)? = path.components.last else {
            throw error("unexpected value")
        }
        var parent = path
        parent.pop()
        return try read(JSONFieldReader(object: JSONObject(), at: parent), key, value)
    }

    // MARK: - Values

    private mutating func parseValue() throws(ConfigError) -> JSONValue {
        guard let byte = peek() else { throw error("unexpected end of payload, expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character \(describe(byte)), expected a value")
        }
    }

    private mutating func parseObject() throws(ConfigError) -> JSONValue {
        try enterContainer()
        position += 1  // {
        var object = JSONObject()
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw error("expected a key in double quotes") }
            let keyOffset = position
            let key = try parseString()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw error("expected ':' after key") }
            position += 1
            skipWhitespace()
            path.push(.key(key))
            let value = try parseValue()
            guard object.append(key: key, value: value) else {
                throw ConfigError(.invalidJSON, path: path, message: "invalid JSON at byte \(keyOffset): key appears twice")
            }
            path.pop()
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                depth -= 1
                return .object(object)
            default: throw error("expected ',' or '}' in object")
            }
        }
    }

    private mutating func parseArray() throws(ConfigError) -> JSONValue {
        try enterContainer()
        position += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            path.push(.index(elements.count))
            elements.append(try parseValue())
            path.pop()
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                depth -= 1
                return .array(elements)
            default: throw error("expected ',' or ']' in array")
            }
        }
    }

    private mutating func enterContainer() throws(ConfigError) {
        depth += 1
        guard depth <= maximumDepth else { throw error("nested deeper than \(maximumDepth) levels") }
    }

    // MARK: - Strings

    private mutating func parseString() throws(ConfigError) -> String {
        let start = position
        // Most strings have no escape: their bytes are the text, checked once as UTF-8.
        var end = start + 1
        var ascii = true
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            if byte >= 0x80 { ascii = false }
            end += 1
        }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\""),
            let text = bytes.withUnsafeBufferPointer({ buffer -> String? in
                let utf8 = UnsafeBufferPointer(rebasing: buffer[(start + 1)..<end])
                // ASCII is valid UTF-8 as it is: `decoding` takes it without the generic
                // validation (its metadata lookups were a tenth of a measurement's parse).
                return ascii ? String(decoding: utf8, as: UTF8.self) : String(validating: utf8, as: UTF8.self)
            })
        {
            position = end + 1
            return text
        }
        position += 1  // opening quote
        var utf8: [UInt8] = []
        while true {
            guard let byte = next() else {
                position = start
                throw error("string is not terminated")
            }
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: utf8, as: UTF8.self) else {
                    position = start
                    throw error("string is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                try parseEscape(into: &utf8)
            case 0x00..<0x20:
                position -= 1
                throw error("control character \(describe(byte)) in string (escape it)")
            default:
                utf8.append(byte)
            }
        }
    }

    private mutating func parseEscape(into utf8: inout [UInt8]) throws(ConfigError) {
        let escapeStart = position - 1
        if let problem = parseEscapeBody(into: &utf8) {
            // Point at the backslash, not wherever reading the escape stopped.
            position = escapeStart
            throw error(problem)
        }
    }

    /// Decodes the escape after a backslash into `utf8`; the problem when it is invalid.
    private mutating func parseEscapeBody(into utf8: inout [UInt8]) -> String? {
        guard let escaped = next() else { return "string is not terminated" }
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escaped)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            guard var scalarValue = parseHex4() else { return "\\u must be followed by four hex digits" }
            if (0xD800..<0xDC00).contains(scalarValue) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard next() == UInt8(ascii: "\\"), next() == UInt8(ascii: "u"), let low = parseHex4(),
                    (0xDC00..<0xE000).contains(low)
                else { return "\\u escape holds a lone surrogate" }
                scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalarValue) {
                return "\\u escape holds a lone surrogate"
            }
            guard let scalar = Unicode.Scalar(scalarValue), let encoded = UTF8.encode(scalar) else {
                return "invalid \\u escape"
            }
            utf8.append(contentsOf: encoded)
        default:
            return "invalid escape \\\(describe(escaped, quoted: false))"
        }
        return nil
    }

    private mutating func parseHex4() -> UInt32? {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = next(), let nibble = HexDigits.value(of: Unicode.Scalar(byte)) else { return nil }
            value = value << 4 | UInt32(nibble)
        }
        return value
    }

    // MARK: - Numbers and literals

    private mutating func parseNumber() throws(ConfigError) -> JSONNumber {
        let (start, isInteger) = try parseNumberSyntax()
        let literal = String(decoding: bytes[start..<position], as: UTF8.self)
        guard let double = Double(literal), double.isFinite else {
            position = start
            throw error("number \(literal.prefix(32)) is out of range")
        }
        return JSONNumber(literal: literal, double: double, integer: isInteger ? Int64(literal) : nil)
    }

    /// Passes over a number's text, checking its grammar; its start and whether it is an integer.
    private mutating func parseNumberSyntax() throws(ConfigError) -> (start: Int, isInteger: Bool) {
        let start = position
        var isInteger = true
        if peek() == UInt8(ascii: "-") { position += 1 }
        guard let first = peek(), isDigit(first) else { throw error("expected a digit") }
        position += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if peek() == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard let digit = peek(), isDigit(digit) else { throw error("expected a digit after '.'") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard let digit = peek(), isDigit(digit) else { throw error("expected a digit in exponent") }
            skipDigits()
        }
        if let byte = peek(), isDigit(byte) {
            throw error("leading zeros are not allowed in numbers")
        }
        return (start, isInteger)
    }

    private mutating func expectLiteral(_ word: StaticString) throws(ConfigError) {
        let start = position
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for byte in expected {
            guard next() == byte else {
                position = start
                throw error("unexpected character \(describe(bytes[start])), expected a value")
            }
        }
    }

    // MARK: - Cursor

    private func peek() -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    private mutating func next() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    private mutating func skipWhitespace() {
        while let byte = peek(),
            byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
        {
            position += 1
        }
    }

    private mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { position += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private func describe(_ byte: UInt8, quoted: Bool = true) -> String {
        if byte >= 0x21 && byte < 0x7F {
            let character = String(UnicodeScalar(byte))
            return quoted ? "'\(character)'" : character
        }
        return "0x" + HexDigits.string([byte])
    }

    private func error(_ message: String) -> ConfigError {
        ConfigError(.invalidJSON, path: path, message: "invalid JSON at byte \(position): \(message)")
    }
}
