import BeaconCore

/// Writes btsnoop captures: the header once, then one record per packet. The bench's synthetic
/// captures and the tests' are written with it; no shipped program writes one.
///
/// Lossy where the datalink is: datalink 1001 cannot mark SCO or ISO (they read back as ACL), and
/// BlueZ monitor has no opcode for a received command or a sent event (such packets are refused).
public struct BtsnoopWriter: Sendable {
    /// The datalink the capture is written in.
    public let datalink: BtsnoopDatalink

    /// Creates a writer for one of the three datalinks.
    public init(datalink: BtsnoopDatalink) {
        self.datalink = datalink
    }

    /// The 16-byte file header.
    public var header: [UInt8] {
        var out = BtsnoopParser.magic
        Self.appendUInt32(1, to: &out)
        Self.appendUInt32(datalink.rawValue, to: &out)
        return out
    }

    /// Appends one record for `packet` to `out`. Returns false (writing nothing) when this
    /// datalink cannot express the packet's type and direction.
    @discardableResult
    public func append(
        _ packet: HCIPacket, direction: HCIDirection, timestamp: Instant, cumulativeDrops: UInt32 = 0,
        controllerIndex: UInt16 = 0, to out: inout [UInt8]
    ) -> Bool {
        let flags: UInt32
        var length = packet.bytes.count
        switch datalink {
        case .hciUART:
            length += 1
            flags = (direction == .received ? 1 : 0) | (packet.type == .command || packet.type == .event ? 2 : 0)
        case .hciUnencapsulated:
            flags = (direction == .received ? 1 : 0) | (packet.type == .command || packet.type == .event ? 2 : 0)
        case .bluezMonitor:
            guard let opcode = Self.monitorOpcode(packet.type, direction) else { return false }
            flags = UInt32(controllerIndex) << 16 | UInt32(opcode)
        }
        Self.appendUInt32(UInt32(truncatingIfNeeded: length), to: &out)
        Self.appendUInt32(UInt32(truncatingIfNeeded: length), to: &out)
        Self.appendUInt32(flags, to: &out)
        Self.appendUInt32(cumulativeDrops, to: &out)
        let seconds = timestamp.seconds.isFinite ? timestamp.seconds : 0
        let micros = Int64(exactly: (seconds * 1_000_000).rounded()) ?? 0
        let raw = UInt64(bitPattern: micros &+ BtsnoopParser.unixEpochOffsetMicroseconds)
        Self.appendUInt32(UInt32(truncatingIfNeeded: raw >> 32), to: &out)
        Self.appendUInt32(UInt32(truncatingIfNeeded: raw), to: &out)
        if datalink == .hciUART { out.append(packet.type.rawValue) }
        out.append(contentsOf: packet.bytes)
        return true
    }

    /// A whole capture: the header and a record per packet (those the datalink can express).
    public func capture(_ records: [BtsnoopRecord]) -> [UInt8] {
        var out = header
        for record in records {
            append(
                record.hciPacket, direction: record.direction, timestamp: record.timestamp,
                cumulativeDrops: record.cumulativeDrops, controllerIndex: record.controllerIndex, to: &out)
        }
        return out
    }

    static func monitorOpcode(_ type: HCIPacketType, _ direction: HCIDirection) -> UInt16? {
        switch (type, direction) {
        case (.command, .sent): return 2
        case (.event, .received): return 3
        case (.acl, .sent): return 4
        case (.acl, .received): return 5
        case (.sco, .sent): return 6
        case (.sco, .received): return 7
        case (.iso, .sent): return 18
        case (.iso, .received): return 19
        default: return nil
        }
    }

    static func appendUInt32(_ value: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: value >> 24))
        out.append(UInt8(truncatingIfNeeded: value >> 16))
        out.append(UInt8(truncatingIfNeeded: value >> 8))
        out.append(UInt8(truncatingIfNeeded: value))
    }
}
