/// One HCI packet from a btsnoop capture, in the same form whatever the file's datalink.
public struct BtsnoopRecord: Sendable, Hashable {
    /// Position of the record in the file, counting from 1 like Wireshark's frame numbers. BlueZ
    /// monitor records that carry no HCI packet (notes, index changes) are skipped but counted.
    public var number: Int
    /// Offset of the record's 24-byte header from the start of the file.
    public var byteOffset: Int
    /// When the packet was captured, in Unix seconds (microsecond resolution).
    public var timestamp: Instant
    /// Whether the host sent the packet or received it.
    public var direction: HCIDirection
    /// The HCI packet type: command, event, ACL, SCO or ISO.
    public var packetType: HCIPacketType
    /// The packet without its H4 indicator (for an event: code, length, parameters).
    public var packet: ArraySlice<UInt8>
    /// The packet's length on the wire as the file states it (may exceed what was captured).
    public var originalLength: Int
    /// Packets the capturing tool says it lost before this one, since capture started.
    public var cumulativeDrops: UInt32
    /// The controller (hciN) for BlueZ monitor captures; 0 for other datalinks.
    public var controllerIndex: UInt16

    /// Creates a record; the writer and the tests make them, the parser hands them out.
    public init(
        number: Int, byteOffset: Int, timestamp: Instant, direction: HCIDirection, packetType: HCIPacketType,
        packet: ArraySlice<UInt8>, originalLength: Int, cumulativeDrops: UInt32 = 0, controllerIndex: UInt16 = 0
    ) {
        self.number = number
        self.byteOffset = byteOffset
        self.timestamp = timestamp
        self.direction = direction
        self.packetType = packetType
        self.packet = packet
        self.originalLength = originalLength
        self.cumulativeDrops = cumulativeDrops
        self.controllerIndex = controllerIndex
    }

    /// The packet with its type.
    public var hciPacket: HCIPacket { HCIPacket(type: packetType, bytes: packet) }
}
