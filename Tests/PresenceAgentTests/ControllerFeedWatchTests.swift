import BeaconCore
import BluetoothHCI
import Foundation
import Testing
import TestSupport
import Timekeeping
@testable import PresenceAgent

/// A controller that stops scanning while the device stays open: the feed notices from the bytes
/// on the line, says why, sets the controller up again through its reopen path and counts it —
/// a fake controller on a pseudo-terminal, real HCI bytes, an injected clock.
@Suite struct ControllerFeedWatchTests {
    static let report = HexDigits.bytes("043e2702010400ab6fbf38c1a41b1aff4c000215494e54454c4c495f524f434b535f48575072f2ffc2cf")!

    /// Time moves only when the test sets it, and a sleep returns at once: the feed runs on the
    /// test's thread, which is the one that moves the clock.
    final class StillClock: ServiceClock, @unchecked Sendable {
        // @unchecked: read and moved only on the test's thread.
        var seconds = 1_800_000_000.0
        func now() -> Instant { Instant(seconds: seconds) }
        func sleep(until deadline: Instant) {}
        func ticks(every interval: Double) -> AsyncStream<Instant> { AsyncStream { $0.finish() } }
    }

    func makeFeed(_ behaviour: FakeController.Behaviour, clock: StillClock) throws -> (FakeController, ControllerFeed) {
        let controller = try FakeController(behaviour: behaviour)
        let path = controller.pty.devicePath
        let feed = try ControllerFeed(
            open: { () throws(HCITransportError) in try UARTTransport(settings: .init(path: path)) },
            configureController: true, clock: clock)
        return (controller, feed)
    }

    /// Polls until `done` says so of the reports heard so far, or 100 polls; returns the reports heard.
    @discardableResult
    func poll(_ feed: ControllerFeed, polls: Int = 100, until done: (Int) -> Bool = { _ in false }) throws -> Int {
        var heard = 0
        for _ in 0..<polls where !done(heard) { _ = try feed.poll(timeout: 0.05) { _ in heard += 1 } }
        return heard
    }

    @Test func aControllerThatRestartsIsSetUpAgainAndSaysSo() throws {
        var behaviour = FakeController.Behaviour()
        behaviour.reportsAfterScanEnable = [Self.report]
        let clock = StillClock()
        let (controller, feed) = try makeFeed(behaviour, clock: clock)
        defer { controller.unplug() }
        try poll(feed) { $0 > 0 }
        #expect(feed.radio == RadioStatus(state: .scanning, since: Instant(seconds: clock.seconds)))
        _ = feed.takeNotices()

        // The dongle reset itself: the NOP Command Complete a controller sends when it is ready.
        controller.inject([0x04, 0x0E, 0x03, 0x01, 0x00, 0x00])
        try poll(feed, polls: 10)
        #expect(controller.commandNames.filter { $0 == "HCI_Reset" }.count == 1, "nothing before the settle time")
        clock.seconds += 3
        let heard = try poll(feed) { $0 > 0 }
        #expect(controller.commandNames.filter { $0 == "HCI_Reset" }.count == 2)
        #expect(heard > 0)
        let notices = feed.takeNotices()
        #expect(notices.first == RadioNotice(.warning, "the controller stopped scanning: the controller restarted (an HCI_Reset answer the agent did not ask for); setting it up again"))
        #expect(notices.contains(RadioNotice(.info, "the controller is set up again and scans (extended)")))
        #expect(notices.last == RadioNotice(.info, "hearing advertisements again"))
        #expect(feed.radio?.state == .scanning)
        #expect(feed.radio?.reopens == 1)
        #expect(feed.radio?.lastError?.contains("restarted") == true)
    }

    @Test func anotherProgramsDiscoveryIsLeftToRunAndOurScanComesBackAfterIt() throws {
        var behaviour = FakeController.Behaviour()
        behaviour.reportsAfterScanEnable = [Self.report]
        let clock = StillClock()
        let (controller, feed) = try makeFeed(behaviour, clock: clock)
        defer { controller.unplug() }
        try poll(feed) { $0 > 0 }
        let setUps = controller.commandNames.count

        // What the kernel copies to our socket when `bluetoothctl scan on` starts: its commands,
        // each followed by the controller's answer (in the same read, often).
        controller.inject(HCICommand.leSetScanEnable(false).h4Packet + [0x04, 0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00]
            + HCICommand.leSetScanEnable(true, filterDuplicates: true).h4Packet + [0x04, 0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00])
        controller.inject(Self.report)  // its scan's reports reach us too
        #expect(try poll(feed) { $0 > 0 } == 1)
        clock.seconds += 120
        try poll(feed, polls: 20)
        #expect(controller.commandNames.count == setUps, "set up during another program's discovery")
        #expect(feed.radio?.state == .scanning)

        // Its discovery ends: the kernel switches scanning off. Ours comes back by itself.
        controller.inject(HCICommand.leSetScanEnable(false).h4Packet + [0x04, 0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00])
        _ = try feed.poll(timeout: 0.05) { _ in }
        clock.seconds += 3
        let heard = try poll(feed) { $0 > 0 }
        #expect(controller.commandNames.suffix(2) == ["HCI_LE_Set_Extended_Scan_Parameters", "HCI_LE_Set_Extended_Scan_Enable"])
        #expect(heard > 0)
        #expect(feed.radio?.reopens == 1)
        #expect(feed.takeNotices().contains {
            $0.level == .warning && $0.message.contains("another program switched scanning off (the end of its discovery)")
        })
    }

    @Test func reportsThatStopAfterHearingMeanSetUpAgain() throws {
        var behaviour = FakeController.Behaviour()
        behaviour.reportsAfterScanEnable = Array(repeating: Self.report, count: 12)
        let clock = StillClock()
        let (controller, feed) = try makeFeed(behaviour, clock: clock)
        defer { controller.unplug() }
        #expect(try poll(feed) { $0 >= 12 } == 12)
        clock.seconds += 61
        #expect(try poll(feed) { $0 >= 12 } == 12)
        #expect(controller.commandNames.filter { $0 == "HCI_Reset" }.count == 2)
        #expect(feed.takeNotices().contains { $0.message.contains("no advertising reports for 61 s after hearing 12") })
    }

    @Test func aVanishedDeviceIsRetriedAloudWithItsBackoff() throws {
        let clock = StillClock()
        let (controller, feed) = try makeFeed(FakeController.Behaviour(), clock: clock)
        try poll(feed) { _ in feed.state == .scanning(.extended) }
        _ = feed.takeNotices()
        controller.unplug()
        try poll(feed) { _ in feed.radio?.state == .retrying }
        #expect(feed.radio?.state == .retrying)
        #expect(feed.radio?.since == Instant(seconds: clock.seconds))
        let stopped = feed.takeNotices()
        #expect(stopped.count == 1)
        #expect(stopped.first?.message.hasPrefix("the controller stopped scanning: read ") == true)
        #expect(stopped.first?.message.hasSuffix("the device went away; reopening in 1 s") == true)
        // Each failed attempt is said, with the next delay.
        clock.seconds += 1
        _ = try feed.poll(timeout: 0.05) { _ in }
        let retry = feed.takeNotices()
        #expect(retry.count == 1)
        #expect(retry.first?.message.contains("cannot set the controller up (attempt 2)") == true)
        #expect(retry.first?.message.hasSuffix("retrying in 2 s") == true)
    }
}
