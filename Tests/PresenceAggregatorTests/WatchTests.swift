import BeaconCore
import RoomDecisions
@testable import PresenceAggregator
import TestSupport
import Testing

/// `presence-aggregator watch` without a broker: `WatchState` fed with the very payloads the agents
/// (`MeasurementPayload`) and the aggregator (`AggregatorCore`) publish, and what `WatchRenderer`
/// shows for it.
@Suite struct WatchTests {
    static let uuid = "fda50693-a4e2-4fb1-afcf-c6eb07647825"
    static let alice = BeaconID(rawValue: "ibeacon-\(uuid)-1-1")
    static let bob = BeaconID(rawValue: "ibeacon-\(uuid)-1-2")

    /// An aggregator core and a watcher that sees every message the core and the nodes publish.
    struct Deployment {
        var core: AggregatorCore
        var watch = WatchState(topics: .default)
        var time = startTime

        init() {
            var configuration = AggregatorConfiguration.default
            configuration.knownBeacons = [
                KnownBeacon(beacon: WatchTests.alice, alias: TopicLevelID("alice"), name: "Alice"),
                KnownBeacon(beacon: WatchTests.bob, alias: TopicLevelID("bob"), name: "Bob"),
            ]
            configuration.homeAssistantDiscovery = false
            core = AggregatorCore(configuration: configuration, softwareVersion: "1.0")
        }

        /// What a node publishes, delivered to the watcher and the aggregator alike.
        mutating func measure(_ alias: String, _ beacon: BeaconID, node: String, room: String, distance: Double?) throws {
            let proximity: Proximity = distance.map { $0 < 0.5 ? .immediate : $0 < 3 ? .near : .far } ?? .unknown
            let payload = MeasurementPayload(
                id: alias, beacon: beacon, node: node, room: room, rssi: -70, rssiFiltered: -69.5, sigma: 1.5,
                measuredPower: -59, distance: distance, proximity: proximity,
                address: BluetoothAddress("c4:a1:b2:c3:d4:01"), format: "ibeacon", timestamp: time)
            let bytes = Array(payload.json.utf8)
            receive("presence/beacons/\(alias)/\(node)", bytes)
            deliver(core.receive(try ReceivedMeasurement(payload: bytes, topicNode: node), at: time))
        }

        mutating func tick(for seconds: Double) {
            for _ in 0..<Int(seconds * 10) {
                time = time + 0.1
                deliver(core.tick(at: time))
            }
        }

        mutating func receive(_ topic: String, _ payload: [UInt8]) {
            watch.receive(topic: topic, payload: payload, at: time)
        }

        mutating func receive(_ topic: String, _ text: String) { receive(topic, Array(text.utf8)) }

        mutating func deliver(_ publications: [AggregatorPublication]) {
            for publication in publications { receive(publication.topic, publication.payload) }
        }

        func render(width: Int = 120) -> [String] {
            WatchRenderer(title: "presence @ mqtt://127.0.0.1:1883").lines(for: watch, at: time, width: width)
        }
    }

    /// Two people heard by three nodes: after the settle time the view lists who is in which room,
    /// each beacon's room, distance, proximity, node and since, each node's distance, the nodes and
    /// the arrivals.
    @Test func showsRoomsBeaconsNodesAndEvents() throws {
        var site = Deployment()
        site.receive("presence/aggregator/status", "online")
        for node in ["kitchen-1", "living-1", "office-1"] { site.receive("presence/nodes/\(node)/status", "online") }
        try site.measure("alice", Self.alice, node: "kitchen-1", room: "kitchen", distance: 1.24)
        try site.measure("alice", Self.alice, node: "living-1", room: "living", distance: 5.5)
        try site.measure("bob", Self.bob, node: "office-1", room: "office", distance: 2.0)
        try site.measure("bob", Self.bob, node: "kitchen-1", room: "kitchen", distance: 6.25)
        site.tick(for: 5)

        #expect(site.watch.beacons["alice"]?.room == "kitchen")
        #expect(site.watch.beacons["bob"]?.room == "office")
        #expect(site.watch.rooms["kitchen"]?.map(\.name) == ["Alice"])
        #expect(site.watch.malformedMessages == 0)
        #expect(site.render() == [
            "presence @ mqtt://127.0.0.1:1883 · aggregator online · 08:00:05 UTC",
            "",
            "ROOMS",
            "  kitchen  Alice",
            "  living   -",
            "  office   Bob",
            "",
            "BEACONS  ROOM     DISTANCE  PROXIMITY  NODE       SINCE",
            "  Alice  kitchen  1.24 m    near       kitchen-1  08:00:01  3s",
            "  Bob    office   2.00 m    near       office-1   08:00:01  3s",
            "",
            "DISTANCE BY NODE  kitchen-1    living-1    office-1",
            "  Alice           1.24 m near  5.50 m far  -",
            "  Bob             6.25 m far   -           2.00 m near",
            "",
            "NODES        ROOM     STATUS",
            "  kitchen-1  kitchen  online",
            "  living-1   living   online",
            "  office-1   office   online",
            "",
            "EVENTS",
            "  08:00:01  Bob    arrived in office",
            "  08:00:01  Alice  arrived in kitchen",
            "",
            "\(site.watch.messagesUsed) messages · 0 malformed ignored",
        ])
    }

    /// A move: the new room fills, the old one empties, the beacon's since is the move's time, the
    /// event shows from → to; a node going offline and one that stops hearing show too.
    @Test func followsAMoveAndNodeChanges() throws {
        var site = Deployment()
        site.receive("presence/aggregator/status", "online")
        try site.measure("alice", Self.alice, node: "kitchen-1", room: "kitchen", distance: 1.0)
        try site.measure("alice", Self.alice, node: "living-1", room: "living", distance: 6.0)
        site.tick(for: 5)
        #expect(site.watch.beacons["alice"]?.room == "kitchen")

        try site.measure("alice", Self.alice, node: "kitchen-1", room: "kitchen", distance: nil)
        try site.measure("alice", Self.alice, node: "living-1", room: "living", distance: 1.5)
        site.tick(for: 5)
        let alice = try #require(site.watch.beacons["alice"])
        #expect(alice.room == "living")
        #expect(alice.node == "living-1")
        #expect(alice.readings["kitchen-1"]?.distance == nil)
        #expect(site.watch.rooms["kitchen"]?.isEmpty == true)
        #expect(site.watch.rooms["living"]?.map(\.id) == ["alice"])
        #expect(site.watch.events.map(\.type) == ["arrived", "room_changed"])

        site.receive("presence/nodes/kitchen-1/status", "offline")
        site.receive("presence/aggregator/status", "offline")
        let lines = site.render()
        #expect(lines[0] == "presence @ mqtt://127.0.0.1:1883 · aggregator OFFLINE · 08:00:10 UTC")
        #expect(lines.contains("  kitchen  -"))
        #expect(lines.contains("  living   Alice"))
        #expect(lines.contains { $0.hasPrefix("  Alice  living  1.50 m    near       living-1  08:00:0") })
        #expect(lines.contains("  Alice           not heard  1.50 m near"))
        #expect(lines.contains("  kitchen-1  kitchen  OFFLINE"))
        #expect(lines.contains { $0.hasSuffix("Alice  kitchen → living") })
    }

    /// Retained topics cleared with an empty payload (a forgotten beacon, a removed room or node)
    /// leave the view; an empty aggregator status is "not seen".
    /// Foreign nodes (an ESPresense node, a gateway) beside an agent: their summaries, as the
    /// aggregator publishes them, put them in the node table with their kind and status, and their
    /// distances beside the agent's; a node that goes offline hears nothing.
    @Test func showsForeignNodesBesideOurAgents() throws {
        var site = Deployment()
        var summaries = ForeignNodeSummaries(topics: .default)
        site.receive("presence/nodes/kitchen-1/status", "online")
        try site.measure("alice", Self.alice, node: "kitchen-1", room: "kitchen", distance: 3.0)
        func foreign(_ inputs: [ForeignNodeInput]) {
            for input in inputs { summaries.note(input) }
            site.tick(for: 1.5)
            site.deliver(summaries.due(at: site.time))
        }
        func heard(_ node: String, _ room: String, _ distance: Double?) -> ForeignNodeInput {
            var measurement = ReceivedMeasurement(beacon: Self.alice, node: node, room: room, distance: distance,
                                                  proximity: distance.map { $0 < 3 ? .near : .far } ?? .unknown)
            measurement.alias = TopicLevelID("alice")
            return .measurement(measurement)
        }
        // The gateway refused two adverts before its first summary (it is announced at the tick
        // after its first message): its summary counts them.
        summaries.noteRejected(node: "gw-hall")
        summaries.noteRejected(node: "gw-hall")
        foreign([
            .nodeInfo(node: "office", room: "office", version: nil, kind: .espresense(statusTopic: "espresense/rooms/office/status")),
            .nodeStatus(node: "office", online: true), heard("office", "office", 1.23),
            .nodeInfo(node: "gw-hall", room: "hall", version: nil, kind: .gateway(lastWillTopic: "home/gw-hall/LWT")),
            heard("gw-hall", "hall", 6.04),
        ])
        let lines = site.render()
        #expect(lines.contains("DISTANCE BY NODE  gw-hall     kitchen-1   office"))
        #expect(lines.contains { $0.hasSuffix("           6.00 m far  3.00 m far  1.20 m near") })
        #expect(lines.contains("NODES        ROOM     STATUS  KIND        REJECTED"))
        #expect(lines.contains("  gw-hall    hall     ?       gateway     2"))
        #expect(lines.contains("  kitchen-1  kitchen  online  agent       -"))
        #expect(lines.contains("  office     office   online  ESPresense  0"))
        #expect(site.watch.malformedMessages == 0)

        foreign([.nodeStatus(node: "office", online: false)])
        let offline = site.render()
        #expect(offline.contains("  office     office   OFFLINE  ESPresense  0"))
        #expect(offline.contains("  Alice           6.00 m far  3.00 m far  not heard"))
        #expect(site.watch.malformedMessages == 0)
    }

    @Test func clearedTopicsLeaveTheView() throws {
        var site = Deployment()
        try site.measure("alice", Self.alice, node: "kitchen-1", room: "kitchen", distance: 1.0)
        site.tick(for: 3)
        site.receive("presence/aggregator/status", "online")
        site.receive("presence/nodes/kitchen-1/status", "online")
        #expect(site.watch.beacons["alice"] != nil)

        site.receive("presence/locations/alice", "")
        site.receive("presence/locations/alice/room", "")
        site.receive("presence/rooms/kitchen", "")
        site.receive("presence/aggregator/status", "")
        #expect(site.watch.beacons["alice"] == nil)
        #expect(site.watch.rooms["kitchen"] == nil)
        #expect(site.watch.aggregatorOnline == nil)
        // The node still serves the kitchen (its measurements said so).
        #expect(site.watch.roomNames == ["kitchen"])
        #expect(site.watch.malformedMessages == 0)
        #expect(site.render()[0].contains("aggregator not seen"))
    }

    /// Node info gives a node's room before it measures anything, so an empty room shows.
    @Test func nodeInfoNamesTheRoom() {
        var watch = WatchState(topics: TopicScheme(root: "hq/presence")!)
        let info = #"{"node":"hall-1","room":"hall","version":"0.1.0","source":"hci0","startedAt":"2026-11-22T08:15:02.123Z","configRevision":{}}"#
        let infoShown = watch.receive(topic: "hq/presence/nodes/hall-1/info", payload: Array(info.utf8), at: startTime)
        let statusShown = watch.receive(topic: "hq/presence/nodes/hall-1/status", payload: Array("online".utf8), at: startTime)
        #expect(infoShown && statusShown)
        #expect(watch.nodes["hall-1"]?.room == "hall")
        #expect(watch.roomNames == ["hall"])
        // Another root, and topics the view does not show, are not counted.
        let otherRoot = watch.receive(topic: "presence/nodes/x/status", payload: Array("online".utf8), at: startTime)
        let telemetry = watch.receive(topic: "hq/presence/nodes/hall-1/telemetry", payload: Array("{}".utf8), at: startTime)
        #expect(!otherRoot && !telemetry)
        #expect(watch.messagesUsed == 2)
        #expect(watch.malformedMessages == 0)
    }

    /// Payloads that are not what the contract says are counted and change nothing.
    @Test(arguments: [
        ("presence/aggregator/status", "maybe"),
        ("presence/nodes/kitchen-1/status", "ONLINE"),
        ("presence/nodes/Kitchen/status", "online"),
        ("presence/nodes/kitchen-1/info", "[1,2]"),
        ("presence/rooms/kitchen", #"{"room":"kitchen","occupants":"Alice"}"#),
        ("presence/rooms/kitchen", #"{"room":"kitchen","occupants":[{"name":"no id"}]}"#),
        ("presence/rooms/kitchen", #"{"room":"kitchen","occupants":[{"id":"alice""#),
        ("presence/locations/alice", #"{"id":"alice","room":"kitchen"}"#),
        ("presence/locations/alice", "not json"),
        ("presence/locations/alice/room", "Kitchen!"),
        ("presence/locations/a+b", #"{"id":"x"}"#),
        ("presence/beacons/alice/kitchen-1", #"{"beacon":"ibeacon-x","node":"kitchen-1"}"#),
        ("presence/beacons/alice/kitchen-1", ""),
        ("presence/beacons/alice/living-1", #"{"beacon":"ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-1-1","node":"kitchen-1","room":"kitchen","distance":1,"proximity":"near"}"#),
        ("presence/events", #"{"type":"arrived"}"#),
        ("presence/events", #"{"type":"arrived","id":"alice","to":"Not A Room"}"#),
        ("presence/events", "\u{FF}\u{FE}"),
    ])
    func malformedPayloadsAreCountedAndIgnored(topic: String, payload: String) {
        var watch = WatchState(topics: .default)
        let before = watch
        let changed = watch.receive(topic: topic, payload: Array(payload.utf8), at: startTime)
        #expect(changed)
        #expect(watch.malformedMessages == 1)
        #expect(watch.messagesUsed == 0)
        #expect(watch.beacons == before.beacons && watch.rooms == before.rooms && watch.nodes == before.nodes)
        #expect(watch.events.isEmpty && watch.aggregatorOnline == nil)
        let lines = WatchRenderer(title: "t").lines(for: watch, at: startTime, width: 80)
        #expect(lines.last == "0 messages · 1 malformed ignored")
    }

    /// Seeded random bytes, and every truncation and random byte flips of real payloads, on every
    /// watched topic: nothing traps, and every line stays within the width.
    @Test func randomAndTruncatedPayloadsNeverTrap() throws {
        var site = Deployment()
        try site.measure("alice", Self.alice, node: "kitchen-1", room: "kitchen", distance: 1.2)
        try site.measure("bob", Self.bob, node: "office-1", room: "office", distance: 2.5)
        site.tick(for: 3)
        try site.measure("alice", Self.alice, node: "kitchen-1", room: "kitchen", distance: nil)
        try site.measure("alice", Self.alice, node: "office-1", room: "office", distance: 1.0)
        site.tick(for: 5)
        // Every real payload the deployment produced, by topic, to cut and corrupt.
        var samples: [(String, [UInt8])] = []
        var replay = Deployment()
        try replay.measure("alice", Self.alice, node: "kitchen-1", room: "kitchen", distance: 1.2)
        var core = replay.core
        var time = startTime
        let measurement = ReceivedMeasurement(beacon: Self.alice, node: "kitchen-1", room: "kitchen", distance: 1.2, proximity: .near)
        var publications = core.receive(measurement, at: time)
        for _ in 0..<40 {
            time = time + 0.25
            publications += core.tick(at: time)
        }
        samples += publications.map { ($0.topic, Array($0.payload.utf8)) }
        let agentPayload = MeasurementPayload(
            id: "alice", beacon: Self.alice, node: "kitchen-1", room: "kitchen", rssi: -70, rssiFiltered: -69.5,
            sigma: 1.5, measuredPower: -59, distance: 1.2, proximity: .near, address: nil, timestamp: startTime)
        samples.append(("presence/beacons/alice/kitchen-1", Array(agentPayload.json.utf8)))
        samples.append(("presence/nodes/kitchen-1/info", Array(#"{"node":"kitchen-1","room":"kitchen"}"#.utf8)))
        samples.append(("presence/nodes/kitchen-1/info", Array(WatchCalibrationTests.info("kitchen-1").utf8)))
        let calibration = NodeCalibration(
            nodes: ["kitchen-1": NodeOffset(offset: -3.1, power: 0.8, standardError: 0.4, pairs: 5, samples: 3000, confident: true),
                    "office-1": NodeOffset(offset: 2, standardError: 1.6, pairs: 1, samples: 600, confident: false, reason: "1 path(s) heard both ways; 2 needed")],
            basis: .statedPower, rejections: [NodeCalibrationRejection(kind: .blockedPath, subject: "kitchen-1→office-1", reason: "blocked one way")],
            residualScale: 0.42, solvedAt: startTime)
        samples.append(("presence/calibration", Array(NodeCalibrationPayload.json(calibration).utf8)))
        #expect(samples.contains { $0.0 == "presence/events" })
        #expect(samples.contains { $0.0 == "presence/rooms/kitchen" })

        var generator = SeededGenerator(seed: 6)
        var watch = site.watch
        for (topic, payload) in samples {
            for length in 0..<payload.count { watch.receive(topic: topic, payload: Array(payload.prefix(length)), at: time) }
            for _ in 0..<300 {
                var corrupted = payload
                for _ in 0...(generator.next() % 3) {
                    guard !corrupted.isEmpty else { break }
                    corrupted[Int(generator.next() % UInt64(corrupted.count))] = UInt8(truncatingIfNeeded: generator.next())
                }
                watch.receive(topic: topic, payload: corrupted, at: time)
            }
            for _ in 0..<300 {
                let random = (0..<Int(generator.next() % 64)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                watch.receive(topic: topic, payload: random, at: time)
            }
        }
        #expect(watch.malformedMessages > 1000)
        for width in [1, 2, 10, 40, 79, 200] {
            let lines = WatchRenderer(title: "presence @ mqtt://127.0.0.1:1883").lines(for: watch, at: time, width: width)
            #expect(lines.allSatisfy { $0.count <= width })
        }
    }

    /// A narrow terminal: lines are cut, marked with an ellipsis.
    @Test func linesAreCutToTheWidth() throws {
        var site = Deployment()
        try site.measure("alice", Self.alice, node: "kitchen-1", room: "kitchen", distance: 1.0)
        site.tick(for: 3)
        let lines = site.render(width: 30)
        #expect(lines.allSatisfy { $0.count <= 30 })
        #expect(lines[0] == "presence @ mqtt://127.0.0.1:1…")
        #expect(lines.contains("  kitchen  Alice"))
    }

    @Test func formats() {
        #expect(WatchRenderer.age(-1) == "0s")
        #expect(WatchRenderer.age(59.9) == "59s")
        #expect(WatchRenderer.age(65) == "1m05s")
        #expect(WatchRenderer.age(2 * 3600 + 3 * 60 + 9) == "2h03m")
        #expect(WatchRenderer.age(4 * 86_400 + 7 * 3600) == "4d07h")
        #expect(WatchRenderer.age(.infinity) == "0s")
        #expect(WatchRenderer.metres(1.234) == "1.23 m")
        #expect(WatchRenderer.metres(0.05) == "0.05 m")
        #expect(WatchRenderer.metres(12.34) == "12.3 m")
        #expect(WatchRenderer.metres(nil) == "-")
        #expect(WatchRenderer.metres(.nan) == "-")
        #expect(WatchRenderer.clock(startTime + 3723.4) == "09:02:03")
    }
}
