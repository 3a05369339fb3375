import MQTTClient
import BeaconCore
import Foundation
import PresenceAggregator
import RoomDecisions
import TestSupport
import Testing

@Suite struct AggregatorConfigurationTests {
    /// A temporary file with `text`; removed by the caller's `defer`.
    private func file(_ text: String) throws -> String {
        let path = try TestBroker.makeTemporaryDirectory() + "/aggregator.yaml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func error(
        file text: String? = nil, environment: [String: String] = [:], flags: [AggregatorSetting: String] = [:]
    ) throws -> String {
        let path = try text.map(file)
        do {
            _ = try AggregatorConfiguration.load(file: path, environment: environment, flags: flags)
            return "no error"
        } catch {
            // The `FILE:LINE: ` before each mistake from the file is checked in `fileMistakesNameTheirLines`.
            return error.errors.map { $0.field + ($0.field.isEmpty ? "" : ": ") + $0.message }.joined(separator: "\n")
        }
    }

    @Test func defaultsWithoutAnything() throws {
        let configuration = try AggregatorConfiguration.load(file: nil, environment: [:], flags: [:])
        #expect(configuration.broker == MQTTBrokerURL(host: "127.0.0.1", port: 1883))
        #expect(configuration.topics.root == "presence")
        #expect(configuration.clientID == "presence-aggregator")
        #expect(configuration.decision == .default)
        #expect(configuration.homeAssistantDiscovery)
        #expect(configuration.homeAssistantPrefix == "homeassistant")
        #expect(configuration.forgetAfter == 86_400)
        #expect(configuration.maxUnknownBeacons == 20_000)
        #expect(configuration.username == nil && configuration.password == nil)
    }

    /// The shipped example documents the defaults: loading it changes nothing but its example beacon.
    @Test func shippedExampleStatesTheDefaults() throws {
        let path = RecordedData.packageRoot().appendingPathComponent("etc/presence-aggregator.yaml").path
        let configuration = try AggregatorConfiguration.load(file: path, environment: [:], flags: [:])
        let defaults = AggregatorConfiguration.default
        #expect(configuration.broker == defaults.broker)
        #expect(configuration.clientID == defaults.clientID)
        #expect(configuration.topics == defaults.topics)
        #expect(configuration.decision == defaults.decision)
        #expect(configuration.warnings.isEmpty)
        #expect(configuration.homeAssistantDiscovery == defaults.homeAssistantDiscovery)
        #expect(configuration.homeAssistantPrefix == defaults.homeAssistantPrefix)
        #expect(configuration.forgetAfter == defaults.forgetAfter)
        #expect(configuration.tickInterval == defaults.tickInterval)
        #expect(configuration.keepAlive == defaults.keepAlive)
        #expect(configuration.failover == defaults.failover)
        #expect(configuration.maxUnknownBeacons == defaults.maxUnknownBeacons)
        #expect(configuration.username == nil && configuration.password == nil && configuration.caFile == nil)
        #expect(configuration.knownBeacons.map(\.topicID) == ["alice-keys"])
        #expect(configuration.knownBeacons.first?.name == "Alice's keys")
        // Every setting is in the example file.
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for setting in AggregatorSetting.allCases {
            let key = setting.yamlPath.split(separator: ".").last.map(String.init) ?? setting.yamlPath
            #expect(text.contains("\n\(key):") || text.contains("  \(key):"), "\(setting.yamlPath) is not documented")
            #expect(text.contains(setting.environmentVariable), "\(setting.environmentVariable) is not documented")
        }
    }

    /// A file or environment from before the worn profile was removed (`decision.worn`, its
    /// `PRESENCE_WORN_*` variables) still loads, deciding as without them, with one warning each
    /// naming what was ignored: never an error, so a file that worked keeps working after an upgrade.
    @Test func removedWornSettingsLoadWithAWarning() throws {
        let path = try file("""
            decision:
              settleTime: 2
              worn:
                margin: 3
                riseLead: off
            """)
        let configuration = try AggregatorConfiguration.load(file: path, environment: ["PRESENCE_WORN_LEAD_CAP": "5"], flags: [:])
        var expected = RoomDecisionParameters.default
        expected.settleTime = 2
        #expect(configuration.decision == expected)
        #expect(configuration.warnings.count == 2, "\(configuration.warnings)")
        #expect(configuration.warnings.first?.hasPrefix("\(path):3: decision.worn: removed (margin, riseLead), ignored: ") == true,
                "\(configuration.warnings)")
        #expect(configuration.warnings.last?.hasPrefix("PRESENCE_WORN_LEAD_CAP: removed, ignored: ") == true, "\(configuration.warnings)")
        #expect(AggregatorConfiguration.default.warnings.isEmpty)
        // A key that never existed is still an error naming it.
        #expect(try error(file: "decision:\n  wron:\n    margin: 3\n").hasPrefix("decision.wron: unknown key"))
    }

    /// Each row of the table states the default `check-config` shows when nothing sets the setting.
    @Test func theTableStatesTheDefaults() {
        let shown = AggregatorConfigurationLoad(file: nil, environment: [:], flags: [:]).effectiveSettings
        #expect(shown.prefix(AggregatorSetting.allCases.count).map(\.key) == AggregatorSetting.allCases.map(\.yamlPath))
        #expect(shown.prefix(AggregatorSetting.allCases.count).map(\.value) == AggregatorConfiguration.settings.map(\.defaultValue))
        #expect(AggregatorConfiguration.settings.map(\.id) == AggregatorSetting.allCases)
    }

    @Test func fileThenEnvironmentThenFlags() throws {
        let path = try file("""
            broker: mqtt://file-host:1884
            root: from-file
            username: file-user
            decision:
              dwell: 4
              awayTimeout: 40
            homeAssistant:
              prefix: ha-file
            maxUnknownBeacons: 500
            """)
        let fileOnly = try AggregatorConfiguration.load(file: path, environment: [:], flags: [:])
        #expect(fileOnly.broker == MQTTBrokerURL(host: "file-host", port: 1884))
        #expect(fileOnly.topics.root == "from-file")
        #expect(fileOnly.decision.rule.dwell == 4)
        #expect(fileOnly.decision.awayTimeout == 40)
        #expect(fileOnly.homeAssistantPrefix == "ha-file")
        #expect(fileOnly.maxUnknownBeacons == 500)

        let environment = ["PRESENCE_BROKER": "mqtts://env-host", "PRESENCE_ROOT": "from/env", "PRESENCE_AWAY_AFTER": "50",
                           "PRESENCE_PASSWORD": "env-secret", "PRESENCE_MAX_UNKNOWN_BEACONS": "600", "UNRELATED": "x"]
        let withEnvironment = try AggregatorConfiguration.load(file: path, environment: environment, flags: [:])
        #expect(withEnvironment.broker == MQTTBrokerURL(host: "env-host", port: 8883, usesTLS: true))
        #expect(withEnvironment.topics.root == "from/env")
        #expect(withEnvironment.decision.awayTimeout == 50)
        #expect(withEnvironment.decision.rule.dwell == 4)  // still the file's
        #expect(withEnvironment.username == "file-user")
        #expect(withEnvironment.password == "env-secret")
        #expect(withEnvironment.maxUnknownBeacons == 600)

        let secret = try file("flag-secret\n")
        let flags: [AggregatorSetting: String] = [.broker: "mqtt://[::1]:1999", .awayTimeout: "60", .discovery: "false",
                                                  .passwordFile: secret, .maxUnknownBeacons: "700"]
        let all = try AggregatorConfiguration.load(file: path, environment: environment, flags: flags)
        #expect(all.broker == MQTTBrokerURL(host: "::1", port: 1999))
        #expect(all.decision.awayTimeout == 60)
        #expect(all.topics.root == "from/env")
        #expect(!all.homeAssistantDiscovery)
        #expect(all.password == "flag-secret")  // the file's first line, newline dropped
        #expect(all.maxUnknownBeacons == 700)
    }

    /// Failover settings from flags: two MQTT client ids per instance, the will only on the
    /// publishing one, the keepalive on both.
    @Test func failoverFlagsGiveTwoConnections() throws {
        let flags: [AggregatorSetting: String] = [.failover: "true", .instance: "agg-b", .keepAlive: "5", .leaseTimeout: "10"]
        let configuration = try AggregatorConfiguration.load(file: nil, environment: [:], flags: flags)
        #expect(configuration.failover == FailoverSettings(enabled: true, instance: TopicLevelID("agg-b"), leaseTimeout: 10))
        let listening = AggregatorService.connectionOptions(for: configuration, leader: false)
        let publishing = AggregatorService.connectionOptions(for: configuration, leader: true)
        #expect(listening.clientID == "presence-aggregator-agg-b")
        #expect(listening.lastWill == nil)
        #expect(publishing.clientID == "presence-aggregator-agg-b-leader")
        #expect(publishing.lastWill == MQTTLastWill(topic: "presence/aggregator/status", string: "offline"))
        #expect(listening.keepAliveSeconds == 5 && publishing.keepAliveSeconds == 5)
        let single = AggregatorService.connectionOptions(for: .default)
        #expect(single.clientID == "presence-aggregator" && single.lastWill != nil && single.keepAliveSeconds == 30)
    }

    @Test func knownBeaconsFromYAML() throws {
        let path = try file("""
            beacons:
              - beacon: ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-5-6
                id: alice-keys
                name: Alice's keys
                measuredPower: -59
                worn: true
              - beacon: mac-c4a1b2c3d4e5
            """)
        let configuration = try AggregatorConfiguration.load(file: path, environment: [:], flags: [:])
        #expect(configuration.knownBeacons.count == 2)
        #expect(configuration.knownBeacons.map(\.worn) == [true, false])
        #expect(configuration.knownBeacon(beaconID)?.topicID == "alice-keys")
        #expect(configuration.knownBeacon(beaconID)?.measuredPower == -59)
        #expect(configuration.knownBeacon(BeaconID(rawValue: "mac-c4a1b2c3d4e5"))?.topicID == "mac-c4a1b2c3d4e5")
    }

    /// `floors:` gives each room its floor; a bad name or a room on two floors names the line.
    @Test func floorsFromYAML() throws {
        let path = try file("""
            floors:
              ground: [lounge, kitchen, hall]
              upstairs:
                - bedroom
                - landing
            """)
        let load = AggregatorConfigurationLoad(file: path, environment: [:], flags: [:])
        #expect(load.errors.isEmpty)
        let configuration = load.configuration
        #expect(configuration.floors == ["lounge": "ground", "kitchen": "ground", "hall": "ground",
                                         "bedroom": "upstairs", "landing": "upstairs"])
        #expect(configuration.floor(of: "landing") == "upstairs")
        #expect(configuration.floor(of: "garage") == nil)
        #expect(load.effectiveSettings.first { $0.key == "floors" }?.value
            == "ground: hall, kitchen, lounge; upstairs: bedroom, landing")
        let bad = try file("""
            floors:
              ground: [lounge, Kitchen]
              upstairs: [lounge]
              Attic: [loft]
            """)
        do {
            _ = try AggregatorConfiguration.load(file: bad, environment: [:], flags: [:])
            Issue.record("accepted")
        } catch {
            #expect(error.errors.map(\.description) == [
                "\(bad):2: floors.ground[1]: 'Kitchen' is not a room name (1–64 characters of a-z, 0-9, '_' and '-'; not not_home)",
                "\(bad):3: floors.upstairs[0]: room 'lounge' is on floor 'ground' already (line 2)",
                "\(bad):4: floors.Attic: 'Attic' is not a floor name (1–64 characters of a-z, 0-9, '_' and '-'; not not_home)",
            ])
        }
    }

    /// Every validation error, as the user reads it: the field as they wrote it, then what is wrong.
    @Test(arguments: [
        // Values, through the file.
        ("broker: foo", "broker: 'foo' is not mqtt://host[:port], mqtts://host[:port] or unix:///path/to/socket"),
        ("broker: mqtt://host:0", "broker: 'mqtt://host:0' is not mqtt://host[:port], mqtts://host[:port] or unix:///path/to/socket"),
        ("broker: http://host", "broker: 'http://host' is not mqtt://host[:port], mqtts://host[:port] or unix:///path/to/socket"),
        ("username: ''", "username: must not be empty"),
        ("clientID: 'two words'", "clientID: 'two words' is not a client id (1–128 printable ASCII characters, no spaces)"),
        ("root: Presence", "root: 'Presence' is not a topic root (one or more '/'-separated levels of 1–64 characters of a-z, 0-9, '_' and '-')"),
        ("root: presence/", "root: 'presence/' is not a topic root (one or more '/'-separated levels of 1–64 characters of a-z, 0-9, '_' and '-')"),
        ("decision:\n  dwell: -1", "decision.dwell: '-1' is not a positive number of seconds"),
        ("decision:\n  dwell: soon", "decision.dwell: 'soon' is not a positive number of seconds"),
        ("decision:\n  dwell: .inf", "decision.dwell: '.inf' is not a positive number of seconds"),
        ("decision:\n  margin: -0.5", "decision.margin: '-0.5' is not a number of dB ≥ 0"),
        ("decision:\n  evidence: -1", "decision.evidence: '-1' is not a number of dB·s ≥ 0"),
        ("decision:\n  leadCap: 0", "decision.leadCap: '0' is not a positive number of dB"),
        ("decision:\n  settleTime: -1", "decision.settleTime: '-1' is not a number of seconds ≥ 0"),
        ("decision:\n  staleAfter: 0", "decision.staleAfter: '0' is not a positive number of seconds"),
        ("decision:\n  awayTimeout: nan", "decision.awayTimeout: 'nan' is not a positive number of seconds"),
        ("decision:\n  pathLossExponent: 0", "decision.pathLossExponent: '0' is not a positive number"),
        ("decision:\n  motionHold: -3", "decision.motionHold: '-3' is not a number of dB in 0…20"),
        ("decision:\n  motionHold: 25", "decision.motionHold: '25' is not a number of dB in 0…20"),
        ("homeAssistant:\n  discovery: maybe", "homeAssistant.discovery: 'maybe' is not true or false"),
        ("homeAssistant:\n  prefix: Home Assistant", "homeAssistant.prefix: 'Home Assistant' is not a discovery prefix (one or more '/'-separated levels of 1–64 characters of a-z, 0-9, '_' and '-')"),
        ("forgetAfter: -5", "forgetAfter: '-5' is not a number of seconds ≥ 0 (0: never forget)"),
        ("tickInterval: 0", "tickInterval: '0' is not a number of seconds in 0.05…1"),
        ("maxUnknownBeacons: 0", "maxUnknownBeacons: '0' is not a whole number of beacons ≥ 1"),
        ("maxUnknownBeacons: 1.5", "maxUnknownBeacons: '1.5' is not a whole number of beacons ≥ 1"),
        ("tls:\n  caFile: /nonexistent/ca.pem", "tls.caFile: cannot read '/nonexistent/ca.pem'"),
        ("passwordFile: /nonexistent/secret", "passwordFile: cannot read '/nonexistent/secret' (No such file or directory)"),
        // Shape.
        ("brokr: mqtt://x", "brokr: unknown key (known keys: broker, username, password, passwordFile, clientID, root, tls, beacons, decision, homeAssistant, forgetAfter, tickInterval, keepAlive, failover, maxUnknownBeacons, floors, sources, motion)"),
        ("decision:\n  dwel: 3", "decision.dwel: unknown key (known keys: decision.margin, decision.fallRate, decision.dwell, decision.evidence, decision.leadCap, decision.settleTime, decision.staleAfter, decision.awayTimeout, decision.pathLossExponent, decision.motionHold, decision.model)"),
        ("decision: 3", "decision: expected a mapping"),
        ("broker: [a, b]", "broker: expected a single value, not a list or mapping"),
        ("beacons: alice", "beacons: expected a list of beacons"),
        ("beacons:\n  - beacon: ibeacon-1\n    id: alice", "beacons[0].beacon: 'ibeacon-1' is not a beacon id (ibeacon-<uuid>-<major>-<minor>, altbeacon-<40 hex>, eddystone-<20 hex>-<12 hex>, mac-<12 hex> or irk-<12 hex>)"),
        ("beacons:\n  - beacon: mac-c4a1b2c3d4e5\n    id: Alice", "beacons[0].id: 'Alice' is not a valid id (1–64 characters of a-z, 0-9, '_' and '-')"),
        ("beacons:\n  - beacon: mac-c4a1b2c3d4e5\n    colour: red", "beacons[0].colour: unknown key (known keys: beacon, irk, id, name, measuredPower, awayTimeout, worn)"),
        ("beacons:\n  - beacon: mac-c4a1b2c3d4e5\n    id: a\n  - beacon: mac-c4a1b2c3d4e6\n    id: a", "beacons[1].id: duplicate id 'a'"),
        // Combinations.
        ("broker: mqtts://h\ntls:\n  certificateFile: /etc/hostname", "tls.certificateFile: needs tls.keyFile too (a client certificate and its key go together)"),
        ("broker: mqtt://h\ntls:\n  caFile: /etc/hostname", "broker: TLS files are given but the broker is mqtt://h:1883 (use mqtts://)"),
        ("password: secret", "password: a password needs a username"),
        ("username: u\npassword: p\npasswordFile: /etc/hostname", "passwordFile: give either password or passwordFile, not both"),
        ("forgetAfter: 10", "forgetAfter: 10 is shorter than decision.awayTimeout (30); use 0 to never forget"),
        // Keepalive and failover.
        ("keepAlive: 2", "keepAlive: '2' is not a whole number of seconds in 5…3600"),
        ("keepAlive: 7.5", "keepAlive: '7.5' is not a whole number of seconds in 5…3600"),
        ("failover:\n  instance: Agg A", "failover.instance: 'Agg A' is not an instance id (1–64 characters of a-z, 0-9, '_' and '-')"),
        ("failover:\n  colour: red", "failover.colour: unknown key (known keys: failover.enabled, failover.instance, failover.leaseTimeout)"),
        ("failover:\n  enabled: true", "failover.instance: required with failover: this instance's id among the site's aggregators, e.g. agg-a"),
        ("failover:\n  enabled: true\n  instance: agg-a\n  leaseTimeout: 30", "failover.leaseTimeout: 30 is shorter than 1.5 × keepAlive (45): a standby would take over from a leader the broker still counts as alive"),
    ])
    func fileErrors(yaml: String, expected: String) throws {
        #expect(try error(file: yaml) == expected)
    }

    /// Every mistake of the file is named with its line, and those of the other layers after them.
    @Test func fileMistakesNameTheirLines() throws {
        let path = try file("""
            brokr: mqtt://x
            decision:
              dwell: -1
            homeAssistant: {discovery: maybe}
            beacons:
              - beacon: mac-c4a1b2c3d4e5
                id: Alice
            """)
        do {
            _ = try AggregatorConfiguration.load(file: path, environment: ["PRESENCE_MARGIN": "wide"], flags: [:])
            Issue.record("accepted")
        } catch {
            #expect(error.errors.map(\.description) == [
                "\(path):1: brokr: unknown key (known keys: broker, username, password, passwordFile, clientID, root, tls, beacons, decision, homeAssistant, forgetAfter, tickInterval, keepAlive, failover, maxUnknownBeacons, floors, sources, motion)",
                "\(path):7: beacons[0].id: 'Alice' is not a valid id (1–64 characters of a-z, 0-9, '_' and '-')",
                "\(path):3: decision.dwell: '-1' is not a positive number of seconds",
                "\(path):4: homeAssistant.discovery: 'maybe' is not true or false",
                "PRESENCE_MARGIN: 'wide' is not a number of dB ≥ 0",
            ])
        }
    }

    @Test func environmentAndFlagErrorsNameTheVariableAndTheFlag() throws {
        #expect(try error(environment: ["PRESENCE_BROKER": "foo"])
            == "PRESENCE_BROKER: 'foo' is not mqtt://host[:port], mqtts://host[:port] or unix:///path/to/socket")
        #expect(try error(environment: ["PRESENCE_AWAY_AFTER": "-1"])
            == "PRESENCE_AWAY_AFTER: '-1' is not a positive number of seconds")
        #expect(try error(environment: ["PRESENCE_DISCOVERY": "perhaps"])
            == "PRESENCE_DISCOVERY: 'perhaps' is not true or false")
        #expect(try error(environment: ["PRESENCE_PASSWORD": "a", "PRESENCE_PASSWORD_FILE": "/etc/hostname"])
            == "PRESENCE_PASSWORD_FILE: give either PRESENCE_PASSWORD or PRESENCE_PASSWORD_FILE, not both")
        #expect(try error(flags: [.broker: "mqtt://"]) == "--broker: 'mqtt://' is not mqtt://host[:port], mqtts://host[:port] or unix:///path/to/socket")
        #expect(try error(flags: [.awayTimeout: "0"]) == "--away-after: '0' is not a positive number of seconds")
        #expect(try error(flags: [.root: "a/+/b"])
            == "--root: 'a/+/b' is not a topic root (one or more '/'-separated levels of 1–64 characters of a-z, 0-9, '_' and '-')")
        // A later layer repairs an earlier one's value only by replacing it: the file's error stands.
        #expect(try error(file: "broker: foo", flags: [.broker: "mqtt://ok"])
            == "broker: 'foo' is not mqtt://host[:port], mqtts://host[:port] or unix:///path/to/socket")
    }

    @Test func fileProblems() throws {
        #expect(try error(file: "broker: [unclosed") == "not valid YAML: did not find expected ',' or ']' (while parsing a flow sequence on line 1)")
        #expect(try error(file: "- a\n- b").hasSuffix("expected a mapping of settings at the top level"))
        let missing = try TestBroker.makeTemporaryDirectory() + "/missing.yaml"
        do {
            _ = try AggregatorConfiguration.load(file: missing, environment: [:], flags: [:])
            Issue.record("a missing file was accepted")
        } catch {
            #expect(error.description == "\(missing): cannot read the configuration file (No such file or directory)")
        }
        // An empty file and empty values leave the defaults.
        #expect(try error(file: "") == "no error")
        #expect(try error(file: "username:\ntls:\ndecision:\n") == "no error")
    }

    @Test(arguments: [
        ("mqtt://broker", "broker", 1883, false),
        ("mqtt://broker.lan:1884", "broker.lan", 1884, false),
        ("mqtts://10.0.0.2", "10.0.0.2", 8883, true),
        ("mqtts://[fe80::1]:8884", "fe80::1", 8884, true),
    ])
    func brokerAddresses(url: String, host: String, port: Int, tls: Bool) {
        #expect(MQTTBrokerURL(url) == MQTTBrokerURL(host: host, port: port, usesTLS: tls))
    }

    @Test(arguments: ["", "broker", "mqtt://", "mqtt://:1883", "mqtt://host:", "mqtt://host:65536", "mqtt://host:12a",
                      "mqtt://ho st", "mqtt://host/path", "mqtt://[::1", "mqtt://[::1]x", "tcp://host"])
    func badMQTTBrokerURLes(url: String) {
        #expect(MQTTBrokerURL(url) == nil)
    }
}

extension AggregatorConfiguration {
    /// The known beacon with canonical id `beacon`, if any.
    fileprivate func knownBeacon(_ beacon: BeaconID) -> KnownBeacon? {
        knownBeacons.first { $0.beacon == beacon }
    }
}
