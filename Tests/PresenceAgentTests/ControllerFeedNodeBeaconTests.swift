import BeaconCore
@testable import BluetoothHCI
import Testing
import TestSupport
import Timekeeping
@testable import PresenceAgent

/// A controller that refuses to advertise while it scans: the feed says so once, not at every
/// set-up, keeps scanning, and carries the refusal in its radio status for the info and telemetry.
@Suite struct ControllerFeedNodeBeaconTests {
    typealias Watch = ControllerFeedWatchTests

    @Test func aRefusalIsSaidOnceAndScanningGoesOn() throws {
        var behaviour = FakeController.Behaviour()
        behaviour.reportsAfterScanEnable = [Watch.report]
        behaviour.statuses = [HCICommand.leSetExtendedAdvertisingEnable(true).opcode: 0x0C]
        let controller = try FakeController(behaviour: behaviour)
        defer { controller.unplug() }
        let clock = Watch.StillClock()
        let path = controller.pty.devicePath
        let feed = try ControllerFeed(
            open: { () throws(HCITransportError) in try UARTTransport(settings: .init(path: path)) },
            configureController: true, clock: clock,
            advertising: AdvertisingRequest(beacon: NodeBeacon(node: "hall"), interval: 1))
        #expect(try Watch().poll(feed) { $0 > 0 } > 0)
        let refusal = AdvertisingOutcome.refused(ControllerSetupError(command: "HCI_LE_Set_Extended_Advertising_Enable", status: 0x0C))
        #expect(feed.radio?.advertising == refusal)
        let warnings = feed.takeNotices().filter { $0.level == .warning }.map(\.message)
        #expect(warnings == ["the controller refuses to advertise the node beacon while it scans "
            + "(HCI_LE_Set_Extended_Advertising_Enable failed: command disallowed (0x0c)); scanning goes on without it: "
            + "other nodes will not hear this one (nodeBeacon.enabled: false stops asking)"])

        // The controller restarts and is set up again: refused again, not said again.
        controller.inject([0x04, 0x0E, 0x03, 0x01, 0x00, 0x00])
        try Watch().poll(feed, polls: 10)
        clock.seconds += 3
        #expect(try Watch().poll(feed) { $0 > 0 } > 0)
        #expect(controller.commandNames.filter { $0 == "HCI_LE_Set_Extended_Advertising_Enable" }.count == 2)
        #expect(!feed.takeNotices().contains { $0.message.contains("refuses to advertise") })
        #expect(feed.radio?.advertising == refusal)
    }

    @Test func advertisingIsSaidOnceWithItsPower() throws {
        var behaviour = FakeController.Behaviour()
        behaviour.reportsAfterScanEnable = [Watch.report]
        let controller = try FakeController(behaviour: behaviour)
        defer { controller.unplug() }
        let path = controller.pty.devicePath
        let feed = try ControllerFeed(
            open: { () throws(HCITransportError) in try UARTTransport(settings: .init(path: path)) },
            configureController: true, clock: Watch.StillClock(),
            advertising: AdvertisingRequest(beacon: NodeBeacon(node: "hall"), interval: 2))
        #expect(try Watch().poll(feed) { $0 > 0 } > 0)
        #expect(feed.radio?.advertising == .advertising(transmitPower: 4, measuredPower: -37))
        let id = NodeBeacon(node: "hall").id
        #expect(feed.takeNotices().map(\.message).contains(
            "the controller advertises the node beacon \(id) every 2 s (extended), at 4 dBm, measured power -37 dBm"))
        feed.close()
        #expect(controller.commands.suffix(2) == [.leSetExtendedScanEnable(false), .leSetExtendedAdvertisingEnable(false)])
    }
}
