import BeaconCore
import PresenceAggregator
import RoomDecisions
import Testing

/// Level queries (issue 40, eighth round): the aggregator asks a node for its level of a worn beacon
/// now (`<root>/nodes/<node>/level`), and reads the node's answer (`levelRssi`) as that node's level.
@Suite struct LevelQueryTests {
    static let band = "mac-c4a1b2c3d4e5"

    /// A measurement of the band: the kitchen's node at 2 m (−70), the hall's at 3 m (−75).
    func measurement(node: String, room: String, _ extra: String) throws -> ReceivedMeasurement {
        let (rssi, distance) = room == "hall" ? (-75, 3.0) : (-70, 2.0)
        return try ReceivedMeasurement(
            payload: Array(#"{"beacon":"\#(Self.band)","node":"\#(node)","room":"\#(room)","rssi":\#(rssi),"rssiFiltered":\#(rssi).0,"distance":\#(distance),"proximity":"near"\#(extra)}"#.utf8),
            topicNode: node)
    }

    @Test("an answer's levelRssi is the node's level; null is a node that heard nothing in its last second")
    func readsTheAnswer() throws {
        let plain = try measurement(node: "k1", room: "kitchen", "")
        #expect(plain.evidence.rssi == -70)
        let answer = try measurement(node: "k1", room: "kitchen", #","levelRssi":-81.5"#)
        #expect(answer.evidence.rssi == -81.5)
        #expect(answer.rawOffset == -11.5)
        let unheard = try measurement(node: "k1", room: "kitchen", #","levelRssi":null"#)
        #expect(unheard.evidence.rssi == NodeEvidence.unheardLevel)
        let error = #expect(throws: ReceivedMeasurementError.self) {
            try measurement(node: "k1", room: "kitchen", #","levelRssi":"low""#)
        }
        #expect(error?.description.contains("levelRssi") == true)
    }

    @Test("a worn band's rise short of the lead sends one query to the held room's node, which answers it over")
    func coreAsksAndTheAnswerSwitches() throws {
        var configuration = AggregatorConfiguration.default
        configuration.knownBeacons = [KnownBeacon(beacon: BeaconID(rawValue: Self.band), worn: true)]
        var core = AggregatorCore(configuration: configuration, softwareVersion: "test")
        _ = core.noteRiseAnnouncement(node: "k1", .announced(true))
        _ = core.noteRiseAnnouncement(node: "h1", .announced(true))
        var queries: [AggregatorPublication] = []
        for step in 0..<8 {
            let t = 100 + Double(step) * 0.5
            queries += core.receive(try measurement(node: "k1", room: "kitchen", ""), at: Instant(seconds: t))
                .filter { $0.topic.hasSuffix("/level") }
            queries += core.receive(try measurement(node: "h1", room: "hall", ""), at: Instant(seconds: t + 0.01))
                .filter { $0.topic.hasSuffix("/level") }
        }
        #expect(queries.isEmpty)
        #expect(core.location(of: BeaconID(rawValue: Self.band))?.room == "kitchen")
        // The hall's node reports a rise to −69.5: as scores 2.9 dB over the kitchen's, 2.1 dB short
        // of the 5 asked (a near miss, within `SwitchingRule.levelQueryShortfall`).
        let rise = try measurement(node: "h1", room: "hall", #","rise":7.0,"riseRssi":-69.5"#)
        let out = core.receive(rise, at: Instant(seconds: 104))
        let asked = out.filter { $0.topic.hasSuffix("/level") }
        #expect(asked.map(\.topic) == ["presence/nodes/k1/level"])
        #expect(asked.map(\.payload) == [#"{"beacon":"\#(Self.band)"}"#])
        #expect(asked.allSatisfy { !$0.retain && $0.qos == 0 })
        // The kitchen's node answers: nothing heard in its last second. The band is in the hall.
        _ = core.receive(try measurement(node: "k1", room: "kitchen", #","levelRssi":null"#), at: Instant(seconds: 104.1))
        #expect(core.location(of: BeaconID(rawValue: Self.band))?.room == "hall")
    }
}
