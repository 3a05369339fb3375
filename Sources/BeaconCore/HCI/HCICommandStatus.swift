/// The Command Status event (0x0F): the controller accepted (status 0) or refused a command
/// whose result comes later in another event.
public struct HCICommandStatus: Sendable, Hashable {
    /// The command's status: 0 when the controller started it, else an HCI error code.
    public var status: UInt8
    /// How many more commands the controller will accept now.
    public var numHCICommandPackets: UInt8
    /// The command's opcode (OGF << 10 | OCF).
    public var opcode: UInt16

    /// Creates the event from its fields.
    public init(status: UInt8, numHCICommandPackets: UInt8, opcode: UInt16) {
        self.status = status
        self.numHCICommandPackets = numHCICommandPackets
        self.opcode = opcode
    }
}
