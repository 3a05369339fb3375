/// One HCI command: opcode and parameters, and the bytes to send (H4 indicator 0x01 first).
///
/// Only what a passive-presence scanner needs: reset, event masks, supported commands, and the
/// legacy and extended scan commands (Core spec Vol 4 Part E §7.3, §7.4, §7.8).
public struct HCICommand: Hashable, Sendable, CustomStringConvertible {
    public let opcode: UInt16
    public let parameters: [UInt8]
    /// The spec's name, for logs and errors (`HCI_LE_Set_Scan_Enable`).
    public let name: String

    public init(opcode: UInt16, parameters: [UInt8] = [], name: String) {
        self.opcode = opcode
        self.parameters = parameters
        self.name = name
    }

    /// The command as an H4 packet: 0x01, opcode little-endian, parameter length, parameters.
    public var h4Packet: [UInt8] {
        [0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(parameters.count)] + parameters
    }

    public var description: String { name }

    static func opcode(ogf: UInt16, ocf: UInt16) -> UInt16 { ogf << 10 | ocf }

    public static let reset = HCICommand(opcode: opcode(ogf: 0x03, ocf: 0x0003), name: "HCI_Reset")

    /// Controller events on: the default set (bits 0–44) plus LE Meta (bit 61), which carries every
    /// advertising report; a controller after reset may have LE Meta masked off.
    public static let setEventMask = HCICommand(
        opcode: opcode(ogf: 0x03, ocf: 0x0001),
        parameters: littleEndian(UInt64(0x2000_1FFF_FFFF_FFFF), count: 8),
        name: "HCI_Set_Event_Mask"
    )

    public static let readLocalSupportedCommands = HCICommand(
        opcode: opcode(ogf: 0x04, ocf: 0x0002), name: "HCI_Read_Local_Supported_Commands")

    /// LE subevents on: the default five (bits 0–4, advertising report is bit 1) plus extended
    /// advertising report (subevent 0x0D, bit 12).
    public static let leSetEventMask = HCICommand(
        opcode: opcode(ogf: 0x08, ocf: 0x0001),
        parameters: littleEndian(UInt64(0x101F), count: 8),
        name: "HCI_LE_Set_Event_Mask"
    )

    public static func leSetScanParameters(_ scan: ScanParameters) -> HCICommand {
        HCICommand(
            opcode: opcode(ogf: 0x08, ocf: 0x000B),
            parameters: [scan.active ? 0x01 : 0x00]
                + littleEndian(UInt64(scan.intervalUnits), count: 2)
                + littleEndian(UInt64(scan.windowUnits), count: 2)
                + [0x00, 0x00],  // own address public; accept all advertisements
            name: "HCI_LE_Set_Scan_Parameters"
        )
    }

    public static func leSetScanEnable(_ enable: Bool, filterDuplicates: Bool = false) -> HCICommand {
        HCICommand(
            opcode: opcode(ogf: 0x08, ocf: 0x000C),
            parameters: [enable ? 0x01 : 0x00, filterDuplicates ? 0x01 : 0x00],
            name: "HCI_LE_Set_Scan_Enable"
        )
    }

    /// Scans the LE 1M PHY, and LE Coded too when asked (long-range beacons).
    public static func leSetExtendedScanParameters(_ scan: ScanParameters) -> HCICommand {
        let perPHY = [scan.active ? UInt8(0x01) : 0x00]
            + littleEndian(UInt64(scan.intervalUnits), count: 2)
            + littleEndian(UInt64(scan.windowUnits), count: 2)
        let phys: UInt8 = scan.codedPHY ? 0x05 : 0x01
        return HCICommand(
            opcode: opcode(ogf: 0x08, ocf: 0x0041),
            parameters: [0x00, 0x00, phys] + perPHY + (scan.codedPHY ? perPHY : []),
            name: "HCI_LE_Set_Extended_Scan_Parameters"
        )
    }

    public static func leSetExtendedScanEnable(_ enable: Bool, filterDuplicates: Bool = false) -> HCICommand {
        HCICommand(
            opcode: opcode(ogf: 0x08, ocf: 0x0042),
            // Duration 0 and period 0: scan until disabled.
            parameters: [enable ? 0x01 : 0x00, filterDuplicates ? 0x01 : 0x00, 0, 0, 0, 0],
            name: "HCI_LE_Set_Extended_Scan_Enable"
        )
    }

    static func littleEndian(_ value: UInt64, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}

/// How the controller scans. Intervals are in the spec's 0.625 ms units.
public struct ScanParameters: Hashable, Sendable {
    /// Active scanning sends scan requests: many beacons (Govee sensors among them) put the iBeacon
    /// frame in the scan response, so active is the default (docs/Semantics.md).
    public var active: Bool
    /// 0x0010 (10 ms) … the interval and window are equal by default: listen all the time.
    public var intervalUnits: UInt16
    public var windowUnits: UInt16
    public var codedPHY: Bool

    public init(active: Bool = true, intervalUnits: UInt16 = 0x0060, windowUnits: UInt16 = 0x0060, codedPHY: Bool = false) {
        self.active = active
        self.intervalUnits = intervalUnits
        self.windowUnits = min(windowUnits, intervalUnits)
        self.codedPHY = codedPHY
    }

    public static let `default` = ScanParameters()
}
