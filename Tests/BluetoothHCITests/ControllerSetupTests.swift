import BeaconCore
import Testing
@testable import BluetoothHCI

@Suite struct ControllerSetupTests {
    /// Answers every command with success; supported-commands lists extended scan when asked.
    private func run(_ setup: inout ControllerSetup, extended: Bool, refuse: [UInt16: UInt8] = [:]) -> ([String], ControllerSetup.Action) {
        let (sent, action) = Self.drive(&setup, extended: extended) { refuse[$0.opcode] ?? 0 }
        return (sent.map(\.name), action)
    }

    /// Drives a setup to its end: each command answered with the status `status` gives it;
    /// supported-commands lists extended scan when `extended`; the commands that answer an
    /// advertising power answer `power` when given.
    static func drive(
        _ setup: inout ControllerSetup, extended: Bool, power: UInt8? = nil, status: (HCICommand) -> UInt8
    ) -> ([HCICommand], ControllerSetup.Action) {
        var sent: [HCICommand] = []
        var action = setup.start()
        while case .send(let command) = action {
            sent.append(command)
            var returned: [UInt8] = []
            if command == .readLocalSupportedCommands {
                returned = [UInt8](repeating: 0, count: 64)
                if extended { returned[37] = 0x60 }
            }
            let status = status(command)
            let answersPower = command == .leReadAdvertisingPhysicalChannelTxPower
                || command.opcode == HCICommand.leSetExtendedAdvertisingParameters(intervalUnits: 0).opcode
            if let power, status == 0, answersPower { returned = [power] }
            guard let next = setup.handle(CommandResponse(kind: .complete, opcode: command.opcode, status: status, returnParameters: returned))
            else { Issue.record("answer to \(command.name) was not taken"); break }
            action = next
        }
        return (sent, action)
    }

    @Test func ownControllerIsResetAndScansExtendedWhenSupported() {
        var setup = ControllerSetup(configureController: true)
        let (sent, end) = run(&setup, extended: true)
        // Right after HCI_Reset no scan runs: nothing to stop, and no legacy command before the
        // extended ones (a controller may refuse extended commands once a legacy one was used).
        #expect(sent == ["HCI_Reset", "HCI_Set_Event_Mask", "HCI_LE_Set_Event_Mask", "HCI_Read_Local_Supported_Commands",
                         "HCI_LE_Set_Extended_Scan_Parameters", "HCI_LE_Set_Extended_Scan_Enable"])
        #expect(end == .scanning(.extended))
    }

    @Test func socketControllerStopsALeftoverScanInTheFamilyItWillUse() {
        var setup = ControllerSetup(configureController: false)
        // Stopping a scan that is not running may be answered with Command Disallowed: ignored.
        let (sent, action) = Self.drive(&setup, extended: true) { $0 == .leSetExtendedScanEnable(false) ? 0x0C : 0 }
        #expect(sent == [.readLocalSupportedCommands, .leSetExtendedScanEnable(false),
                         .leSetExtendedScanParameters(.default), .leSetExtendedScanEnable(true)])
        #expect(!sent.contains { $0.opcode == HCICommand.leSetScanEnable(false).opcode })
        #expect(action == .scanning(.extended))
    }

    @Test func anyErrorFromAnExtendedCommandFallsBackToLegacy() {
        var setup = ControllerSetup(configureController: true)
        let failing = [HCICommand.leSetExtendedScanEnable(true).opcode: UInt8(0x1F)]
        let (sent, end) = run(&setup, extended: true, refuse: failing)
        #expect(sent.suffix(4) == ["HCI_LE_Set_Extended_Scan_Parameters", "HCI_LE_Set_Extended_Scan_Enable",
                                   "HCI_LE_Set_Scan_Parameters", "HCI_LE_Set_Scan_Enable"])
        #expect(end == .scanning(.legacy))
    }

    @Test func aLegacyErrorAfterTheFallbackFailsNamingTheLegacyCommand() {
        var setup = ControllerSetup(configureController: true)
        let failing = [HCICommand.leSetExtendedScanParameters(.default).opcode: UInt8(0x0C),
                       HCICommand.leSetScanParameters(.default).opcode: UInt8(0x12)]
        let (_, end) = run(&setup, extended: true, refuse: failing)
        #expect(end == .failed(ControllerSetupError(command: "HCI_LE_Set_Scan_Parameters", status: 0x12)))
    }

    @Test func socketControllerIsNotResetAndScansLegacyWithoutExtendedSupport() {
        var setup = ControllerSetup(configureController: false)
        let (sent, end) = run(&setup, extended: false)
        #expect(sent == ["HCI_Read_Local_Supported_Commands", "HCI_LE_Set_Scan_Enable",
                         "HCI_LE_Set_Scan_Parameters", "HCI_LE_Set_Scan_Enable"])
        #expect(end == .scanning(.legacy))
    }

    @Test func extendedCommandRefusedFallsBackToLegacy() {
        var setup = ControllerSetup(configureController: false)
        let disallowed = [HCICommand.leSetExtendedScanParameters(.default).opcode: UInt8(0x0C)]
        let (sent, end) = run(&setup, extended: true, refuse: disallowed)
        // On a socket the fallback stops a leftover scan in the legacy family first.
        #expect(sent.suffix(4) == ["HCI_LE_Set_Extended_Scan_Parameters", "HCI_LE_Set_Scan_Enable",
                                   "HCI_LE_Set_Scan_Parameters", "HCI_LE_Set_Scan_Enable"])
        #expect(end == .scanning(.legacy))
    }

    @Test func anErrorStatusFailsNamingTheCommand() {
        var setup = ControllerSetup(configureController: true)
        let (_, end) = run(&setup, extended: false, refuse: [HCICommand.reset.opcode: 0x03])
        #expect(end == .failed(ControllerSetupError(command: "HCI_Reset", status: 0x03)))
        #expect(ControllerSetupError(command: "HCI_Reset", status: 0x03).description == "HCI_Reset failed: hardware failure (0x03)")
    }

    @Test func strayAnswersAndAcceptedStatusesAreIgnored() {
        var setup = ControllerSetup(configureController: true)
        #expect(setup.start() == .send(.reset))
        #expect(setup.handle(CommandResponse(kind: .complete, opcode: 0x1234, status: 0)) == nil)
        #expect(setup.handle(CommandResponse(kind: .status, opcode: HCICommand.reset.opcode, status: 0)) == nil)
        #expect(setup.handle(CommandResponse(kind: .complete, opcode: HCICommand.reset.opcode, status: 0)) == .send(.setEventMask))
    }

    /// Byte layouts checked against the Core spec's parameter tables.
    @Test func commandBytesFollowTheSpec() {
        #expect(HCICommand.reset.h4Packet == [0x01, 0x03, 0x0C, 0x00])
        #expect(HCICommand.leSetScanParameters(.default).h4Packet == [0x01, 0x0B, 0x20, 0x07, 0x01, 0x60, 0x00, 0x60, 0x00, 0x00, 0x00])
        #expect(HCICommand.leSetScanEnable(true).h4Packet == [0x01, 0x0C, 0x20, 0x02, 0x01, 0x00])
        #expect(HCICommand.leSetExtendedScanParameters(.default).h4Packet
            == [0x01, 0x41, 0x20, 0x08, 0x00, 0x00, 0x01, 0x01, 0x60, 0x00, 0x60, 0x00])
        #expect(HCICommand.leSetExtendedScanEnable(true).h4Packet == [0x01, 0x42, 0x20, 0x06, 0x01, 0x00, 0, 0, 0, 0])
        #expect(HCICommand.setEventMask.parameters == [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 0x00, 0x20])
        #expect(HCICommand.leSetEventMask.parameters == [0x1F, 0x10, 0, 0, 0, 0, 0, 0])
        #expect(ControllerSetup.stopCommands(for: .extended) == [.leSetExtendedScanEnable(false)])
    }
}
