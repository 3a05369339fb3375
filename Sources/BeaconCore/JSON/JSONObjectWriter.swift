/// Writes one flat-or-nested JSON object in a fixed key order, without Foundation.
///
/// Payloads on MQTT and `scan --json` lines are small objects written per measurement; a writer
/// that appends to one `String` keeps key order stable (people read these with `mosquitto_sub`)
/// and costs far less than an encoder.
public struct JSONObjectWriter: Sendable {
    private var text: String
    private var isEmpty = true

    /// Starts an empty object.
    public init() {
        text = "{"
    }

    /// A writer with room for an object of about `capacity` bytes: no reallocations as it grows.
    public init(reservingCapacity capacity: Int) {
        text = "{"
        text.reserveCapacity(capacity)
    }

    /// The finished object.
    public var json: String { text + "}" }

    /// The finished object, closed in place in the writer's own buffer (no copy).
    public consuming func finish() -> String {
        text += "}"
        return text
    }

    /// Adds a string member, escaped as JSON requires.
    public mutating func add(_ key: String, _ value: String) {
        appendKey(key)
        JSONText.appendQuoted(value, to: &text)
    }

    /// Adds an integer member.
    public mutating func add(_ key: String, _ value: Int) {
        appendKey(key)
        text += String(value)
    }

    /// Adds a `true` or `false` member.
    public mutating func add(_ key: String, _ value: Bool) {
        appendKey(key)
        text += value ? "true" : "false"
    }

    /// A number rounded to `decimals` places; NaN and infinities become `null` (JSON has neither).
    public mutating func add(_ key: String, _ value: Double, decimals: Int = 2) {
        appendKey(key)
        text += JSONObjectWriter.number(value, decimals: decimals)
    }

    /// `value` must already be valid JSON (a nested object or array made by another writer).
    public mutating func addRaw(_ key: String, _ json: String) {
        appendKey(key)
        text += json
    }

    /// Adds a `null` member.
    public mutating func addNull(_ key: String) {
        appendKey(key)
        text += "null"
    }

    private mutating func appendKey(_ key: String) {
        if !isEmpty { text += "," }
        isEmpty = false
        JSONText.appendQuoted(key, to: &text)
        text += ":"
    }

    /// A JSON array of already-encoded elements.
    public static func array(_ elements: [String]) -> String {
        "[" + elements.joined(separator: ",") + "]"
    }

    /// `value` rounded to `decimals` places, without trailing zeros; `null` for NaN and infinities
    /// (the byte writer's formatting, `JSONByteCursor.append(_:decimals:)`).
    public static func number(_ value: Double, decimals: Int) -> String {
        String(decoding: JSONBytes.bytes(capacity: 32) { $0.append(value, decimals: decimals) }, as: UTF8.self)
    }
}
