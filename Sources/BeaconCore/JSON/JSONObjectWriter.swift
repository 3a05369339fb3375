/// Writes one flat-or-nested JSON object in a fixed key order, without Foundation.
///
/// Payloads on MQTT and `scan --json` lines are small objects written per measurement; a writer
/// that appends to one buffer keeps key order stable (people read these with `mosquitto_sub`)
/// and costs far less than an encoder. The buffer is bytes (`JSONBytes`' formatting, the same
/// text), made a `String` once at the end: five `String` appends per key were a fifth of the
/// aggregator's work per published location (issue 38).
public struct JSONObjectWriter: Sendable {
    private var bytes: [UInt8]
    private var isEmpty = true

    /// Starts an empty object.
    public init() {
        self.init(reservingCapacity: 64)
    }

    /// A writer with room for an object of about `capacity` bytes: no reallocations as it grows.
    public init(reservingCapacity capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity + 1)
        bytes.append(UInt8(ascii: "{"))
    }

    /// The finished object.
    public var json: String {
        String(unsafeUninitializedCapacity: bytes.count + 1) { out in
            _ = out.initialize(fromContentsOf: bytes)
            out[bytes.count] = UInt8(ascii: "}")
            return bytes.count + 1
        }
    }

    /// The finished object.
    public consuming func finish() -> String {
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Adds a string member, escaped as JSON requires.
    public mutating func add(_ key: String, _ value: String) {
        appendKey(key)
        JSONBytes.appendQuoted(value, to: &bytes)
    }

    /// Adds an integer member.
    public mutating func add(_ key: String, _ value: Int) {
        appendKey(key)
        JSONBytes.append(value, to: &bytes)
    }

    /// Adds a `true` or `false` member.
    public mutating func add(_ key: String, _ value: Bool) {
        appendKey(key)
        JSONBytes.append(value ? "true" : "false", to: &bytes)
    }

    /// A number rounded to `decimals` places; NaN and infinities become `null` (JSON has neither).
    public mutating func add(_ key: String, _ value: Double, decimals: Int = 2) {
        appendKey(key)
        JSONBytes.append(value, decimals: decimals, to: &bytes)
    }

    /// `value` must already be valid JSON (a nested object or array made by another writer).
    public mutating func addRaw(_ key: String, _ json: String) {
        appendKey(key)
        bytes.append(contentsOf: json.utf8)
    }

    /// Adds a `null` member.
    public mutating func addNull(_ key: String) {
        appendKey(key)
        JSONBytes.append("null", to: &bytes)
    }

    private mutating func appendKey(_ key: String) {
        if !isEmpty { bytes.append(UInt8(ascii: ",")) }
        isEmpty = false
        JSONBytes.appendQuoted(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
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
