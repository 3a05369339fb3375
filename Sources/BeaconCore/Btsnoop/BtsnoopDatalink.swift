/// The datalink field of a btsnoop header: how each record's packet is framed.
public enum BtsnoopDatalink: UInt32, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// HCI without indicator; flags bit 0 is the direction (1 received), bit 1 is set for
    /// commands and events and clear for data. SCO and ISO cannot be told from ACL here.
    case hciUnencapsulated = 1001
    /// H4 (UART): the packet's first byte is its indicator. Android's snoop log writes this.
    case hciUART = 1002
    /// BlueZ monitor, as `btmon -w` writes it: flags are (controller index << 16) | opcode.
    case bluezMonitor = 2001

    /// The datalink number, as btsnoop headers and error messages write it.
    public var description: String { String(rawValue) }
}
