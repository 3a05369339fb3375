import ConfigFile
import Foundation
import Testing
import TestSupport
@testable import PresenceAgent

@Suite struct AgentConfigurationTests {
    @Test func theShippedExampleIsValid() throws {
        let path = RecordedData.packageRoot().appendingPathComponent("etc/presence-agent.yaml").path
        var configuration = AgentConfiguration()
        configuration.apply(yaml: try String(contentsOfFile: path, encoding: .utf8), file: path)
        let resolved = try configuration.resolve { _ in "s3cret\n" }
        #expect(resolved.core.node.rawValue == "kitchen-1")
        #expect(resolved.core.room.rawValue == "kitchen")
        #expect(resolved.source == .hciSocket(deviceID: 0))
        #expect(resolved.credentials?.username == "kitchen-1")
        #expect(resolved.credentials?.password == "s3cret")
        #expect(resolved.core.monitor.exitDelay == 30)
        #expect(resolved.clientID == "presence-agent-kitchen-1")
        #expect(resolved.core.maximumTracks == 10_000)
    }

    @Test func theTrackedBeaconCapIsAKeyAndAFlag() throws {
        var configuration = AgentConfiguration()
        configuration.apply(yaml: "node: a\nroom: b\nmaxTrackedBeacons: 2500\n", file: "a.yaml")
        #expect(try configuration.resolve().core.maximumTracks == 2_500)
        configuration.maxTrackedBeacons = 40  // what --max-tracked-beacons does
        #expect(try configuration.resolve().core.maximumTracks == 40)
    }

    @Test func fileThenEnvironmentThenFlags() throws {
        var configuration = AgentConfiguration()
        configuration.apply(yaml: "node: from-file\nroom: file-room\nbroker:\n  url: mqtt://file:1883\n", file: "a.yaml")
        configuration.apply(environment: ["PRESENCE_BROKER": "mqtt://env:1884", "PRESENCE_ROOM": "env-room"])
        configuration.room = "flag-room"  // what a flag does
        let resolved = try configuration.resolve()
        #expect(resolved.core.node.rawValue == "from-file")
        #expect(resolved.core.room.rawValue == "flag-room")
        #expect(resolved.broker.host == "env" && resolved.broker.port == 1884)
    }

    /// Each setting remembers where its value came from, for `check-config`.
    @Test func whereEachValueCameFrom() throws {
        var configuration = AgentConfiguration()
        configuration.apply(yaml: "node: a\nroom: b\ntracking:\n  heartbeat: 45\n", file: "a.yaml")
        configuration.apply(environment: ["PRESENCE_ROOM": "hall"])
        configuration.set(\.source, to: "simulate", key: "source", flag: "--source")
        let settings = Dictionary(uniqueKeysWithValues: configuration.effectiveSettings.map { ($0.key, $0) })
        #expect(settings["node"]?.source == .file(path: "a.yaml", line: 1))
        #expect(settings["room"]?.value == "hall" && settings["room"]?.source == .environment("PRESENCE_ROOM"))
        #expect(settings["source"]?.source == .flag("--source"))
        #expect(settings["tracking.heartbeat"]?.value == "45" && settings["tracking.heartbeat"]?.source == .file(path: "a.yaml", line: 4))
        #expect(settings["telemetryInterval"]?.source == .defaultValue)
    }

    /// Each row of the table states the default `check-config` shows when nothing sets the setting.
    @Test func theTableStatesTheDefaults() {
        let shown = AgentConfiguration().effectiveSettings
        #expect(shown.map(\.key) == AgentConfiguration.settings.map(\.name) + ["beacons"])
        #expect(shown.dropLast().map(\.value) == AgentConfiguration.settings.map(\.defaultValue))
        #expect(shown.allSatisfy { $0.source == .defaultValue })
    }

    /// A flag is named as the table names it, and the variables are the table's.
    @Test func flagsAndVariablesComeFromTheTable() {
        var configuration = AgentConfiguration()
        configuration.set(\.configurationWait, to: 3, flagOf: "waitForConfig")
        configuration.set(\.broker, to: "mqtt://flag", flagOf: "broker.url")
        configuration.apply(environment: ["PRESENCE_STATE_DIR": "/tmp/state", "PRESENCE_NODE": ""])
        let settings = Dictionary(uniqueKeysWithValues: configuration.effectiveSettings.map { ($0.key, $0) })
        #expect(settings["waitForConfig"]?.value == "3" && settings["waitForConfig"]?.source == .flag("--wait-for-config"))
        #expect(settings["broker.url"]?.source == .flag("--broker"))
        #expect(settings["stateDir"]?.value == "/tmp/state" && settings["stateDir"]?.source == .environment("PRESENCE_STATE_DIR"))
        // An empty variable is a value, which resolve names.
        #expect(settings["node"]?.value == "" && settings["node"]?.source == .environment("PRESENCE_NODE"))
    }

    /// Several mistakes of one file: its shape in the file's order, then values in the table's
    /// order, then the checks of `resolve` (the aggregator's order too).
    @Test func severalMistakesInOrder() {
        var configuration = AgentConfiguration()
        configuration.apply(yaml: "speed: fast\nnode: Kitchen\nroom: b\ntracking:\n  heartbeet: 1\nstateDir: [a]\n", file: "agent.yaml")
        do {
            _ = try configuration.resolve()
            Issue.record("accepted")
        } catch {
            #expect(error.errors.map(\.description) == [
                "agent.yaml:5: tracking.heartbeet: unknown key (known keys: heartbeat, measuredPower, pathLossExponent, rssiOffset, rssiStep)",
                "agent.yaml:6: stateDir: expected text, not a list or mapping",
                "agent.yaml:1: speed: expected a number, got 'fast'",
                "agent.yaml:2: node: 'Kitchen' must be 1–64 characters of a-z, 0-9, '_' and '-'",
            ])
        }
    }

    @Test func everyErrorNamesItsField() {
        func error(_ yaml: String) -> String {
            var configuration = AgentConfiguration()
            do {
                configuration.apply(yaml: yaml, file: "agent.yaml")
                _ = try configuration.resolve()
                return "no error"
            } catch {
                return error.description
            }
        }
        #expect(error("node: Kitchen\nroom: k") == "agent.yaml:1: node: 'Kitchen' must be 1–64 characters of a-z, 0-9, '_' and '-'")
        #expect(error("node: a\nroom: k/x") == "agent.yaml:2: room: 'k/x' must be 1–64 characters of a-z, 0-9, '_' and '-'")
        #expect(error("node: a\nroom: b\nroot: a/+") == "agent.yaml:3: root: 'a/+' must be one or more '/'-separated levels of 1–64 characters of a-z, 0-9, '_' and '-'")
        #expect(error("node: a\nroom: b\nsource: hci") == "agent.yaml:3: source: 'hci': an adapter is hci0, hci1, … or hci:N")
        #expect(error("node: a\nroom: b\nspeed: fast") == "agent.yaml:3: speed: expected a number, got 'fast'")
        #expect(error("node: a\nroom: b\ntracking:\n  heartbeat: 0") == "agent.yaml:4: tracking.heartbeat: 0.0 is not in 1…3600 seconds")
        #expect(error("node: a\nroom: b\nbroker:\n  url: mqtts://x") == "broker.caFile: required for mqtts://")
        #expect(error("node: a\nroom: b\nbroker:\n  password: x") == "broker.username: required when a password is given")
        #expect(error("node: a\nroom: b\nregions: 5") == "agent.yaml:3: regions: expected a mapping")
        #expect(error("node: a\nroom: b\nmaxTrackedBeacons: 0") == "agent.yaml:3: maxTrackedBeacons: 0 is not in 1…1000000")
        #expect(error("node: a\nroom: b\nmaxTrackedBeacons: 2.5") == "agent.yaml:3: maxTrackedBeacons: 2.5 is not a whole number")
        #expect(error("[1, 2]") == "agent.yaml:1: expected a mapping of settings at the top level\nnode: required: this receiver's id, e.g. kitchen-1\nroom: required: the room this node serves, e.g. kitchen")
        #expect(error("node: a\n  room: : b") .hasPrefix("agent.yaml:2: not valid YAML"))
        #expect(error("node: a\nroom: b\nnodes: c") == "agent.yaml:3: nodes: unknown key (known keys: beacons, broker, maxTrackedBeacons, node, nodeBeacon, regions, reportUnknown, room, root, source, speed, stateDir, telemetryInterval, tracking)")
    }
}
