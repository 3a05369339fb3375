/// Why an HCI event could not be decoded; names the event, the field and the byte offset.
///
/// Offsets count from the event code (the first byte after the H4 indicator).
public struct HCIEventError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being decoded: `event`, `command_complete`, `le_advertising_report`, ….
    public var context: String
    /// Byte offset in the event packet where the problem was found.
    public var offset: Int
    /// The problem, in words.
    public var reason: String

    /// Creates an error about `context` at byte `offset`.
    public init(context: String, offset: Int, reason: String) {
        self.context = context
        self.offset = offset
        self.reason = reason
    }

    static func truncated(_ context: String, field: String, at offset: Int, needs: Int, left: Int) -> HCIEventError {
        HCIEventError(context: context, offset: offset, reason: "\(field) truncated (needs \(needs) bytes, \(left) left)")
    }

    /// For example `le_advertising_report at byte 4: report 2 data truncated (needs 27 bytes, 3 left)`.
    public var description: String { "\(context) at byte \(offset): \(reason)" }
}
