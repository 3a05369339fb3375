/// Why a config message was rejected: the field it concerns and what is wrong with it.
///
/// Renders as `path: message`, e.g. `regions[2].uuid: 'abc' is not a UUID`, which is exactly the
/// `error` of the `config/status` answer (docs/MQTT.md). Errors about the message as a whole use the
/// path `payload`.
public struct ConfigError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem it is, for code that reacts to errors (the message is for people).
    public enum Code: String, Hashable, Sendable {
        /// The payload exceeds the size limit.
        case payloadTooLarge
        /// The payload is not JSON (syntax, encoding, nesting depth, repeated key).
        case invalidJSON
        /// A value has the wrong JSON type.
        case wrongType
        /// A required field is absent or `null`.
        case missing
        /// A key the message kind does not know.
        case unknownKey
        /// A number outside its range.
        case outOfRange
        /// A value of the right type that is not acceptable (a bad id, uuid, beacon id, minor without major).
        case invalidValue
        /// An id or beacon that appears twice.
        case duplicate
    }

    /// What kind of problem it is.
    public var code: Code
    /// The field the error concerns.
    public var path: FieldPath
    /// What is wrong, without the path.
    public var message: String
    /// The `revision` of the rejected message when it could be read, for the status answer.
    public var messageRevision: Int64?

    /// Creates an error about the field at `path`.
    public init(_ code: Code, path: FieldPath, message: String, messageRevision: Int64? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.messageRevision = messageRevision
    }

    /// `path: message`.
    public var description: String { "\(path): \(message)" }

    /// `text` in single quotes for an error message: at most `limit` characters (then `…`), with
    /// control characters shown as `\u{…}`, so an error can never smuggle a newline or NUL anywhere.
    public static func quoted(_ text: String, limit: Int = 64) -> String {
        "'" + printable(text, limit: limit) + "'"
    }

    static func printable(_ text: String, limit: Int) -> String {
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit {
                out.append("…")
                break
            }
            count += 1
            if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value) {
                out.append("\\u{\(String(scalar.value, radix: 16))}")
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
