import BeaconCore
import Testing
@testable import PresenceAgent

/// What `presence-agent calibrate` stores and which offset the agent then runs with: a pushed
/// `rssiOffset`, else the operator's `tracking.rssiOffset`, else the stored calibration, else 0.
@Suite struct InstallCalibrationFileTests {
    static let reference = InstallCalibration.Reference(
        beacon: "ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20594-62207", rssi: -65.04, measuredPower: -62,
        powerSource: .advertised, rssiOffset: -3, readings: 60, standardError: 0.12, seconds: 30,
        at: Instant(seconds: 1_796_000_000))

    func resolved(_ yaml: String) throws -> AgentConfiguration.Resolved {
        var configuration = AgentConfiguration()
        configuration.apply(yaml: "node: kitchen-1\nroom: kitchen\n" + yaml, file: "agent.yaml")
        return try configuration.resolve()
    }

    @Test func theStoredFileSaysWhatWasMeasured() {
        let text = String(decoding: InstallCalibrationFile.contents(Self.reference), as: UTF8.self)
        #expect(text == """
            {"rssiOffset":-3,"beacon":"ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20594-62207","rssi":-65,\
            "measuredPower":-62,"measuredPowerFrom":"advertised","readings":60,"standardError":0.12,"seconds":30,\
            "calibratedAt":"2026-11-30T00:53:20.000Z"}

            """)
    }

    @Test func withoutAnOperatorOffsetTheCalibrationIsApplied() throws {
        var resolved = try resolved("")
        let log = InstallCalibrationFile.apply(
            InstallCalibrationFile.contents(Self.reference), to: &resolved.core, operatorOffset: resolved.operatorRSSIOffset)
        #expect(resolved.core.tracking.distance.rssiOffset == -3)
        #expect(log == .log(level: .info, message: "rssiOffset -3 dB from install-calibration.json (presence-agent calibrate with "
                            + "ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20594-62207, 2026-11-30T00:53:20.000Z)"))
    }

    @Test func theOperatorsOffsetWinsAndTheLogSaysSo() throws {
        var resolved = try resolved("tracking:\n  rssiOffset: 2\n")
        let log = InstallCalibrationFile.apply(
            InstallCalibrationFile.contents(Self.reference), to: &resolved.core, operatorOffset: resolved.operatorRSSIOffset)
        #expect(resolved.core.tracking.distance.rssiOffset == 2)
        guard case .log(.info, let message)? = log else {
            Issue.record("no log line")
            return
        }
        #expect(message.hasSuffix("is not used: tracking.rssiOffset 2 is set, and an operator's value wins"))
    }

    /// The node's pushed settings override its own, the stored calibration among them.
    @Test func aPushedOffsetWinsOverTheCalibration() throws {
        var resolved = try resolved("")
        _ = InstallCalibrationFile.apply(InstallCalibrationFile.contents(Self.reference), to: &resolved.core, operatorOffset: nil)
        let pushed = AgentCore(
            settings: resolved.core, persisted: [AgentCore.StateFile.node: Array(#"{"revision":1,"rssiOffset":1.5}"#.utf8)],
            at: Instant(seconds: 0))
        #expect(pushed.effective.tracking.distance.rssiOffset == 1.5)
        let own = AgentCore(settings: resolved.core, at: Instant(seconds: 0))
        #expect(own.effective.tracking.distance.rssiOffset == -3)
    }

    @Test func aDamagedFileIsNamedAndNotApplied() throws {
        var resolved = try resolved("")
        let log = InstallCalibrationFile.apply(Array(#"{"rssiOffset":"-3"}"#.utf8), to: &resolved.core, operatorOffset: nil)
        #expect(resolved.core.tracking.distance.rssiOffset == 0)
        guard case .log(.error, let message)? = log else {
            Issue.record("no error")
            return
        }
        #expect(message.hasPrefix("install-calibration.json cannot be used (rssiOffset: "))
        #expect(InstallCalibrationFile.apply(nil, to: &resolved.core, operatorOffset: nil) == nil)
    }
}
