import BeaconCore
@testable import PresenceAggregator
import RoomDecisions
import TestSupport
import Testing

/// What `presence-aggregator watch` shows of the nodes' calibration: the nodes' info as our agents
/// publish it, the measurements they publish of each other's node beacons, and the calibration
/// the aggregator (`AggregatorCore`) solves from them, each delivered to the watcher as its bytes.
@Suite struct WatchCalibrationTests {
    typealias Deployment = WatchTests.Deployment

    /// Our agent's info naming its node beacon, measuring with no offset of its own (docs/MQTT.md).
    static func info(_ node: String) -> String {
        #"{"node":"\#(node)","room":"\#(node)","version":"1.0","nodeBeacon":{"id":"\#(NodeBeacon(node: node).id.rawValue)","interval":1,"state":"advertising","measuredPower":-41},"rssiOffset":0,"rssiOffsetSource":"none"}"#
    }

    /// Nodes whose info names their beacon, online.
    static func site(_ nodes: [String]) -> Deployment {
        var site = Deployment()
        site.receive("presence/aggregator/status", "online")
        for node in nodes {
            site.receive("presence/nodes/\(node)/info", info(node))
            site.deliver(site.core.nodeInfo(node: node, payload: Array(info(node).utf8)))
            site.receive("presence/nodes/\(node)/status", "online")
        }
        return site
    }

    /// `receiver`'s agent publishes what it hears of `transmitter`'s node beacon (canonical id, no alias).
    static func hear(_ site: inout Deployment, _ transmitter: String, by receiver: String, rssi: Double) throws {
        let beacon = NodeBeacon(node: transmitter).id
        let payload = MeasurementPayload(
            id: beacon.rawValue, beacon: beacon, node: receiver, room: receiver, rssi: Int(rssi), rssiFiltered: rssi, sigma: 1,
            measuredPower: -41, distance: 5, proximity: .far, address: nil, format: "ibeacon", timestamp: site.time)
        let bytes = Array(payload.json.utf8)
        site.receive("presence/beacons/\(beacon.rawValue)/\(receiver)", bytes)
        site.deliver(site.core.receive(try ReceivedMeasurement(payload: bytes, topicNode: receiver), at: site.time))
    }

    /// Three nodes of different make hear each other for ten minutes: before the solve each is
    /// calibrating, with the node beacons it hears; then each shows its offset, applied, and the
    /// footer when it was solved. A node heard by nobody is not solved, and says why. Node beacons
    /// are no beacon of the list.
    @Test func showsEachNodesOffsetAndWhetherItIsApplied() throws {
        var site = Self.site(["cellar", "hall", "kitchen", "study"])
        // What each receiver reads above the site's mean: the offsets the solve must find.
        let offsets = ["hall": 4.0, "kitchen": -1.0, "study": -3.0]
        for transmitter in offsets.keys.sorted() {
            for receiver in offsets.keys.sorted() where receiver != transmitter {
                try Self.hear(&site, transmitter, by: receiver, rssi: offsets[receiver]! - 70)
            }
        }
        let before = site.render()
        #expect(before.contains("NODES      ROOM     STATUS  OFFSET  CALIBRATION"), "\(before)")
        #expect(before.contains("  cellar   cellar   online  -       calibrating… (hears 0 node beacons)"))
        #expect(before.contains("  hall     hall     online  -       calibrating… (hears 2 node beacons)"))
        #expect(before.contains("BEACONS") && before.contains("  (no beacons yet)"))

        // Ten minutes of adverts, one every two seconds each way; the cellar hears the hall, nobody hears it.
        for _ in 0..<300 {
            for transmitter in offsets.keys.sorted() {
                for receiver in offsets.keys.sorted() where receiver != transmitter {
                    try Self.hear(&site, transmitter, by: receiver, rssi: offsets[receiver]! - 70)
                }
            }
            try Self.hear(&site, "hall", by: "cellar", rssi: -85)
            site.tick(for: 2)
        }
        let calibration = try #require(site.watch.calibration)
        #expect(abs(try #require(calibration.nodes["hall"]).offset - 4) < 0.05)
        #expect(site.watch.malformedMessages == 0)
        let lines = site.render(width: 160)
        let solved = try #require(lines.firstIndex(of: "NODES      ROOM     STATUS  OFFSET   CALIBRATION"), "\(lines)")
        #expect(Array(lines[solved...].prefix(7)) == [
            "NODES      ROOM     STATUS  OFFSET   CALIBRATION",
            "  cellar   cellar   online  -        not solved: no path heard both ways to the rest of the site: its offset cannot be solved",
            "  hall     hall     online  +4.0 dB  applied by the node (±0.2 dB, 2 paths)",
            "  kitchen  kitchen  online  -1.0 dB  applied by the node (±0.2 dB, 2 paths)",
            "  study    study    online  -3.0 dB  applied by the node (±0.2 dB, 2 paths)",
            "  calibration solved 08:09:00  59s ago · 3 of 3 applied · basis statedPower · paths agree within 0.3 dB",
            "  rejected isolated cellar: no path heard both ways to the rest of the site: its offset cannot be solved",
        ])
        #expect(lines.contains("  (no beacons yet)"))
    }

    /// A node the solve found too few paths for shows the offset, not applied, and why; a node
    /// whose radio refused to advertise says so; a cleared calibration leaves the view.
    @Test func notConfidentRefusedAndCleared() {
        var watch = WatchState(topics: .default)
        let refused = #"{"node":"attic","room":"attic","nodeBeacon":{"id":"\#(NodeBeacon(node: "attic").id.rawValue)","interval":1,"state":"refused","error":"command disallowed"}}"#
        watch.receive(topic: "presence/nodes/attic/info", payload: Array(refused.utf8), at: startTime)
        let solved = NodeCalibration(
            nodes: ["hall": NodeOffset(offset: 2.04, standardError: 1.6, pairs: 1, samples: 600, confident: false,
                                       reason: "1 path(s) heard both ways; 2 needed")],
            basis: .statedPower, residualScale: 0.42, solvedAt: startTime)
        let shown = watch.receive(topic: "presence/calibration", payload: Array(NodeCalibrationPayload.json(solved).utf8), at: startTime)
        #expect(shown)
        let lines = WatchRenderer(title: "t").lines(for: watch, at: startTime + 30, width: 160)
        #expect(lines.contains("  attic  attic  ?       -        its radio refused to advertise: no paths from it"), "\(lines)")
        #expect(lines.contains("  hall   ?      ?       +2.0 dB  not applied: 1 path(s) heard both ways; 2 needed"))
        #expect(lines.contains("  calibration solved 08:00:00  30s ago · 0 of 1 applied · basis statedPower · paths agree within 0.4 dB"))

        let cleared = watch.receive(topic: "presence/calibration", payload: [], at: startTime)
        #expect(cleared && watch.calibration == nil && watch.malformedMessages == 0)
        let malformed = watch.receive(topic: "presence/calibration", payload: Array(#"{"solvedAt":"yesterday"}"#.utf8), at: startTime)
        #expect(malformed && watch.malformedMessages == 1)
    }
    /// An aggregator that says where each confident offset is applied (`applied`): by the node
    /// itself, by the aggregator, or not at all because the operator's own `rssiOffset` wins.
    @Test func showsWhereEachOffsetIsAppliedWhenTheCalibrationSays() {
        var watch = WatchState(topics: .default)
        let payload = #"""
            {"solvedAt":"2025-11-22T08:00:00.000Z","basis":"statedPower","residualScale":0.3,"nodes":{
             "attic":{"offset":-1.04,"standardError":0.3,"pairs":3,"samples":1800,"confident":true,"applied":"aggregator"},
             "hall":{"offset":3.96,"standardError":0.31,"pairs":3,"samples":1800,"confident":true,"applied":"agent"},
             "study":{"offset":-2.92,"standardError":0.4,"pairs":2,"samples":1200,"confident":true,"applied":"operator","operatorOffset":-2.5}},
             "rejections":[]}
            """#
        let shown = watch.receive(topic: "presence/calibration", payload: Array(payload.utf8), at: startTime)
        #expect(shown && watch.malformedMessages == 0)
        let lines = WatchRenderer(title: "t").lines(for: watch, at: startTime, width: 160)
        #expect(lines.contains("  attic  ?     ?       -1.0 dB  applied by the aggregator (±0.3 dB, 3 paths)"), "\(lines)")
        #expect(lines.contains("  hall   ?     ?       +4.0 dB  applied by the node (±0.3 dB, 3 paths)"))
        #expect(lines.contains("  study  ?     ?       -2.9 dB  not applied: its own rssiOffset (-2.5 dB) wins (±0.4 dB, 2 paths)"))
        #expect(lines.contains { $0.hasPrefix("  calibration solved 08:00:00  0s ago · 2 of 3 applied · ") })
    }
}
