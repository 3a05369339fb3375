import Testing
@testable import BluetoothHCI

/// When a scanner must be set up again, from what the socket shows, on an injected clock.
@Suite struct ScanWatchTests {
    static let nopComplete: [UInt8] = [0x0E, 0x03, 0x01, 0x00, 0x00]
    static let resetComplete: [UInt8] = [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
    static let scanEnableComplete: [UInt8] = [0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00]

    @Test func anotherProgramsDiscoveryIsLeftAloneAndOurScanReturnsAfterIt() {
        var watch = ScanWatch(startedAt: 0)
        // `bluetoothctl scan on`: the kernel stops the scan, sets its parameters, enables it.
        watch.foreignCommand(.leSetScanEnable(false), at: 10)
        watch.foreignCommand(.leSetScanParameters(.default), at: 10.1)
        watch.foreignCommand(.leSetScanEnable(true, filterDuplicates: true), at: 10.2)
        watch.event(Self.scanEnableComplete[...], at: 10.2)
        // While it runs, its reports reach us too: setting ours up would stop its discovery.
        #expect(watch.due(at: 11) == nil)
        #expect(watch.due(at: 300) == nil)
        // Its end switches scanning off: ours is set up again once its commands settle.
        watch.foreignCommand(.leSetScanEnable(false), at: 310)
        watch.event(Self.scanEnableComplete[...], at: 310)
        #expect(watch.due(at: 311) == nil)
        #expect(watch.due(at: 312) == .scanSwitchedOffByAnotherProgram)
    }

    @Test func aResetSeenOnTheSocketOrAnUnaskedNOPMeansSetUpAgain() {
        var socket = ScanWatch(startedAt: 0)
        socket.foreignCommand(.reset, at: 5)
        socket.event(Self.resetComplete[...], at: 5.1)
        #expect(socket.due(at: 6) == nil)
        #expect(socket.due(at: 7.1) == .resetByAnotherProgram)

        var serial = ScanWatch(startedAt: 0)
        serial.event(Self.nopComplete[...], at: 5)
        #expect(serial.due(at: 7) == .controllerRestarted)

        var hardware = ScanWatch(startedAt: 0)
        hardware.event([0x10, 0x01, 0x2A][...], at: 1)
        #expect(hardware.due(at: 3)?.description == "the controller reported a hardware error (code 0x2a)")
    }

    @Test func aScanEnableAnswerWithoutItsCommandCountsToo() {
        // A transport that does not show other programs' commands: the answer alone is the sign.
        var watch = ScanWatch(startedAt: 100)
        watch.event(Self.scanEnableComplete[...], at: 120)
        #expect(watch.due(at: 122) == .scanChangedByAnotherProgram)
    }

    @Test func silenceCountsOnlyAfterHearing() {
        var watch = ScanWatch(startedAt: 0)
        #expect(watch.due(at: 1_000) == nil)  // nothing around: not a fault
        watch.heard(5, at: 10)
        watch.heard(5, at: 20)
        #expect(watch.due(at: 79) == nil)
        #expect(watch.due(at: 80) == .quiet(seconds: 60, heard: 10))
        #expect(ScanWatch.Cause.quiet(seconds: 60, heard: 10).description == "no advertising reports for 60 s after hearing 10 (a controller gone deaf, or nothing left to hear)")
    }
}
