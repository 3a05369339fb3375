import BeaconCore
import PresenceAggregator
import RoomDecisions
import Testing

/// A node's info as our agents publish it (docs/MQTT.md), naming its node beacon.
private func info(of node: String, beacon: BeaconID?) -> [UInt8] {
    let nodeBeacon = beacon.map { #","nodeBeacon":{"id":"\#($0.rawValue)","interval":1,"state":"advertising","measuredPower":-41}"# } ?? ""
    return Array(#"{"node":"\#(node)","room":"\#(node)","version":"1.0"\#(nodeBeacon)}"#.utf8)
}

private func heard(_ beacon: BeaconID, by node: String, rssiFiltered: Double) -> ReceivedMeasurement {
    var measured = ReceivedMeasurement(beacon: beacon, node: node, room: node, rssiFiltered: rssiFiltered, sigma: 1, distance: 5,
                                       proximity: .far, rssi: rssiFiltered)
    measured.measuredPower = -41
    return measured
}

@Suite("Node beacons named by the nodes' info")
struct NodeBeaconInfoTests {
    @Test("with no nodeBeacons configured, the beacons the nodes' info names are calibration's: solved, never placed in a room or announced")
    func infoNamesNodeBeacons() throws {
        var configuration = AggregatorConfiguration.default
        configuration.homeAssistantDiscovery = true
        var core = AggregatorCore(configuration: configuration, softwareVersion: "test")
        let beacons = ["a": NodeBeacon(node: "a").id, "b": NodeBeacon(node: "b").id, "c": NodeBeacon(node: "c").id]
        for (node, beacon) in beacons { _ = core.nodeInfo(node: node, payload: info(of: node, beacon: beacon)) }
        #expect(core.nodeCalibration.nodeBeacons == Dictionary(uniqueKeysWithValues: beacons.map { ($1, $0) }))
        let offsets = ["a": 4.0, "b": -1.0, "c": -3.0]
        let start = Instant(seconds: 1_800_000_000)
        var calibrations: [AggregatorPublication] = []
        for second in stride(from: 0.0, through: 600, by: 2) {
            for (node, beacon) in beacons {
                for receiver in ["a", "b", "c"] where receiver != node {
                    let published = core.receive(heard(beacon, by: receiver, rssiFiltered: offsets[receiver]! - 70), at: start + second)
                    #expect(published.isEmpty)
                }
            }
            calibrations += core.tick(at: start + second).filter { $0.topic == "presence/calibration" }
        }
        #expect(core.trackedBeacons.isEmpty)
        let last = try #require(calibrations.last)
        #expect(last.retain && ["\"a\"", "\"b\"", "\"c\""].allSatisfy { last.payload.contains($0) })
        #expect(abs(try #require(core.nodeCalibration.offset(for: "a")) - 4) < 0.01)
    }

    @Test("the configuration wins where it and a node's info name a node; a retired node's beacon is no longer its")
    func configurationWins() {
        let configuredBeacon = BeaconID(rawValue: "ibeacon-5350480e-5245-4341-4c4c-000000000001-9-1")
        var state = NodeCalibrationState(configured: ["a": configuredBeacon])
        state.learn(node: "a", beacon: NodeBeacon(node: "a").id)
        state.learn(node: "b", beacon: NodeBeacon(node: "b").id)
        #expect(state.nodeBeacons == [configuredBeacon: "a", NodeBeacon(node: "b").id: "b"])
        // Another node's info naming the configured beacon does not take it.
        state.learn(node: "c", beacon: configuredBeacon)
        #expect(state.nodeBeacons[configuredBeacon] == "a")
        state.learn(node: "b", beacon: nil)
        #expect(state.nodeBeacons == [configuredBeacon: "a"])
    }

    @Test("a beacon with the node beacons' uuid that no node names (another site's) is kept out of rooms and named an outsider")
    func otherSitesNodeBeacon() throws {
        var configuration = AggregatorConfiguration.default
        configuration.homeAssistantDiscovery = false
        var core = AggregatorCore(configuration: configuration, softwareVersion: "test")
        let stranger = NodeBeacon(node: "next-door").id
        let start = Instant(seconds: 1_800_000_000)
        var calibrations: [AggregatorPublication] = []
        for second in stride(from: 0.0, through: 120, by: 2) {
            #expect(core.receive(heard(stranger, by: "a", rssiFiltered: -80), at: start + second).isEmpty)
            calibrations += core.tick(at: start + second).filter { $0.topic == "presence/calibration" }
        }
        #expect(core.trackedBeacons.isEmpty && core.location(of: stranger) == nil)
        let last = try #require(calibrations.last)
        #expect(last.payload.contains("outsider") && last.payload.contains(stranger.rawValue))
    }

    @Test("a site that names and hears no node beacon publishes no calibration")
    func noNodeBeaconsNoCalibration() {
        var configuration = AggregatorConfiguration.default
        configuration.homeAssistantDiscovery = false
        var core = AggregatorCore(configuration: configuration, softwareVersion: "test")
        _ = core.nodeInfo(node: "a", payload: info(of: "a", beacon: nil))
        let start = Instant(seconds: 1_800_000_000)
        let keys = BeaconID(rawValue: "ibeacon-5350480e-5245-4341-4c4c-000000000001-1-1")
        _ = core.receive(heard(keys, by: "a", rssiFiltered: -60), at: start)
        #expect(core.trackedBeacons == [keys])
        #expect(core.tick(at: start + 120).allSatisfy { $0.topic != "presence/calibration" })
    }
}
