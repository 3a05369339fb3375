import BeaconCore
@testable import BluetoothHCI
import Testing
import TestSupport
@testable import PresenceAgent

/// The agent's node beacon: its settings, what its info says of it, and that every agent measures
/// the other nodes' beacons without being told to (the aggregator calibrates from them).
@Suite struct AgentNodeBeaconTests {
    private func resolve(_ yaml: String) throws(AgentConfiguration.Problems) -> AgentConfiguration.Resolved {
        var configuration = AgentConfiguration()
        configuration.apply(yaml: yaml, file: "agent.yaml")
        return try configuration.resolve()
    }

    private func error(_ yaml: String) -> String {
        do {
            _ = try resolve(yaml)
            return "no error"
        } catch {
            return error.description
        }
    }

    @Test func onByDefaultEverySecondOnARadioOffWithOneSetting() throws {
        let on = try resolve("node: kitchen-1\nroom: kitchen\n")
        #expect(on.nodeBeacon == AdvertisingRequest(beacon: NodeBeacon(node: "kitchen-1"), intervalUnits: 1600))
        #expect(try resolve("node: a\nroom: b\nnodeBeacon:\n  interval: 0.5\n").nodeBeacon?.intervalUnits == 800)
        #expect(try resolve("node: a\nroom: b\nnodeBeacon:\n  enabled: false\n").nodeBeacon == nil)
        // A capture or the simulator has no radio to advertise with.
        #expect(try resolve("node: a\nroom: b\nsource: simulate\n").nodeBeacon == nil)
    }

    @Test func badValuesNameTheirField() {
        #expect(error("node: a\nroom: b\nnodeBeacon:\n  interval: 0.05\n") == "agent.yaml:4: nodeBeacon.interval: 0.05 is not in 0.1…10.24 seconds")
        #expect(error("node: a\nroom: b\nnodeBeacon:\n  interval: 11\n") == "agent.yaml:4: nodeBeacon.interval: 11.0 is not in 0.1…10.24 seconds")
        #expect(error("node: a\nroom: b\nnodeBeacon:\n  enabled: maybe\n")
            == "agent.yaml:4: nodeBeacon.enabled: expected true or false (unquoted), got 'maybe'")
        #expect(error("node: a\nroom: b\nnodeBeacon:\n  power: 3\n").hasPrefix("agent.yaml:4: nodeBeacon.power: unknown key (known keys: enabled, interval)"))
    }

    @Test func checkConfigShowsTheSettingsWithTheirSource() {
        var configuration = AgentConfiguration()
        configuration.apply(yaml: "node: a\nroom: b\nnodeBeacon:\n  interval: 2\n", file: "agent.yaml")
        let shown = Dictionary(uniqueKeysWithValues: configuration.effectiveSettings.map { ($0.key, $0) })
        #expect(shown["nodeBeacon.enabled"]?.value == "true" && shown["nodeBeacon.enabled"]?.source == .defaultValue)
        #expect(shown["nodeBeacon.interval"]?.value == "2" && shown["nodeBeacon.interval"]?.source == .file(path: "agent.yaml", line: 4))
    }

    @Test func theInfoNamesTheBeaconAndHowItsSetUpEnded() {
        let request = AdvertisingRequest(beacon: NodeBeacon(node: "kitchen-1"), interval: 1)
        let id = NodeBeacon(node: "kitchen-1").id.rawValue
        #expect(AgentInfo.nodeBeaconJSON(request, nil) == #"{"id":"\#(id)","interval":1,"state":"starting"}"#)
        #expect(AgentInfo.nodeBeaconJSON(request, .advertising(transmitPower: 4, measuredPower: -37))
            == #"{"id":"\#(id)","interval":1,"state":"advertising","measuredPower":-37,"txPower":4}"#)
        #expect(AgentInfo.nodeBeaconJSON(request, .advertising(transmitPower: nil, measuredPower: -41))
            == #"{"id":"\#(id)","interval":1,"state":"advertising","measuredPower":-41}"#)
        let refused = AdvertisingOutcome.refused(ControllerSetupError(command: "HCI_LE_Set_Advertising_Enable", status: 0x0C))
        #expect(AgentInfo.nodeBeaconJSON(request, refused)
            == #"{"id":"\#(id)","interval":1,"state":"refused","error":"HCI_LE_Set_Advertising_Enable failed: command disallowed (0x0c)"}"#)
    }

    @Test func anotherNodesBeaconIsMeasuredThoughNoRegionOrListNamesIt() {
        let start = Instant(seconds: 1_800_000_000)
        var core = AgentCore(settings: AgentCore.Settings(node: TopicLevelID("hall")!, room: TopicLevelID("hall")!), at: start)
        let other = NodeBeacon(node: "kitchen-1")
        let stranger = IBeaconReport.event(address: 0xC1A4_38BF_6FAB, uuid: BeaconUUID("fda50693-a4e2-4fb1-afcf-c6eb07647825")!.bytes,
                                           major: other.major, minor: other.minor, rssi: -70)
        let node = IBeaconReport.event(address: 0xC1A4_38BF_6FAC, uuid: NodeBeacon.uuid.bytes,
                                       major: other.major, minor: other.minor, measuredPower: -41, rssi: -70)
        var decoder = AdvertisementDecoder()
        var topics: [String] = []
        for second in 0..<3 {
            let time = start + Double(second)
            var actions = core.tick(at: time)
            for report in [stranger, node] { decoder.decode(eventPacket: report[...], at: time) { actions += core.observe($0) } }
            for case .publish(let publication) in actions { topics.append(publication.topic) }
        }
        #expect(topics.contains("presence/beacons/\(other.id)/hall"))
        #expect(!topics.contains { $0.hasPrefix("presence/beacons/ibeacon-fda50693") })
    }
}
