import BeaconCore
import Foundation
import Testing
import TestSupport
@testable import PresenceAgent

/// The aggregator's calibration pushed to a node (`<root>/nodes/<node>/calibration`), on the
/// horizon capture's real advertisements.
@Suite struct AgentCalibrationTests {
    let settings = AgentCore.Settings(node: TopicLevelID("test")!, room: TopicLevelID("lab")!)
    let start = Instant(seconds: 1_612_150_079)
    let calibrationTopic = "presence/nodes/test/calibration"
    let region = Array(#"{"revision":1,"regions":[{"id":"office","uuid":"\#(AgentCoreTests.uuid)"}]}"#.utf8)

    func message(_ json: String) -> [UInt8] { Array(json.utf8) }

    /// The first measured distance of the capture's beacon.
    func firstDistance(_ core: inout AgentCore) throws -> Double {
        _ = core.receiveConfiguration(topic: "presence/config/regions", payload: region, at: start)
        let published = try AgentCoreTests().replay(&core)
        let first = try #require(published.first { $0.topic == "presence/beacons/\(AgentCoreTests.beacon)/test" }?.text)
        let reader = try #require(JSONFieldReader(lenient: Array(first.utf8)))
        return try #require(reader.lenientNumber("distance"))
    }

    @Test("a pushed offset calibrates the node's own distances, is kept for a restart, and is no answer on config/status")
    func pushedOffsetApplies() throws {
        var plain = AgentCore(settings: settings, at: start)
        let uncalibrated = try firstDistance(&plain)
        var core = AgentCore(settings: settings, at: start)
        #expect(core.rssiOffsetSource == .none)
        let payload = message(#"{"rssiOffset":6,"standardError":0.4,"solvedAt":"2026-12-08T01:00:00.000Z"}"#)
        let actions = core.receiveConfiguration(topic: calibrationTopic, payload: payload, at: start)
        #expect(actions.contains(.persist(file: AgentCore.StateFile.calibration, contents: payload)))
        #expect(!actions.contains { if case .publish = $0 { true } else { false } })
        #expect(core.rssiOffsetSource == .calibration && core.effective.tracking.distance.rssiOffset == 6)
        // 6 dB more measured power: the same readings, 10^(6 / 10n) times the distance.
        let calibrated = try firstDistance(&core)
        let n = settings.tracking.distance.pathLossExponent
        // Both published to the centimetre: the product's rounding is the tolerance.
        #expect(abs(calibrated - uncalibrated * pow(10, 6 / (10 * n))) <= 0.02, "\(calibrated) \(uncalibrated)")
        // Restarted without its broker: the saved calibration is in force.
        let restarted = AgentCore(settings: settings, persisted: [AgentCore.StateFile.calibration: payload], at: start)
        #expect(restarted.rssiOffsetSource == .calibration && restarted.effective.tracking.distance.rssiOffset == 6)
        // Cleared: back to the default.
        _ = core.receiveConfiguration(topic: calibrationTopic, payload: [], at: start)
        #expect(core.rssiOffsetSource == .none && core.effective.tracking.distance.rssiOffset == 0)
    }

    @Test("the operator's rssiOffset wins, from the node config or the agent's file; the pushed one applies once the operator's is gone")
    func operatorWins() {
        var core = AgentCore(settings: settings, at: start)
        _ = core.receiveConfiguration(topic: "presence/nodes/test/config", payload: message(#"{"revision":3,"rssiOffset":-2}"#), at: start)
        _ = core.receiveConfiguration(topic: calibrationTopic, payload: message(#"{"rssiOffset":6}"#), at: start)
        #expect(core.rssiOffsetSource == .operator && core.effective.tracking.distance.rssiOffset == -2)
        _ = core.receiveConfiguration(topic: "presence/nodes/test/config", payload: message(#"{"revision":4,"room":"hall"}"#), at: start)
        #expect(core.rssiOffsetSource == .calibration && core.effective.tracking.distance.rssiOffset == 6)

        var own = settings
        own.tracking.distance.rssiOffset = 1.5
        own.operatorSetRSSIOffset = true
        var fromFile = AgentCore(settings: own, at: start)
        _ = fromFile.receiveConfiguration(topic: calibrationTopic, payload: message(#"{"rssiOffset":6}"#), at: start)
        #expect(fromFile.rssiOffsetSource == .operator && fromFile.effective.tracking.distance.rssiOffset == 1.5)
    }

    @Test("an unreadable calibration is logged naming the field and changes nothing")
    func badCalibrationChangesNothing() {
        var core = AgentCore(settings: settings, at: start)
        _ = core.receiveConfiguration(topic: calibrationTopic, payload: message(#"{"rssiOffset":2}"#), at: start)
        let actions = core.receiveConfiguration(topic: calibrationTopic, payload: message(#"{"rssiOffset":45}"#), at: start)
        #expect(actions.count == 1)
        guard case .log(.warning, let text)? = actions.first else { Issue.record("no warning: \(actions)"); return }
        #expect(text.contains("rssiOffset") && text.contains("45"))
        #expect(core.effective.tracking.distance.rssiOffset == 2)
        #expect(core.configurationTopics.contains(calibrationTopic))
    }

    @Test("the info says which offset the node measures with and whose it is")
    func infoSaysWhose() {
        let info = AgentInfo.json(node: TopicLevelID("test")!, room: TopicLevelID("lab")!, version: "1", source: "hci0", startedAt: start,
                                  configRevisionJSON: "{}", nodeBeacon: nil, advertising: nil, rssiOffset: (6, .calibration))
        #expect(info.hasSuffix(#""configRevision":{},"rssiOffset":6.00,"rssiOffsetSource":"calibration"}"#)
            || info.hasSuffix(#""configRevision":{},"rssiOffset":6,"rssiOffsetSource":"calibration"}"#))
    }
}
