/// A decoded HCI event (Core Vol 4 Part E 7.7), from the bytes after the H4 indicator:
/// event code u8, parameter length u8, parameters.
public enum HCIEvent: Sendable, Hashable {
    /// Command Complete (0x0E): the controller finished a command.
    case commandComplete(HCICommandComplete)
    /// Command Status (0x0F): the controller started a command, or refused it.
    case commandStatus(HCICommandStatus)
    /// LE Advertising Report (subevent 0x02) or LE Extended Advertising Report (0x0D).
    case advertisingReports([AdvertisingReport])
    /// Any other LE Meta subevent, undecoded.
    case leMeta(subevent: UInt8, parameters: ArraySlice<UInt8>)
    /// Vendor specific (0xFF): meaningful only to the vendor's tools, so left alone.
    case vendorSpecific(parameters: ArraySlice<UInt8>)
    /// Any other event, undecoded.
    case other(code: UInt8, parameters: ArraySlice<UInt8>)

    /// The event code of Command Complete.
    public static let commandCompleteCode: UInt8 = 0x0E
    /// The event code of Command Status.
    public static let commandStatusCode: UInt8 = 0x0F
    /// The event code of LE Meta, which carries every LE subevent.
    public static let leMetaCode: UInt8 = 0x3E
    /// The event code of vendor specific events.
    public static let vendorSpecificCode: UInt8 = 0xFF
    /// The LE Meta subevent of LE Advertising Report.
    public static let leAdvertisingReportSubevent: UInt8 = 0x02
    /// The LE Meta subevent of LE Extended Advertising Report.
    public static let leExtendedAdvertisingReportSubevent: UInt8 = 0x0D

    /// Decodes one event packet. The parameter length must match the bytes given exactly.
    public init(decoding packet: ArraySlice<UInt8>) throws(HCIEventError) {
        let parameters = try HCIEvent.parameters(of: packet)
        let code = packet[packet.startIndex]
        var reader = ByteReader(parameters)
        switch code {
        case HCIEvent.commandCompleteCode:
            guard let credits = reader.readUInt8(), let opcode = reader.readUInt16LE() else {
                throw .truncated("command_complete", field: "header", at: 2, needs: 3, left: parameters.count)
            }
            self = .commandComplete(
                HCICommandComplete(numHCICommandPackets: credits, opcode: opcode, returnParameters: reader.readRest()))
        case HCIEvent.commandStatusCode:
            guard let status = reader.readUInt8(), let credits = reader.readUInt8(),
                let opcode = reader.readUInt16LE()
            else {
                throw .truncated("command_status", field: "parameters", at: 2, needs: 4, left: parameters.count)
            }
            guard reader.isAtEnd else {
                throw HCIEventError(
                    context: "command_status", offset: 6, reason: "\(reader.remaining) bytes left over")
            }
            self = .commandStatus(HCICommandStatus(status: status, numHCICommandPackets: credits, opcode: opcode))
        case HCIEvent.leMetaCode:
            guard let subevent = reader.readUInt8() else {
                throw .truncated("le_meta", field: "subevent", at: 2, needs: 1, left: 0)
            }
            if subevent == HCIEvent.leAdvertisingReportSubevent
                || subevent == HCIEvent.leExtendedAdvertisingReportSubevent
            {
                var reports: [AdvertisingReport] = []
                try HCIEvent.forEachAdvertisingReport(inEvent: packet) { reports.append($0) }
                self = .advertisingReports(reports)
            } else {
                self = .leMeta(subevent: subevent, parameters: reader.readRest())
            }
        case HCIEvent.vendorSpecificCode:
            self = .vendorSpecific(parameters: parameters)
        default:
            self = .other(code: code, parameters: parameters)
        }
    }

    /// Decodes one event packet.
    public init(decoding packet: [UInt8]) throws(HCIEventError) {
        try self.init(decoding: packet[...])
    }

    /// The parameters of an event packet, after checking the length byte against the bytes.
    static func parameters(of packet: ArraySlice<UInt8>) throws(HCIEventError) -> ArraySlice<UInt8> {
        try checkParameterLength(of: packet)
        return packet.dropFirst(2)
    }

    /// Throws unless the packet has a header and its length byte matches the bytes after it.
    @inline(__always)
    static func checkParameterLength(of packet: ArraySlice<UInt8>) throws(HCIEventError) {
        guard packet.count >= 2 else {
            throw .truncated("event", field: "header", at: 0, needs: 2, left: packet.count)
        }
        let declared = Int(packet[packet.startIndex + 1])
        guard packet.count - 2 == declared else {
            throw HCIEventError(
                context: "event 0x" + HexDigits.string([packet[packet.startIndex]]), offset: 1,
                reason: "parameter length \(declared) but \(packet.count - 2) bytes follow")
        }
    }
}
