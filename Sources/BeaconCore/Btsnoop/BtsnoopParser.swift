/// Reads btsnoop captures incrementally: append bytes as they come, take records out.
///
/// Pure and constant in memory: it holds at most one record plus the last chunk appended (append
/// only after `nextRecord()` returned nil). Record packets are slices of its buffer; use each
/// before appending again, or the next append has to copy the buffer.
///
/// Format: 16-byte header (`btsnoop\0`, version 1, datalink), then records of original length
/// u32, included length u32, flags u32, cumulative drops u32, timestamp i64 in microseconds since
/// 0000-01-01 — all big-endian — and the packet.
public struct BtsnoopParser: Sendable {
    /// The eight bytes every btsnoop file starts with: `btsnoop` and a NUL.
    public static let magic: [UInt8] = Array("btsnoop".utf8) + [0]
    /// The length of the file header: magic, version and datalink.
    public static let headerLength = 16
    /// The length of each record's header: two lengths, flags, drops and a timestamp.
    public static let recordHeaderLength = 24
    /// The largest included length accepted: an ACL packet of 65,535 bytes with its header,
    /// indicator and some room. Anything longer means a corrupt file.
    public static let maximumIncludedLength = 65_536 + 16
    /// Microseconds from 0000-01-01 (the btsnoop epoch) to 1970-01-01.
    public static let unixEpochOffsetMicroseconds: Int64 = 0x00dc_ddb3_0f2f_8000

    /// Known once the header has been read.
    public private(set) var datalink: BtsnoopDatalink?
    /// Records read so far, including BlueZ monitor records skipped as not HCI.
    public private(set) var recordCount = 0

    private var buffer: [UInt8] = []
    private var start = 0
    /// File offset of `buffer[0]`.
    private var discarded = 0
    private var failure: BtsnoopError?

    /// Creates a parser that expects the file header first.
    public init() {}

    /// Bytes buffered and not yet returned.
    public var bufferedByteCount: Int { buffer.count - start }

    /// Adds the next bytes of the file.
    public mutating func append<C: Collection>(contentsOf bytes: C) where C.Element == UInt8 {
        if start > 0 {
            buffer.removeSubrange(0..<start)
            discarded += start
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next HCI record, or nil when more bytes are needed. Throws on a malformed file, and
    /// keeps throwing the same error afterwards.
    public mutating func nextRecord() throws(BtsnoopError) -> BtsnoopRecord? {
        if let failure { throw failure }
        do {
            return try readRecord()
        } catch {
            failure = error
            throw error
        }
    }

    /// Call at the end of the input: throws if it stopped inside the header or a record.
    public func finish() throws(BtsnoopError) {
        if let failure { throw failure }
        let left = buffer.count - start
        guard datalink != nil else {
            throw BtsnoopError(.truncatedHeader(available: left))
        }
        guard left > 0 else { return }
        var needed = Self.recordHeaderLength
        if left >= Self.recordHeaderLength {
            needed += Int(readUInt32(at: start + 4))
        }
        throw BtsnoopError(
            .truncated(needed: needed, available: left), recordNumber: recordCount + 1,
            byteOffset: discarded + start)
    }

    /// Every record of a whole capture in memory; for tests and small files.
    public static func records(in bytes: [UInt8]) throws(BtsnoopError) -> [BtsnoopRecord] {
        var parser = BtsnoopParser()
        parser.append(contentsOf: bytes)
        var records: [BtsnoopRecord] = []
        while let record = try parser.nextRecord() { records.append(record) }
        try parser.finish()
        return records
    }

    private mutating func readRecord() throws(BtsnoopError) -> BtsnoopRecord? {
        if datalink == nil {
            guard try readHeader() else { return nil }
        }
        guard let datalink else { return nil }
        while buffer.count - start >= Self.recordHeaderLength {
            let number = recordCount + 1
            let offset = discarded + start
            let included = Int(readUInt32(at: start + 4))
            guard included <= Self.maximumIncludedLength else {
                throw BtsnoopError(
                    .recordTooLong(length: included, limit: Self.maximumIncludedLength),
                    recordNumber: number, byteOffset: offset)
            }
            guard buffer.count - start - Self.recordHeaderLength >= included else { return nil }
            let original = Int(readUInt32(at: start))
            let flags = readUInt32(at: start + 8)
            let drops = readUInt32(at: start + 12)
            let rawTime = Int64(bitPattern: UInt64(readUInt32(at: start + 16)) << 32 | UInt64(readUInt32(at: start + 20)))
            let packetStart = start + Self.recordHeaderLength
            var packet = buffer[packetStart..<(packetStart + included)]
            start = packetStart + included
            recordCount = number

            let direction: HCIDirection
            let type: HCIPacketType
            var controller: UInt16 = 0
            switch datalink {
            case .hciUART:
                guard let indicator = packet.first else {
                    throw BtsnoopError(.emptyPacket, recordNumber: number, byteOffset: offset)
                }
                type = HCIPacketType(rawValue: indicator)
                packet = packet.dropFirst()
                direction = flags & 1 == 0 ? .sent : .received
            case .hciUnencapsulated:
                direction = flags & 1 == 0 ? .sent : .received
                if flags & 2 != 0 {
                    type = direction == .sent ? .command : .event
                } else {
                    type = .acl
                }
            case .bluezMonitor:
                controller = UInt16(truncatingIfNeeded: flags >> 16)
                guard let (monitorType, monitorDirection) = Self.monitorPacket(opcode: UInt16(truncatingIfNeeded: flags))
                else { continue }  // notes, index announcements, logging: not HCI traffic
                type = monitorType
                direction = monitorDirection
            }
            let micros = rawTime &- Self.unixEpochOffsetMicroseconds
            return BtsnoopRecord(
                number: number, byteOffset: offset, timestamp: Instant(seconds: Double(micros) / 1_000_000),
                direction: direction, packetType: type, packet: packet, originalLength: original,
                cumulativeDrops: drops, controllerIndex: controller)
        }
        return nil
    }

    /// True once the header is read; false when more bytes are needed.
    private mutating func readHeader() throws(BtsnoopError) -> Bool {
        let available = buffer.count - start
        let magicBytes = min(available, Self.magic.count)
        guard buffer[start..<(start + magicBytes)].elementsEqual(Self.magic.prefix(magicBytes)) else {
            throw BtsnoopError(.badMagic)
        }
        guard available >= Self.headerLength else { return false }
        let version = readUInt32(at: start + 8)
        guard version == 1 else { throw BtsnoopError(.unsupportedVersion(version)) }
        let raw = readUInt32(at: start + 12)
        guard let link = BtsnoopDatalink(rawValue: raw) else { throw BtsnoopError(.unsupportedDatalink(raw)) }
        datalink = link
        start += Self.headerLength
        return true
    }

    /// The BlueZ monitor opcodes that carry HCI packets.
    static func monitorPacket(opcode: UInt16) -> (HCIPacketType, HCIDirection)? {
        switch opcode {
        case 2: return (.command, .sent)
        case 3: return (.event, .received)
        case 4: return (.acl, .sent)
        case 5: return (.acl, .received)
        case 6: return (.sco, .sent)
        case 7: return (.sco, .received)
        case 18: return (.iso, .sent)
        case 19: return (.iso, .received)
        default: return nil
        }
    }

    /// Four big-endian bytes at `index`; callers have checked they are there.
    private func readUInt32(at index: Int) -> UInt32 {
        UInt32(buffer[index]) << 24 | UInt32(buffer[index + 1]) << 16 | UInt32(buffer[index + 2]) << 8
            | UInt32(buffer[index + 3])
    }
}
