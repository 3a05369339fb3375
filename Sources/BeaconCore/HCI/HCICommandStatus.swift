/// The Command Status event (0x0F): the controller accepted (status 0) or refused a command
/// whose result comes later in another event.
public struct HCICommandStatus: Sendable, Hashable {
    public var status: UInt8
    public var numHCICommandPackets: UInt8
    public var opcode: UInt16

    public init(status: UInt8, numHCICommandPackets: UInt8, opcode: UInt16) {
        self.status = status
        self.numHCICommandPackets = numHCICommandPackets
        self.opcode = opcode
    }
}
