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

    /// `value` rounded to `decimals` places, without trailing zeros; `null` for NaN and infinities.
    public static func number(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "null" }
        var scale = 1.0
        for _ in 0..<max(0, min(decimals, 9)) { scale *= 10 }
        let scaled = (value * scale).rounded()
        guard abs(scaled) < 9.0e15 else { return String(value) }
        let whole = Int64(scaled)
        if decimals <= 0 || whole % Int64(scale) == 0 { return String(whole / Int64(scale)) }
        let negative = whole < 0
        let magnitude = whole.magnitude
        let unit = UInt64(scale)
        var fraction = String(magnitude % unit)
        while fraction.count < decimals { fraction = "0" + fraction }
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return (negative ? "-" : "") + String(magnitude / unit) + "." + fraction
    }
}
