import BeaconCore
import Foundation
import Testing
import TestSupport
@testable import BluetoothHCI

/// The UART path end to end: a real serial-line transport on a pseudo-terminal, a fake controller
/// on the other end, real HCI bytes both ways.
@Suite struct ControllerSessionTests {
    static let iBeaconReport = HexDigits.bytes(
        "043e2702010400ab6fbf38c1a41b1aff4c000215494e54454c4c495f524f434b535f48575072f2ffc2cf")!

    /// A clock that moves a second per reading: command timeouts pass without waiting for them.
    final class SteppingClock: @unchecked Sendable {
        // @unchecked: used from the test's own thread only.
        var seconds = 0.0
        func now() -> Double {
            seconds += 1
            return seconds
        }
    }

    private func readBeacons(_ session: ControllerSession, count: Int) throws -> [String] {
        var decoder = AdvertisementDecoder()
        var ids: [String] = []
        var reads = 0
        while ids.count < count && reads < 200 {
            reads += 1
            try session.readEvents(timeout: 2) { event in
                decoder.decode(eventPacket: event, at: Instant(seconds: 0)) { ids.append($0.beaconID.rawValue) }
            }
        }
        return ids
    }

    /// A raw HCI socket gives one event a read: what the kernel holds is taken in one round of
    /// reads (the agent reads a quiet radio only every 50 ms), the first read waiting, the others
    /// taking only what is ready, up to the round's limit.
    final class OneEventPerRead: HCITransport {
        var queued: [[UInt8]]
        var waits: [Double] = []
        init(_ events: [[UInt8]]) { queued = events.map { [HCIPacketType.event.rawValue] + $0 } }
        func send(_ packet: [UInt8]) throws(HCITransportError) {}
        func receive(timeout: Double) throws(HCITransportError) -> [UInt8] {
            waits.append(timeout)
            return queued.isEmpty ? [] : queued.removeFirst()
        }
        func close() {}
    }

    @Test func aRoundOfReadsTakesEveryEventThatIsReady() throws {
        let transport = OneEventPerRead(Array(repeating: Array(Self.iBeaconReport.dropFirst()), count: 5))
        let session = ControllerSession(transport: transport)
        var delivered = 0
        #expect(try session.readEvents(timeout: 0.2, reads: 3) { _ in delivered += 1 } == 3)
        #expect(transport.waits == [0.2, 0, 0])
        #expect(try session.readEvents(timeout: 0.2, reads: 256) { _ in delivered += 1 } == 2)
        #expect(delivered == 5)
        #expect(transport.waits == [0.2, 0, 0, 0.2, 0, 0])  // the round ends at the first empty read
    }

    @Test func setsUpAnExtendedScannerAndDeliversReports() throws {
        var behaviour = FakeController.Behaviour()
        behaviour.reportsAfterScanEnable = [Self.iBeaconReport, Self.iBeaconReport]
        let controller = try FakeController(behaviour: behaviour)
        defer { controller.unplug() }
        let session = ControllerSession(transport: try UARTTransport(settings: .init(path: controller.pty.devicePath)))
        let clock = ContinuousClock()
        let start = clock.now
        let mode = try session.start(ControllerSetup(configureController: true)) {
            Double((clock.now - start).components.seconds)
        }
        #expect(mode == .extended)
        #expect(controller.commandNames == ["HCI_Reset", "HCI_Set_Event_Mask", "HCI_LE_Set_Event_Mask",
                                            "HCI_Read_Local_Supported_Commands",
                                            "HCI_LE_Set_Extended_Scan_Parameters", "HCI_LE_Set_Extended_Scan_Enable"])
        #expect(controller.commands.last?.parameters == [0x01, 0x00, 0, 0, 0, 0])  // enabled, duplicates not filtered
        let ids = try readBeacons(session, count: 2)
        #expect(ids == Array(repeating: "ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20594-62207", count: 2))

        session.stop { Double((clock.now - start).components.seconds) }
        #expect(controller.commandNames.last == "HCI_LE_Set_Extended_Scan_Enable")
        #expect(controller.commands.last?.parameters.first == 0x00)
    }

    /// A controller that refuses extended commands once a legacy one was used (the spec allows it;
    /// Zephyr's hci_uart does): both paths stay extended, because no legacy command goes first.
    @Test(arguments: [true, false])
    func oneCommandFamilyKeepsAStrictControllerExtended(configureController: Bool) throws {
        var behaviour = FakeController.Behaviour()
        behaviour.legacyLocksOutExtended = true
        behaviour.reportsAfterScanEnable = [Self.iBeaconReport]
        let controller = try FakeController(behaviour: behaviour)
        defer { controller.unplug() }
        let session = ControllerSession(transport: try UARTTransport(settings: .init(path: controller.pty.devicePath)))
        let mode = try session.start(ControllerSetup(configureController: configureController)) { 0 }
        #expect(mode == .extended)
        let legacyOpcodes = [HCICommand.leSetScanParameters(.default).opcode, HCICommand.leSetScanEnable(true).opcode]
        #expect(!controller.commands.contains { legacyOpcodes.contains($0.opcode) }, "\(controller.commandNames)")
        #expect(try readBeacons(session, count: 1).count == 1)
    }

    @Test func fallsBackToLegacyWhenTheControllerRefusesExtendedScan() throws {
        var behaviour = FakeController.Behaviour()
        behaviour.statuses = [HCICommand.leSetExtendedScanParameters(.default).opcode: 0x0C]
        behaviour.reportsAfterScanEnable = [Self.iBeaconReport]
        let controller = try FakeController(behaviour: behaviour)
        defer { controller.unplug() }
        let session = ControllerSession(transport: try UARTTransport(settings: .init(path: controller.pty.devicePath)))
        let mode = try session.start(ControllerSetup(configureController: true)) { 0 }
        #expect(mode == .legacy)
        #expect(controller.commandNames.suffix(2) == ["HCI_LE_Set_Scan_Parameters", "HCI_LE_Set_Scan_Enable"])
        #expect(try readBeacons(session, count: 1).count == 1)
    }

    @Test func anErrorStatusIsReportedByName() throws {
        var behaviour = FakeController.Behaviour()
        behaviour.statuses = [HCICommand.reset.opcode: 0x03]
        let controller = try FakeController(behaviour: behaviour)
        defer { controller.unplug() }
        let session = ControllerSession(transport: try UARTTransport(settings: .init(path: controller.pty.devicePath)))
        #expect(throws: ControllerSessionError.setupFailed(ControllerSetupError(command: "HCI_Reset", status: 0x03))) {
            try session.start(ControllerSetup(configureController: true)) { 0 }
        }
    }

    @Test func aSilentControllerTimesOutOnTheInjectedClock() throws {
        var behaviour = FakeController.Behaviour()
        behaviour.silentOpcodes = [HCICommand.reset.opcode]
        let controller = try FakeController(behaviour: behaviour)
        defer { controller.unplug() }
        let session = ControllerSession(transport: try UARTTransport(settings: .init(path: controller.pty.devicePath)))
        let clock = SteppingClock()
        do {
            _ = try session.start(ControllerSetup(configureController: true), now: clock.now)
            Issue.record("setup finished without an answer")
        } catch {
            #expect(error.description == "HCI_Reset: the controller did not answer within 2 s")
        }
    }

    @Test func lineNoiseIsSkippedAndReportsStillArrive() throws {
        var behaviour = FakeController.Behaviour()
        behaviour.noiseBeforeReports = [0x00, 0xFF, 0x42, 0x99]
        behaviour.reportsAfterScanEnable = [Self.iBeaconReport]
        let controller = try FakeController(behaviour: behaviour)
        defer { controller.unplug() }
        let session = ControllerSession(transport: try UARTTransport(settings: .init(path: controller.pty.devicePath)))
        _ = try session.start(ControllerSetup(configureController: false)) { 0 }
        #expect(try readBeacons(session, count: 1).count == 1)
        #expect(session.skippedByteCount == 4)
    }

    @Test func aVanishedControllerEndsTheReadWithAClearError() throws {
        let controller = try FakeController(behaviour: .init())
        let session = ControllerSession(transport: try UARTTransport(settings: .init(path: controller.pty.devicePath)))
        _ = try session.start(ControllerSetup(configureController: false)) { 0 }
        controller.unplug()
        do {
            for _ in 0..<10 { try session.readEvents(timeout: 2) { _ in } }
            Issue.record("reads went on after the device vanished")
        } catch {
            #expect(error.code == .deviceVanished)
        }
    }
}
