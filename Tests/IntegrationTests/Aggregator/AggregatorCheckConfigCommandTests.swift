import BeaconCore
import Foundation
import PresenceAggregator
import RoomDecisions
import TestSupport
import Testing

/// `presence-aggregator check-config` as an operator runs it before deploying: the real binary, a
/// real file, a real environment variable and real flags.
@Suite struct AggregatorCheckConfigCommandTests {
    private func file(_ text: String) throws -> String {
        let path = try TestBroker.makeTemporaryDirectory() + "/aggregator.yaml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func checkConfig(_ arguments: [String], environment: [String] = []) throws -> ToolRunner.Result {
        let binary = try BuildProducts.executable(named: "presence-aggregator")
        return try ToolRunner.run("/usr/bin/env", ["-i"] + environment + [binary, "check-config"] + arguments, separateErrors: true)
    }

    @Test func eachSettingSaysWhereItCameFrom() throws {
        let secret = try file("s3cret-word\n")
        let path = try file("""
            broker: mqtt://10.0.0.2
            username: aggregator
            decision:
              dwell: 4
              margin: 0.5
            homeAssistant: {discovery: no}
            beacons:
              - {beacon: mac-c4a1b2c3d4e5, id: alice-keys}
            """)
        let result = try checkConfig(
            ["--config", path, "--away-after", "40", "--password-file", secret], environment: ["PRESENCE_DWELL=5"])
        #expect(result.status == 0)
        #expect(result.errors == "")
        let rows = CheckConfigTable.rows(result.output)
        #expect(rows["broker"] == ["mqtt://10.0.0.2:1883", "\(path):1"])
        #expect(rows["decision.dwell"] == ["5", "PRESENCE_DWELL"])
        #expect(rows["decision.margin"] == ["0.5", "\(path):5"])
        #expect(rows["decision.awayTimeout"] == ["40", "--away-after"])
        #expect(rows["homeAssistant.discovery"] == ["false", "\(path):6"])
        #expect(rows["password"] == ["(set)", "--password-file"])
        #expect(rows["passwordFile"] == [secret, "--password-file"])
        #expect(rows["beacons"] == ["alice-keys", "\(path):7"])
        #expect(rows["keepAlive"] == ["30", "default"])
        #expect(!result.output.contains("s3cret-word"))
    }

    /// Which known beacons are worn; a file or environment from before the worn profile was removed
    /// is accepted, each of its `decision.worn` settings named in a warning on stderr.
    @Test func wornBeaconsAreShownAndRemovedWornSettingsWarn() throws {
        let path = try file("""
            decision:
              dwell: 2
              worn:
                margin: 3
                riseDwell: 12
            beacons:
              - {beacon: mac-c4a1b2c3d4e5, id: alice-band, worn: true}
              - {beacon: mac-c4a1b2c3d4e6, id: bob-keys}
            """)
        let result = try checkConfig(["--config", path], environment: ["PRESENCE_WORN_FAST_FOR=1.5"])
        #expect(result.status == 0, "\(result.errors)")
        let rows = CheckConfigTable.rows(result.output)
        #expect(rows["beacons"] == ["alice-band (worn), bob-keys", "\(path):6"])
        #expect(rows["decision.dwell"] == ["2", "\(path):2"])
        #expect(!result.output.contains("decision.worn"))
        let warnings = result.errors.split(separator: "\n").map(String.init)
        #expect(warnings.count == 2, "\(result.errors)")
        #expect(warnings.first?.hasPrefix("check-config: warning: \(path):3: decision.worn: removed (margin, riseDwell), ignored: ") == true,
                "\(result.errors)")
        #expect(warnings.last?.hasPrefix("check-config: warning: PRESENCE_WORN_FAST_FOR: removed, ignored: ") == true, "\(result.errors)")
    }

    @Test func everyMistakeIsNamedWithItsLine() throws {
        let path = try file("""
            broker: mqtt://10.0.0.2
            decision:
              dwel: 4
              margin: lots
            beacons:
              - beacon: mac-c4a1b2c3d4e5
                id: Alice
            """)
        let result = try checkConfig(["--config", path])
        #expect(result.status == 2)
        #expect(result.output == "")
        #expect(result.errors == """
            check-config: \(path):3: decision.dwel: unknown key (known keys: decision.margin, decision.fallRate, decision.dwell, decision.evidence, decision.leadCap, decision.settleTime, decision.staleAfter, decision.awayTimeout, decision.pathLossExponent, decision.motionHold, decision.model)
            check-config: \(path):7: beacons[0].id: 'Alice' is not a valid id (1–64 characters of a-z, 0-9, '_' and '-')
            check-config: \(path):4: decision.margin: 'lots' is not a number of dB ≥ 0

            """)
        // `run` refuses the same file with the same mistakes.
        let run = try ToolRunner.run(try BuildProducts.executable(named: "presence-aggregator"), ["run", "--config", path], separateErrors: true)
        #expect(run.status == 2)
        #expect(run.errors == result.errors.replacingOccurrences(of: "check-config: ", with: "run: "))
    }

    @Test func aGatewaysAvailabilityIsShownAndAMistakeNamesItsLine() throws {
        let good = try file("""
            sources:
              gateways:
                - topic: home/TheengsGateway/BTtoMQTT/+
                  rooms: {TheengsGateway: hall}
                  availability: gateways/hall/lwt
                - topic: home/+/BTtoMQTT/+
                  room: office
            """)
        let shown = try checkConfig(["--config", good])
        #expect(shown.status == 0)
        let rows = CheckConfigTable.rows(shown.output)
        #expect(rows["sources.gateways[0].availability"] == ["gateways/hall/lwt", "\(good):5"])
        #expect(rows["sources.gateways[1].availability"] == ["home/+/LWT", "default"])

        let bad = try file("""
            sources:
              gateways:
                - topic: home/+/BTtoMQTT/+
                  room: office
                  availability: home/TheengsGateway/LWT
            """)
        let result = try checkConfig(["--config", bad])
        #expect(result.status == 2)
        #expect(result.errors.hasPrefix("check-config: \(bad):5: sources.gateways[0].availability: 'home/TheengsGateway/LWT' names no gateway"), "\(result.errors)")
    }
    /// The calibration the aggregator keeps in `stateDir` is what it applies from its start: each
    /// node's offset, applied or not and why, sourced from the file; none yet, or a file that
    /// cannot be read (also a warning), is said so.
    @Test func eachNodesKeptOffsetIsShownWithWhetherItIsApplied() throws {
        let state = try TestBroker.makeTemporaryDirectory()
        let kept = state + "/" + NodeCalibrationFile.name
        let none = try checkConfig(["--state-dir", state])
        #expect(none.status == 0 && none.errors == "")
        #expect(CheckConfigTable.rows(none.output)["calibration"]?.last == kept)
        #expect(none.output.contains("(none yet: solved once the nodes have heard each other's beacons for a few minutes)"))

        let calibration = NodeCalibration(
            nodes: ["hall": NodeOffset(offset: 3.96, power: 0.2, standardError: 0.31, pairs: 3, samples: 1800, confident: true),
                    "study": NodeOffset(offset: -2.04, standardError: 1.6, pairs: 1, samples: 600, confident: false,
                                        reason: "1 path(s) heard both ways; 2 needed")],
            basis: .statedPower,
            rejections: [NodeCalibrationRejection(kind: .isolated, subject: "cellar", reason: "no path heard both ways to the rest of the site: its offset cannot be solved")],
            residualScale: 0.4, solvedAt: startTime)
        try NodeCalibrationFile.save(calibration, path: kept)
        let shown = try checkConfig(["--state-dir", state])
        #expect(shown.status == 0 && shown.errors == "", "\(shown.errors)")
        let rows = CheckConfigTable.rows(shown.output)
        #expect(rows["calibration"] == ["solved 2025-11-22T08:00:00.000Z: 1 of 2 node offsets applied, unless a node's own rssiOffset wins (basis statedPower)", kept])
        #expect(rows["calibration.hall"] == ["+4.0 dB applied (±0.3 dB, 3 paths)", kept])
        #expect(rows["calibration.study"] == ["-2.0 dB not applied: 1 path(s) heard both ways; 2 needed", kept])
        #expect(rows["calibration.cellar"] == ["- not solved: no path heard both ways to the rest of the site: its offset cannot be solved", kept])

        try "{not json".write(toFile: kept, atomically: true, encoding: .utf8)
        let unreadable = try checkConfig(["--state-dir", state])
        #expect(unreadable.status == 0)
        #expect(unreadable.errors.hasPrefix("check-config: warning: \(kept): "), "\(unreadable.errors)")
        #expect(unreadable.errors.contains("not shown; an aggregator that cannot read it either solves it again from the adverts"))
        #expect(CheckConfigTable.rows(unreadable.output)["calibration"]?.first?.hasPrefix("(unreadable here: ") == true)
    }
}
