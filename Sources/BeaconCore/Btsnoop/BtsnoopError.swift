/// Why a btsnoop capture could not be read; names the record and its byte offset where there is one.
public struct BtsnoopError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// The file does not start with `btsnoop\0`.
        case badMagic
        /// The file ended inside its 16-byte header.
        case truncatedHeader(available: Int)
        /// The header names a version other than 1.
        case unsupportedVersion(UInt32)
        /// The header names a datalink other than 1001, 1002 or 2001.
        case unsupportedDatalink(UInt32)
        /// The file ended inside a record.
        case truncated(needed: Int, available: Int)
        /// A record's included length is beyond any HCI packet: the file is corrupt.
        case recordTooLong(length: Int, limit: Int)
        /// An H4 record with no bytes, so no indicator.
        case emptyPacket
        /// The file could not be opened or read.
        case io(String)
    }

    /// What went wrong.
    public var kind: Kind
    /// The record (counting from 1), when the problem is in one.
    public var recordNumber: Int?
    /// Offset of that record from the start of the file.
    public var byteOffset: Int?

    /// Creates an error, with the record and byte offset where they are known.
    public init(_ kind: Kind, recordNumber: Int? = nil, byteOffset: Int? = nil) {
        self.kind = kind
        self.recordNumber = recordNumber
        self.byteOffset = byteOffset
    }

    /// For example `record 17 at byte 4120: truncated (needs 43 bytes, 12 left)`.
    public var description: String {
        let reason: String
        switch kind {
        case .badMagic: reason = "not a btsnoop file (bad magic)"
        case .truncatedHeader(let available):
            reason = "not a btsnoop file (header truncated: needs 16 bytes, \(available) left)"
        case .unsupportedVersion(let version): reason = "unsupported btsnoop version \(version)"
        case .unsupportedDatalink(let datalink): reason = "unsupported datalink \(datalink)"
        case .truncated(let needed, let available): reason = "truncated (needs \(needed) bytes, \(available) left)"
        case .recordTooLong(let length, let limit): reason = "included length \(length) exceeds the limit \(limit)"
        case .emptyPacket: reason = "empty H4 packet (no indicator)"
        case .io(let message): reason = message
        }
        guard let recordNumber, let byteOffset else { return reason }
        return "record \(recordNumber) at byte \(byteOffset): \(reason)"
    }
}
