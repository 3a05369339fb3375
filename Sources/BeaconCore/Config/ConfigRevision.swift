/// Reading the `revision` every config message carries.
enum ConfigRevision {
    /// Revisions are JSON integers; this bound keeps them exact in any JSON reader (2^53 − 1).
    static let range: ClosedRange<Int64> = 0...9_007_199_254_740_991

    /// The message's revision, or nil when it cannot be read — for the status of a rejected message.
    static func peek(_ value: JSONValue) -> Int64? {
        guard case .object(let object) = value, case .number(let number)? = object["revision"],
            let revision = number.integer, range.contains(revision)
        else { return nil }
        return revision
    }

    /// The required `revision` of a message.
    static func read(_ reader: JSONFieldReader) throws(ConfigError) -> Int64 {
        try reader.integer(try reader.required("revision"), key: "revision", in: range)
    }

    /// Parses `payload` as a config message: empty is `cleared`; otherwise JSON whose top level is
    /// read by `body`. Errors carry the message's revision when it could be read.
    static func parse<Content>(
        _ payload: [UInt8], maximumBytes: Int,
        _ body: (JSONValue) throws(ConfigError) -> Content
    ) throws(ConfigError) -> ConfigPayload<Content> {
        if payload.isEmpty { return .cleared }
        let value = try JSONParser.parse(payload, maximumBytes: maximumBytes)
        do {
            return .replaced(try body(value))
        } catch {
            var error = error
            error.messageRevision = peek(value)
            throw error
        }
    }
}
