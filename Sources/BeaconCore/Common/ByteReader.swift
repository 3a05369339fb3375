/// A cursor over bytes whose reads return nil when the bytes run out — never a trap.
///
/// Every decoder in the core reads through this (the SwiftNIO `ByteBuffer.readInteger` idea), so a
/// truncated or hostile packet becomes a typed error or nil, and no length field can make a decoder
/// allocate more than the bytes it was given.
public struct ByteReader: Sendable {
    /// The bytes being read.
    public let bytes: ArraySlice<UInt8>
    /// Index of the next byte to read, in `bytes`' own indices.
    public private(set) var position: Int

    /// Starts reading at the slice's first byte.
    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    /// Starts reading at the array's first byte.
    public init(_ bytes: [UInt8]) {
        self.init(bytes[...])
    }

    /// Bytes not yet read.
    public var remaining: Int { bytes.endIndex - position }
    /// True when every byte has been read.
    public var isAtEnd: Bool { position >= bytes.endIndex }
    /// Bytes read so far.
    public var offset: Int { position - bytes.startIndex }

    /// Reads one byte, or nil at the end.
    public mutating func readUInt8() -> UInt8? {
        guard position < bytes.endIndex else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    /// Reads one signed byte (an RSSI, a TX power), or nil at the end.
    public mutating func readInt8() -> Int8? {
        readUInt8().map { Int8(bitPattern: $0) }
    }

    /// Reads a little-endian 16-bit integer (HCI's order), or nil when fewer than 2 bytes are left.
    public mutating func readUInt16LE() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { position += 2 }
        return UInt16(bytes[position]) | UInt16(bytes[position + 1]) << 8
    }

    /// Reads a big-endian 16-bit integer (beacon frames' order), or nil when fewer than 2 bytes are left.
    public mutating func readUInt16BE() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { position += 2 }
        return UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
    }

    /// Reads a little-endian 32-bit integer, or nil when fewer than 4 bytes are left.
    public mutating func readUInt32LE() -> UInt32? {
        guard remaining >= 4 else { return nil }
        var value: UInt32 = 0
        for i in 0..<4 { value |= UInt32(bytes[position + i]) << (8 * UInt32(i)) }
        position += 4
        return value
    }

    /// Reads a big-endian 32-bit integer, or nil when fewer than 4 bytes are left.
    public mutating func readUInt32BE() -> UInt32? {
        guard remaining >= 4 else { return nil }
        var value: UInt32 = 0
        for i in 0..<4 { value = value << 8 | UInt32(bytes[position + i]) }
        position += 4
        return value
    }

    /// Reads a big-endian 64-bit integer, or nil when fewer than 8 bytes are left.
    public mutating func readUInt64BE() -> UInt64? {
        guard remaining >= 8 else { return nil }
        var value: UInt64 = 0
        for i in 0..<8 { value = value << 8 | UInt64(bytes[position + i]) }
        position += 8
        return value
    }

    /// The next `count` bytes as a slice sharing storage; nil (and nothing consumed) if fewer remain.
    public mutating func readBytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, remaining >= count else { return nil }
        defer { position += count }
        return bytes[position..<position + count]
    }

    /// Everything not yet read.
    public mutating func readRest() -> ArraySlice<UInt8> {
        defer { position = bytes.endIndex }
        return bytes[position...]
    }

    /// Skips `count` bytes; false (and nothing consumed) if fewer remain.
    @discardableResult
    public mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, remaining >= count else { return false }
        position += count
        return true
    }
}
