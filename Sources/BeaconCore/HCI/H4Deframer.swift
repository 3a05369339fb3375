/// Cuts a byte stream in H4 framing (a UART to a controller, btsnoop datalink 1002) into whole
/// HCI packets. Feed it chunks of any size — a packet may arrive split across many — and take
/// packets out.
///
/// H4 has no sync pattern, so resynchronisation is best effort: a byte that is not one of the five
/// indicators is skipped and counted, and so is an indicator whose header declares a payload
/// longer than `maximumPayloadLength` (a lower limit recovers sooner from line noise). A garbage
/// byte that happens to look like an indicator with a plausible length still swallows the bytes
/// after it; no H4 reader can tell that apart from a real packet.
///
/// Memory is bounded: the buffer never holds more than one maximal packet (`capacity` bytes);
/// `append(contentsOf:)` accepts only what fits, and `feed(_:_:)` loops for you.
public struct H4Deframer: Sendable {
    /// Longest payload accepted for any packet type (events and commands are at most 255 anyway).
    public let maximumPayloadLength: Int
    /// Bytes dropped while looking for a packet start: unknown indicators and implausible headers.
    public private(set) var skippedByteCount: Int = 0
    /// Whole packets taken out so far.
    public private(set) var packetCount: Int = 0

    private var buffer: [UInt8] = []
    private var start: Int = 0

    /// Creates a deframer that skips headers declaring a payload longer than `maximumPayloadLength`.
    ///
    /// - Parameter maximumPayloadLength: the spec's largest is 65,535 (ACL); clamped to 255...65,535.
    public init(maximumPayloadLength: Int = 65_535) {
        self.maximumPayloadLength = min(max(maximumPayloadLength, 255), 65_535)
        buffer.reserveCapacity(min(capacity, 4096))
    }

    /// The most bytes ever buffered: indicator, the longest header, the longest payload.
    public var capacity: Int { 1 + 4 + maximumPayloadLength }

    /// Bytes received and not yet returned as a packet or skipped.
    public var bufferedByteCount: Int { buffer.count - start }

    /// Buffers as many leading bytes of `bytes` as fit and returns how many it took. Take packets
    /// out with `nextPacket()` and offer the rest again.
    @discardableResult
    public mutating func append<C: Collection>(contentsOf bytes: C) -> Int where C.Element == UInt8 {
        if start > 0 && (start >= buffer.count || buffer.count + bytes.count > capacity) {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        let room = capacity - buffer.count
        guard room > 0 else { return 0 }
        let taken = min(room, bytes.count)
        buffer.append(contentsOf: bytes.prefix(taken))
        return taken
    }

    /// The next whole packet, or nil until more bytes arrive.
    public mutating func nextPacket() -> HCIPacket? {
        while start < buffer.count {
            let type = HCIPacketType(rawValue: buffer[start])
            guard let layout = type.headerLayout else {
                skip()
                continue
            }
            let available = buffer.count - start - 1
            guard available >= layout.headerLength else { return nil }
            let lengthIndex = start + 1 + layout.lengthOffset
            var length = UInt16(buffer[lengthIndex])
            if layout.lengthIsWide { length |= UInt16(buffer[lengthIndex + 1]) << 8 }
            let payloadLength = Int(length & layout.lengthMask)
            guard payloadLength <= maximumPayloadLength else {
                skip()
                continue
            }
            let total = layout.headerLength + payloadLength
            guard available >= total else { return nil }
            let bytes = buffer[(start + 1)..<(start + 1 + total)]
            start += 1 + total
            packetCount += 1
            return HCIPacket(type: type, bytes: bytes)
        }
        return nil
    }

    /// Feeds a whole chunk, calling `body` for each packet it completes, in order.
    public mutating func feed<C: Collection>(
        _ chunk: C, _ body: (HCIPacket) throws -> Void
    ) rethrows where C.Element == UInt8 {
        var rest = chunk[...]
        repeat {
            let taken = append(contentsOf: rest)
            rest = rest.dropFirst(taken)
            while let packet = nextPacket() { try body(packet) }
        } while !rest.isEmpty
    }

    /// Forgets buffered bytes (for example after the transport reopened); counters are kept.
    public mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        start = 0
    }

    private mutating func skip() {
        start += 1
        skippedByteCount += 1
    }
}
