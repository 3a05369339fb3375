/// The kind of an HCI packet: the H4 indicator byte (UART transport, btsnoop datalink 1002).
///
/// A struct rather than an enum so a capture's unknown indicator survives as a value instead of
/// failing the whole record.
public struct HCIPacketType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The H4 indicator byte.
    public let rawValue: UInt8

    /// Wraps any indicator byte, defined or not.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Host to controller: opcode u16, length u8.
    public static let command = HCIPacketType(rawValue: 0x01)
    /// Asynchronous data: handle+flags u16, length u16.
    public static let acl = HCIPacketType(rawValue: 0x02)
    /// Synchronous (voice) data: handle+flags u16, length u8.
    public static let sco = HCIPacketType(rawValue: 0x03)
    /// Controller to host: code u8, length u8.
    public static let event = HCIPacketType(rawValue: 0x04)
    /// Isochronous data: handle+flags u16, length u16 of which the low 14 bits count.
    public static let iso = HCIPacketType(rawValue: 0x05)

    /// True for the five indicators the Core specification defines.
    public var isKnown: Bool { (0x01...0x05).contains(rawValue) }

    /// `command`, `acl`, `sco`, `event`, `iso`, or `unknown(0x..)` for another indicator.
    public var description: String {
        switch rawValue {
        case 0x01: return "command"
        case 0x02: return "acl"
        case 0x03: return "sco"
        case 0x04: return "event"
        case 0x05: return "iso"
        default: return "unknown(0x\(HexDigits.string([rawValue])))"
        }
    }

    /// Header length and where the payload length sits, per type; nil for unknown indicators.
    var headerLayout: (headerLength: Int, lengthOffset: Int, lengthIsWide: Bool, lengthMask: UInt16)? {
        switch rawValue {
        case 0x01: return (3, 2, false, 0xFF)
        case 0x02: return (4, 2, true, 0xFFFF)
        case 0x03: return (3, 2, false, 0xFF)
        case 0x04: return (2, 1, false, 0xFF)
        case 0x05: return (4, 2, true, 0x3FFF)
        default: return nil
        }
    }
}

/// Which way a packet crossed the host–controller interface.
public enum HCIDirection: Sendable, Hashable {
    /// Host to controller (commands, outgoing data).
    case sent
    /// Controller to host (events, incoming data).
    case received
}

/// One whole HCI packet without its H4 indicator: header and payload, as the type defines them.
public struct HCIPacket: Sendable, Hashable {
    /// The packet type, from the H4 indicator or the capture's flags.
    public var type: HCIPacketType
    /// Header and payload (for an event: code, length, parameters). Shares storage where it can.
    public var bytes: ArraySlice<UInt8>

    /// Creates a packet from its type and its bytes after the indicator.
    public init(type: HCIPacketType, bytes: ArraySlice<UInt8>) {
        self.type = type
        self.bytes = bytes
    }
}
