import BeaconCore
import PresenceAggregator
import RoomDecisions
import Testing

/// Issue 40, seventh round: an agent announces in its retained info that it reports the rises of
/// worn beacons (`riseReports`), so the aggregator knows it at once, even just restarted; learning
/// from the first rise report stays for nodes that do not announce.
@Suite struct NodeRiseAnnouncementTests {
    private func info(_ extra: String) -> [UInt8] {
        Array(#"{"node":"kitchen-1","room":"kitchen","version":"1.2.3","source":"hci0"\#(extra)}"#.utf8)
    }

    @Test("the info's riseReports: present, absent, null and malformed")
    func parse() {
        #expect(NodeRiseAnnouncement(infoPayload: info(#","riseReports":true"#)) == .announced(true))
        #expect(NodeRiseAnnouncement(infoPayload: info(#","riseReports":false"#)) == .announced(false))
        #expect(NodeRiseAnnouncement(infoPayload: info("")) == .silent)
        #expect(NodeRiseAnnouncement(infoPayload: info(#","riseReports":null"#)) == .silent)
        #expect(NodeRiseAnnouncement(infoPayload: []) == .silent)
        #expect(NodeRiseAnnouncement(infoPayload: info(#","riseReports":"yes""#)) == .malformed("riseReports is not true or false"))
        #expect(NodeRiseAnnouncement(infoPayload: info(#","riseReports":1"#)) == .malformed("riseReports is not true or false"))
        guard case .malformed(let problem) = NodeRiseAnnouncement(infoPayload: Array(#"{"node":"kitchen-1","riseRep"#.utf8)) else {
            Issue.record("a cut-off info is malformed")
            return
        }
        #expect(problem.contains("riseReports"))
    }

    @Test("true marks a node at once; without the field nothing changes; false or a garbled info after true")
    func apply() {
        var core = AggregatorCore(configuration: .default, softwareVersion: "test")
        #expect(!core.reportsRises(node: "kitchen-1"))
        // An older agent, or not ours: nothing to learn from the info.
        #expect(core.noteRiseAnnouncement(node: "kitchen-1", .silent) == .unchanged)
        #expect(!core.reportsRises(node: "kitchen-1"))
        #expect(core.noteRiseAnnouncement(node: "kitchen-1", .announced(true)) == .reports)
        #expect(core.reportsRises(node: "kitchen-1"))
        // The agent reconnects and sends the same info: nothing new (no second log line).
        #expect(core.noteRiseAnnouncement(node: "kitchen-1", .announced(true)) == .unchanged)
        // An unreadable info forgets nothing.
        #expect(core.noteRiseAnnouncement(node: "kitchen-1", .malformed("riseReports is not true or false")) == .unchanged)
        #expect(core.reportsRises(node: "kitchen-1"))
        // Replaced by an agent older than the field: it may not report rises; learned again from its next one.
        #expect(core.noteRiseAnnouncement(node: "kitchen-1", .silent) == .reportsNone)
        #expect(!core.reportsRises(node: "kitchen-1"))
        #expect(core.noteRiseAnnouncement(node: "kitchen-1", .announced(true)) == .reports)
        // Its rise reports turned off.
        #expect(core.noteRiseAnnouncement(node: "kitchen-1", .announced(false)) == .reportsNone)
        #expect(!core.reportsRises(node: "kitchen-1"))
        #expect(core.noteRiseAnnouncement(node: "kitchen-1", .announced(false)) == .unchanged)
    }

    @Test("a node learned from its rise report stays known through an info without the field")
    func learnedNodeStays() throws {
        var core = AggregatorCore(configuration: .default, softwareVersion: "test")
        let measurement = try ReceivedMeasurement(
            payload: Array(#"{"beacon":"mac-c4a1b2c3d4e5","node":"kitchen-1","room":"kitchen","rssi":-60,"rssiFiltered":-62.0,"distance":1.2,"proximity":"near","rise":8.0,"riseRssi":-60.0}"#.utf8),
            topicNode: "kitchen-1")
        _ = core.receive(measurement, at: Instant(seconds: 100))
        #expect(core.reportsRises(node: "kitchen-1"))
        #expect(core.noteRiseAnnouncement(node: "kitchen-1", .silent) == .unchanged)
        #expect(core.reportsRises(node: "kitchen-1"))
    }

    @Test("a replay takes our agents' nodes as announced before their first rise; announcesRises off: learned")
    func replayAnnounces() throws {
        let samples = try TraceFile.samples(path: try temporaryFile(TraceReplayWornRiseTests.trace))
        for announces in [true, false] {
            var replay = TraceReplay()
            replay.announcesRises = announces
            replay.foreignNodes = ["h1"]
            replay.knownBeacons = [KnownBeacon(beacon: "band", worn: true)]
            // The first seconds at the kitchen: steady, no rise yet.
            for sample in samples.prefix(4) { _ = replay.step(sample) }
            #expect(replay.decider.physics.reportsRises(node: "k1") == announces)
            #expect(!replay.decider.physics.reportsRises(node: "h1"))
        }
    }
}
