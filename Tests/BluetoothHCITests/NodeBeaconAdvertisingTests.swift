import BeaconCore
import Testing
import TestSupport
@testable import BluetoothHCI

/// The node beacon: the bytes of the advertising commands, the set-up in each command family, a
/// controller that refuses to advertise while it scans, and the H4 path over a pseudo-terminal.
@Suite struct NodeBeaconAdvertisingTests {
    static let beacon = NodeBeacon(node: "kitchen-1")
    static let request = AdvertisingRequest(beacon: beacon, interval: 1)

    @Test func theNodeBeaconIsAnIBeaconNamedFromTheNodeId() {
        let data = Self.beacon.advertisingData(measuredPower: -41)
        #expect(data.count == 30)
        guard case .iBeacon(let decoded)? = BeaconDecoder.decode(advertisingData: data) else {
            Issue.record("not decoded as an iBeacon")
            return
        }
        #expect(decoded.id == Self.beacon.id)
        #expect(decoded.measuredPower == -41)
        #expect(Self.beacon.id.rawValue.hasPrefix("ibeacon-6da7a204-168f-4087-a761-28738dae7c07-"))
        // Stable: FNV-1a of "kitchen-1", and another node another beacon.
        #expect(NodeBeacon(node: "kitchen-1") == Self.beacon)
        #expect(NodeBeacon(node: "kitchen-2") != Self.beacon)
        #expect(NodeBeacon.measuredPower(transmitPower: 4) == -37)
        #expect(NodeBeacon.measuredPower(transmitPower: -127) == -128)
    }

    @Test func legacyCommandBytes() {
        // 1 s is 1,600 units (0x0640), min = max; ADV_NONCONN_IND (0x03); channels 37–39 (0x07).
        #expect(HCICommand.leSetAdvertisingParameters(intervalUnits: 0x0640).h4Packet
            == [0x01, 0x06, 0x20, 0x0F, 0x40, 0x06, 0x40, 0x06, 0x03, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0x07, 0x00])
        #expect(HCICommand.leReadAdvertisingPhysicalChannelTxPower.h4Packet == [0x01, 0x07, 0x20, 0x00])
        let data = HCICommand.leSetAdvertisingData([0x02, 0x01, 0x06])
        #expect(data.h4Packet.prefix(8) == [0x01, 0x08, 0x20, 0x20, 0x03, 0x02, 0x01, 0x06])
        #expect(data.parameters.count == 32)  // length byte and 31 bytes, zero-padded
        #expect(HCICommand.leSetAdvertisingEnable(true).h4Packet == [0x01, 0x0A, 0x20, 0x01, 0x01])
        #expect(HCICommand.leSetAdvertisingEnable(false).h4Packet == [0x01, 0x0A, 0x20, 0x01, 0x00])
    }

    @Test func extendedCommandBytes() {
        // Handle 0x50, legacy non-connectable PDU (0x0010), 24-bit intervals, no power preference (0x7F), LE 1M.
        #expect(HCICommand.leSetExtendedAdvertisingParameters(intervalUnits: 0x0640).h4Packet
            == [0x01, 0x36, 0x20, 0x19, 0x50, 0x10, 0x00, 0x40, 0x06, 0x00, 0x40, 0x06, 0x00, 0x07, 0x00, 0x00,
                0, 0, 0, 0, 0, 0, 0x00, 0x7F, 0x01, 0x00, 0x01, 0x00, 0x00])
        #expect(HCICommand.leSetExtendedAdvertisingData([0xAA, 0xBB]).h4Packet
            == [0x01, 0x37, 0x20, 0x06, 0x50, 0x03, 0x01, 0x02, 0xAA, 0xBB])
        #expect(HCICommand.leSetExtendedAdvertisingEnable(true).h4Packet
            == [0x01, 0x39, 0x20, 0x06, 0x01, 0x01, 0x50, 0x00, 0x00, 0x00])
    }

    @Test func intervalsAreKeptWithinWhatALegacyAdvertMayUse() {
        #expect(AdvertisingRequest(beacon: Self.beacon, interval: 1).intervalUnits == 1600)
        #expect(AdvertisingRequest(beacon: Self.beacon, interval: 0.01).intervalUnits == 0x00A0)
        #expect(AdvertisingRequest(beacon: Self.beacon, interval: 60).intervalUnits == 0x4000)
    }

    private func run(
        _ setup: inout ControllerSetup, extended: Bool, power: UInt8? = nil, refuse: [UInt16: UInt8] = [:]
    ) -> ([HCICommand], ControllerSetup.Action) {
        ControllerSetupTests.drive(&setup, extended: extended, power: power) { refuse[$0.opcode] ?? 0 }
    }

    @Test func legacyScanAdvertisesWithLegacyCommandsAtThePowerTheControllerSays() {
        var setup = ControllerSetup(configureController: true, advertising: Self.request)
        let (sent, end) = run(&setup, extended: false, power: 4)
        #expect(end == .scanning(.legacy))
        #expect(Array(sent.suffix(6)) == [
            .leSetScanParameters(.default), .leSetScanEnable(true),
            .leSetAdvertisingParameters(intervalUnits: 1600), .leReadAdvertisingPhysicalChannelTxPower,
            .leSetAdvertisingData(Self.beacon.advertisingData(measuredPower: -37)), .leSetAdvertisingEnable(true),
        ])
        #expect(setup.advertising == .advertising(transmitPower: 4, measuredPower: -37))
    }

    @Test func extendedScanAdvertisesWithExtendedCommandsOnly() {
        // 0x7F: the controller does not say its power; the advert states the assumed 0 dBm.
        var setup = ControllerSetup(configureController: false, advertising: Self.request)
        let (sent, end) = run(&setup, extended: true, power: 0x7F)
        #expect(end == .scanning(.extended))
        #expect(Array(sent.suffix(4)) == [
            .leSetExtendedAdvertisingEnable(false),  // a node beacon left on by a previous run
            .leSetExtendedAdvertisingParameters(intervalUnits: 1600),
            .leSetExtendedAdvertisingData(Self.beacon.advertisingData(measuredPower: -41)), .leSetExtendedAdvertisingEnable(true),
        ])
        let legacyAdvertising: Set<UInt16> = [0x2006, 0x2007, 0x2008, 0x200A]
        #expect(!sent.contains { legacyAdvertising.contains($0.opcode) })
        #expect(setup.advertising == .advertising(transmitPower: nil, measuredPower: -41))
    }

    @Test func aControllerThatRefusesToAdvertiseWhileScanningKeepsScanning() {
        var setup = ControllerSetup(configureController: true, advertising: Self.request)
        let (sent, end) = run(&setup, extended: false, power: 0, refuse: [HCICommand.leSetAdvertisingEnable(true).opcode: 0x0C])
        #expect(end == .scanning(.legacy))
        #expect(sent.last == .leSetAdvertisingEnable(true))
        guard case .refused(let error)? = setup.advertising else {
            Issue.record("not refused: \(String(describing: setup.advertising))")
            return
        }
        #expect(error.description == "HCI_LE_Set_Advertising_Enable failed: command disallowed (0x0c)")
    }

    @Test func aControllerWithoutThePowerReadStillAdvertises() {
        var setup = ControllerSetup(configureController: true, advertising: Self.request)
        let refuse = [HCICommand.leReadAdvertisingPhysicalChannelTxPower.opcode: UInt8(0x01)]
        let (_, end) = run(&setup, extended: false, refuse: refuse)
        #expect(end == .scanning(.legacy))
        #expect(setup.advertising == .advertising(transmitPower: nil, measuredPower: -41))
    }

    // MARK: - H4 over a pseudo-terminal

    @Test func theSerialPathAdvertisesAndStopsAdvertisingOnTheWayOut() throws {
        let controller = try FakeController(behaviour: FakeController.Behaviour())
        defer { controller.unplug() }
        let session = ControllerSession(transport: try UARTTransport(settings: .init(path: controller.pty.devicePath)))
        let mode = try session.start(ControllerSetup(configureController: true, advertising: Self.request)) { 0 }
        #expect(mode == .extended)
        #expect(controller.commandNames.suffix(3) == ["HCI_LE_Set_Extended_Advertising_Parameters",
                                                      "HCI_LE_Set_Extended_Advertising_Data", "HCI_LE_Set_Extended_Advertising_Enable"])
        // The fake answers 4 dBm: the advert states 4 − 41 = −37 dBm at 1 m.
        let data = controller.commands.first { $0.name == "HCI_LE_Set_Extended_Advertising_Data" }?.parameters ?? []
        #expect(Array(data.dropFirst(4)) == Self.beacon.advertisingData(measuredPower: -37))
        #expect(session.advertising == .advertising(transmitPower: 4, measuredPower: -37))

        var clock = 0.0
        session.stop { clock += 0.1; return clock }
        #expect(controller.commands.suffix(2) == [.leSetExtendedScanEnable(false), .leSetExtendedAdvertisingEnable(false)])
    }

    @Test func overTheSerialPathARefusalLeavesTheScanHearing() throws {
        var behaviour = FakeController.Behaviour()
        behaviour.statuses = [HCICommand.leSetExtendedAdvertisingEnable(true).opcode: 0x0C]
        behaviour.reportsAfterScanEnable = [ControllerSessionTests.iBeaconReport]
        let controller = try FakeController(behaviour: behaviour)
        defer { controller.unplug() }
        let session = ControllerSession(transport: try UARTTransport(settings: .init(path: controller.pty.devicePath)))
        #expect(try session.start(ControllerSetup(configureController: true, advertising: Self.request)) { 0 } == .extended)
        #expect(session.advertising == .refused(ControllerSetupError(command: "HCI_LE_Set_Extended_Advertising_Enable", status: 0x0C)))
        var decoder = AdvertisementDecoder()
        var heard = 0
        for _ in 0..<20 where heard == 0 {
            try session.readEvents(timeout: 1) { decoder.decode(eventPacket: $0, at: Instant(seconds: 0)) { _ in heard += 1 } }
        }
        #expect(heard == 1)
        // Not switched off on the way out: it never went on.
        session.stop { 0 }
        #expect(!controller.commands.contains(.leSetExtendedAdvertisingEnable(false)))
    }
}
