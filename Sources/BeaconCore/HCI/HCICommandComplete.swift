/// The Command Complete event (0x0E): the controller finished a command.
public struct HCICommandComplete: Sendable, Hashable {
    /// How many more commands the controller will accept now.
    public var numHCICommandPackets: UInt8
    /// The command's opcode (OGF << 10 | OCF); 0 for a bare credit update.
    public var opcode: UInt16
    /// The first return parameter, which is the status for almost every command; nil when none.
    public var status: UInt8? { returnParameters.first }
    /// All return parameters, status included.
    public var returnParameters: ArraySlice<UInt8>

    /// Creates the event from its fields.
    public init(numHCICommandPackets: UInt8, opcode: UInt16, returnParameters: ArraySlice<UInt8>) {
        self.numHCICommandPackets = numHCICommandPackets
        self.opcode = opcode
        self.returnParameters = returnParameters
    }
}
