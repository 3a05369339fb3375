import BeaconCore
import RoomDecisions
import Foundation
import TestSupport
import PresenceAggregator
import Testing

/// The aggregator's state machine without a broker: what it publishes for each input.
@Suite struct AggregatorCoreTests {
    static let alice = KnownBeacon(beacon: beaconID, alias: TopicLevelID("alice-keys"), name: "Alice's keys")

    private func core(_ configure: (inout AggregatorConfiguration) -> Void = { _ in }) -> AggregatorCore {
        var configuration = AggregatorConfiguration.default
        configuration.knownBeacons = [Self.alice]
        configuration.decision = RoomDecisionParameters(
            settleTime: 1, staleAfter: 12, awayTimeout: 30,
            rule: SwitchingRule(margin: 0.25, dwell: 1.5, evidenceToSwitch: 1.5, leadCap: 3))
        configure(&configuration)
        return AggregatorCore(configuration: configuration, softwareVersion: "1.0")
    }

    private func measurement(_ node: String, _ room: String, _ distance: Double?) -> ReceivedMeasurement {
        ReceivedMeasurement(beacon: beaconID, node: node, room: room, rssiFiltered: -70, sigma: 1, distance: distance,
                            proximity: distance == nil ? .unknown : .near)
    }

    private func payload(_ publications: [AggregatorPublication], _ topic: String) -> String? {
        publications.last { $0.topic == topic }?.payload
    }

    /// A restored beacon that is never heard again turns `not_home` one away timeout after the
    /// restart (as if heard just before it), with a `departed` event; not earlier.
    @Test func restoredBeaconNotHeardGoesAwayAfterTheTimeout() throws {
        var core = core()
        let retained = BeaconLocation(
            id: "alice-keys", beacon: beaconID, name: "Alice's keys", room: "office", distance: 2, proximity: .near,
            node: "office-1", since: startTime + (-3600), confidence: 0.8, candidates: ["office": 2])
        let restored = try #require(BeaconLocation(retainedPayload: Array(retained.json.utf8)))
        #expect(restored == retained)
        let discovery = core.restore(restored, at: startTime)
        #expect(discovery.count == 3)
        #expect(discovery.allSatisfy { $0.topic.hasPrefix("homeassistant/") && $0.retain })
        #expect(core.restore(restored, at: startTime + 1).isEmpty)  // once only
        #expect(core.location(of: beaconID)?.room == "office")

        #expect(core.tick(at: startTime + 29).isEmpty)
        let away = core.tick(at: startTime + 30)
        #expect(payload(away, "presence/locations/alice-keys/room") == "not_home")
        #expect(payload(away, "presence/rooms/office") == #"{"room":"office","occupants":[],"count":0}"#)
        #expect(payload(away, "presence/events")
            == #"{"type":"departed","id":"alice-keys","from":"office","to":"not_home","at":"2025-11-22T08:00:30.000Z"}"#)
        #expect(core.tick(at: startTime + 31).isEmpty)
    }

    /// With the default parameters a restored beacon waits `staleAfter` (150 s), not the away
    /// timeout (30 s): a still beacon's nodes re-report it only every 60 s heartbeat, and a restart
    /// must not send it to `not_home` meanwhile.
    @Test func restoredStillBeaconSurvivesAHeartbeatGap() throws {
        var core = AggregatorCore(configuration: AggregatorConfiguration(), softwareVersion: "test")
        let retained = BeaconLocation(
            id: beaconID.rawValue, beacon: beaconID, name: "x", room: "office", distance: 2, proximity: .near,
            node: "office-1", since: startTime + (-3600), confidence: 0.8, candidates: ["office": 2])
        _ = core.restore(retained, at: startTime)
        for second in stride(from: 1.0, through: 149, by: 1) {
            #expect(core.tick(at: startTime + second).allSatisfy { $0.topic.hasPrefix("presence/rooms/") })
        }
        #expect(core.location(of: beaconID)?.room == "office")
        let away = core.tick(at: startTime + 150)
        #expect(payload(away, "presence/locations/\(beaconID.rawValue)/room") == "not_home")
    }

    /// A device with an away timeout of its own longer than `staleAfter` (a phone, silent for
    /// minutes when locked) keeps its restored room for that long after a restart; one with a
    /// shorter own timeout still gets `staleAfter`.
    @Test func restoredDeviceWaitsItsOwnAwayTimeout() throws {
        let phone = BeaconID(rawValue: "irk-2178bafcf505"), tag = beaconID
        var configuration = AggregatorConfiguration()
        configuration.knownBeacons = [
            KnownBeacon(beacon: phone, alias: TopicLevelID("carol-phone"), name: "Carol's phone", awayTimeout: 300),
            KnownBeacon(beacon: tag, alias: TopicLevelID("alice-keys"), name: "Alice's keys", awayTimeout: 10),
        ]
        var core = AggregatorCore(configuration: configuration, softwareVersion: "test")
        for (id, beacon) in [("carol-phone", phone), ("alice-keys", tag)] {
            _ = core.restore(BeaconLocation(id: id, beacon: beacon, name: id, room: "office", distance: 2, proximity: .near,
                                            node: "office-1", since: startTime + (-3600), confidence: 0.8,
                                            candidates: ["office": 2]), at: startTime)
        }
        _ = core.tick(at: startTime + 149)
        #expect(core.location(of: tag)?.room == "office")
        _ = core.tick(at: startTime + 150)
        #expect(core.location(of: tag)?.room == RoomDecision.notHome)
        #expect(core.location(of: phone)?.room == "office")
        _ = core.tick(at: startTime + 299)
        #expect(core.location(of: phone)?.room == "office")
        _ = core.tick(at: startTime + 300)
        #expect(core.location(of: phone)?.room == RoomDecision.notHome)
    }

    /// "The node no longer hears it" (proximity unknown, no distance) is accepted and does not
    /// make a new beacon appear or refresh when a beacon was last heard.
    @Test func silenceMeasurementIsAccepted() throws {
        let silence = try ReceivedMeasurement(
            payload: Array(measurementJSON(beaconID, node: "kitchen-1", room: "kitchen", distance: nil).utf8),
            topicNode: "kitchen-1")
        #expect(silence.distance == nil)
        #expect(silence.proximity == .unknown)
        #expect(silence.isSilence)
        var core = core()
        #expect(core.receive(silence, at: startTime).isEmpty)
        #expect(core.trackedBeacons.isEmpty)

        _ = core.receive(measurement("kitchen-1", "kitchen", 1), at: startTime)
        let placed = core.tick(at: startTime + 1)
        #expect(payload(placed, "presence/locations/alice-keys/room") == "kitchen")
        _ = core.receive(silence, at: startTime + 2)
        // The silence says the only node no longer hears it: away counts from then (t+2).
        #expect(payload(core.tick(at: startTime + 31), "presence/locations/alice-keys/room") == nil)
        let away = core.tick(at: startTime + 32)
        #expect(payload(away, "presence/locations/alice-keys/room") == "not_home")
    }

    /// Configured floors: the location carries its room's floor (none away), a restored one keeps
    /// it, and Home Assistant gets a floor sensor per beacon with the floors as options.
    @Test func floorsInTheLocationAndAFloorSensor() throws {
        var core = core { $0.floors = ["kitchen": "ground", "bedroom": "upstairs"] }
        let first = core.receive(measurement("kitchen-1", "kitchen", 1), at: startTime)
        let floorConfig = try #require(first.last { $0.topic == "homeassistant/sensor/beaconpresence_presence/alice-keys_floor/config" })
        #expect(floorConfig.payload.contains(#""options":["ground","upstairs","not_home"]"#))
        #expect(floorConfig.payload.contains(#""state_topic":"presence/locations/alice-keys""#))
        #expect(floorConfig.payload.contains(#""device_class":"enum""#))
        let placed = core.tick(at: startTime + 1)
        let location = try #require(payload(placed, "presence/locations/alice-keys"))
        #expect(location.hasPrefix(#"{"id":"alice-keys","beacon":"\#(beaconID.rawValue)","name":"Alice's keys","room":"kitchen","floor":"ground","distance":"#))
        #expect(BeaconLocation(retainedPayload: Array(location.utf8))?.floor == "ground")
        let silence = try ReceivedMeasurement(
            payload: Array(measurementJSON(beaconID, node: "kitchen-1", room: "kitchen", distance: nil).utf8), topicNode: "kitchen-1")
        _ = core.receive(silence, at: startTime + 2)
        let away = core.tick(at: startTime + 32)
        let gone = try #require(payload(away, "presence/locations/alice-keys"))
        #expect(gone.contains(#""room":"not_home""#) && !gone.contains("floor"))
        // Without floors: no floor sensor, no floor field.
        var plain = self.core()
        #expect(!plain.receive(measurement("kitchen-1", "kitchen", 1), at: startTime).contains { $0.topic.hasSuffix("_floor/config") })
        #expect(payload(plain.tick(at: startTime + 1), "presence/locations/alice-keys")?.contains("floor") == false)
    }

    @Test func discoveryOffPublishesNoDiscovery() {
        var core = core { $0.homeAssistantDiscovery = false }
        let first = core.receive(measurement("kitchen-1", "kitchen", 1), at: startTime)
        #expect(first.isEmpty)
        #expect(core.discoveryMessages().isEmpty)
        let placed = core.tick(at: startTime + 1)
        #expect(!placed.contains { $0.topic.hasPrefix("homeassistant/") })
        #expect(core.retainedState().map(\.topic) == [
            "presence/locations/alice-keys", "presence/locations/alice-keys/room", "presence/rooms/kitchen",
        ])
    }

    /// Between room changes a location is re-published only when something a user sees changed;
    /// the room's list, whose membership did not change, follows at the next tick.
    @Test func locationRepublishedOnlyOnSignificantChange() {
        var core = core()
        _ = core.receive(measurement("kitchen-1", "kitchen", 1.0), at: startTime)
        _ = core.tick(at: startTime + 1)
        #expect(core.receive(measurement("kitchen-1", "kitchen", 1.02), at: startTime + 2).isEmpty)
        #expect(core.location(of: beaconID)?.distance == 1.02)
        #expect(core.tick(at: startTime + 2.5).isEmpty)
        let moved = core.receive(measurement("kitchen-1", "kitchen", 1.6), at: startTime + 3)
        #expect(moved.map(\.topic) == ["presence/locations/alice-keys"])
        #expect(core.location(of: beaconID)?.since == startTime + 1)
        let ticked = core.tick(at: startTime + 4)
        #expect(ticked.map(\.topic) == ["presence/rooms/kitchen"])
        #expect(payload(ticked, "presence/rooms/kitchen")
            == #"{"room":"kitchen","occupants":[{"id":"alice-keys","name":"Alice's keys","since":"2025-11-22T08:00:01.000Z","distance":1.6}],"count":1}"#)
        #expect(core.tick(at: startTime + 5).isEmpty)  // once
    }

    /// A room's message is published once per call however many beacons enter or leave it, and at
    /// once when its membership changes.
    @Test func roomMessageOncePerCallWithEveryOccupant() {
        var core = core()
        let strangers = (1...3).map { BeaconID(rawValue: "mac-00000000000\($0)") }
        for stranger in strangers {
            _ = core.receive(ReceivedMeasurement(beacon: stranger, node: "hall-1", room: "hall", distance: 2, proximity: .near),
                             at: startTime)
        }
        let placed = core.tick(at: startTime + 1)
        #expect(placed.filter { $0.topic == "presence/rooms/hall" }.count == 1)
        #expect(placed.filter { $0.topic == "presence/events" }.count == 3)
        #expect(payload(placed, "presence/rooms/hall")?.contains(#""count":3"#) == true)
        #expect(payload(placed, "presence/rooms/hall")?.contains(#"{"id":"mac-000000000001","name":"mac-000000000001","since":"2025-11-22T08:00:01.000Z","distance":2}"#) == true)
        // One leaves (every node says it no longer hears it): the list changes at its away timeout.
        _ = core.receive(ReceivedMeasurement(beacon: strangers[1], node: "hall-1", room: "hall", distance: nil, proximity: .unknown),
                         at: startTime + 2)
        let away = core.tick(at: startTime + 32)
        #expect(away.filter { $0.topic == "presence/rooms/hall" }.count == 1)
        #expect(payload(away, "presence/rooms/hall")?.contains(#""count":2"#) == true)
        #expect(payload(away, "presence/rooms/hall")?.contains("mac-000000000002") == false)
    }

    /// A forgotten beacon that comes back is a new beacon: discovery again, then `arrived`.
    @Test func forgottenBeaconComesBack() {
        var core = core { $0.forgetAfter = 60 }
        let stranger = ReceivedMeasurement(beacon: otherBeaconID, node: "hall-1", room: "hall", distance: 1, proximity: .near)
        let id = otherBeaconID.rawValue
        _ = core.receive(stranger, at: startTime)
        #expect(payload(core.tick(at: startTime + 1), "presence/locations/\(id)/room") == "hall")
        let gone = ReceivedMeasurement(beacon: otherBeaconID, node: "hall-1", room: "hall", distance: nil, proximity: .unknown)
        _ = core.receive(gone, at: startTime + 5)
        #expect(payload(core.tick(at: startTime + 35), "presence/locations/\(id)/room") == "not_home")
        let forgotten = core.tick(at: startTime + 60)
        // The entities go before their state topics are cleared (an empty room is no option).
        #expect(forgotten.filter { $0.payload.isEmpty && $0.retain }.map(\.topic) == [
            "homeassistant/device_tracker/beaconpresence_presence/\(id)_tracker/config",
            "homeassistant/sensor/beaconpresence_presence/\(id)_room/config",
            "homeassistant/sensor/beaconpresence_presence/\(id)_distance/config",
            "presence/locations/\(id)", "presence/locations/\(id)/room",
        ])
        #expect(core.trackedBeacons.isEmpty)

        let back = core.receive(stranger, at: startTime + 100)
        #expect(back.count == 3)  // discovery only; no stale `not_home`, no event
        #expect(back.allSatisfy { $0.topic.hasPrefix("homeassistant/") })
        let arrived = core.tick(at: startTime + 101)
        #expect(payload(arrived, "presence/events")
            == #"{"type":"arrived","id":"\#(id)","from":null,"to":"hall","at":"2025-11-22T08:01:41.000Z"}"#)
    }

    /// Room lists are kept up to date part by part (arrivals, departures, distance changes): after
    /// a seeded random walk of 40 beacons through three rooms, every room message published is
    /// valid JSON listing, by id, exactly the beacons whose published location is that room, with
    /// that location's distance.
    @Test func roomListsStayExactUnderRandomMoves() throws {
        var core = core { $0.homeAssistantDiscovery = false }
        var random = SeededRandom(seed: 0x200)
        let beacons = (0..<40).map { BeaconID(rawValue: "mac-0000000000\(String(format: "%02d", $0))") }
        let rooms = ["hall", "kitchen", "office"]
        var home = beacons.map { _ in Int.random(in: 0..<3, using: &random) }
        var published: [String: String] = [:]  // location topic → payload
        var checkedRooms = 0
        for second in 0..<240 {
            var out: [AggregatorPublication] = []
            for (index, beacon) in beacons.enumerated() {
                if Int.random(in: 0..<40, using: &random) == 0 { home[index] = Int.random(in: 0..<4, using: &random) }
                for (room, name) in rooms.enumerated() {
                    let time = startTime + Double(second) + Double(index * 3 + room) / 200
                    // home 3: gone (every node says it no longer hears it).
                    let distance: Double? = home[index] == 3 ? nil
                        : (room == home[index] ? 1 : 5) * Double.random(in: 0.7...1.4, using: &random)
                    out += core.receive(ReceivedMeasurement(beacon: beacon, node: name + "-1", room: name, distance: distance,
                                                            proximity: distance == nil ? .unknown : .near), at: time)
                }
            }
            out += core.tick(at: startTime + Double(second + 1))
            for publication in out where publication.topic.hasPrefix("presence/locations/") && !publication.topic.hasSuffix("/room") {
                published[publication.topic] = publication.payload
            }
            // Each room's last message of this second against the published locations.
            for room in rooms {
                guard let payload = out.last(where: { $0.topic == "presence/rooms/\(room)" })?.payload else { continue }
                guard case .object(let message) = try JSONParser.parse(Array(payload.utf8), maximumBytes: 1 << 20, maximumDepth: 4),
                    case .array(let occupants)? = message["occupants"], case .number(let count)? = message["count"]
                else {
                    Issue.record("not a room message: \(payload)")
                    continue
                }
                #expect(Int(count.double) == occupants.count)
                var ids: [String] = []
                for case .object(let occupant) in occupants {
                    guard case .string(let id)? = occupant["id"] else { continue }
                    ids.append(id)
                    guard let location = published["presence/locations/\(id)"],
                        case .object(let fields) = try JSONParser.parse(Array(location.utf8), maximumBytes: 4096, maximumDepth: 4)
                    else {
                        Issue.record("\(id) listed in \(room) without a location")
                        continue
                    }
                    #expect(fields["room"] == .string(room))
                    #expect(fields["distance"] == occupant["distance"])
                }
                #expect(ids == ids.sorted())
                let expected = published.compactMap { topic, location -> String? in
                    location.contains(#""room":"\#(room)""#) ? String(topic.dropFirst("presence/locations/".count)) : nil
                }
                #expect(ids == expected.sorted(), "second \(second), \(room)")
                checkedRooms += 1
            }
        }
        #expect(checkedRooms > 100)
    }

    /// Random and truncated payloads never crash the parsers the broker feeds.
    @Test func parsersNeverTrapOnRandomInput() {
        var generator = SeededGenerator(seed: 0x5EED)
        let valid = Array(measurementJSON(beaconID, node: "kitchen-1", room: "kitchen", distance: 1.5).utf8)
        let location = Array(BeaconLocation(
            id: "alice-keys", beacon: beaconID, name: "A", room: "office", distance: 2, proximity: .near, node: "o-1",
            since: startTime, confidence: 0.5, candidates: ["office": 2]).json.utf8)
        var accepted = 0
        for round in 0..<5000 {
            var bytes: [UInt8]
            switch round % 3 {
            case 0: bytes = Array(valid.prefix(Int.random(in: 0...valid.count, using: &generator)))
            case 1:
                bytes = valid
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
            default: bytes = (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            }
            if (try? ReceivedMeasurement(payload: bytes, topicNode: "kitchen-1")) != nil { accepted += 1 }
            _ = BeaconLocation(retainedPayload: bytes)
            _ = BeaconLocation(retainedPayload: Array(location.prefix(bytes.count % (location.count + 1))))
        }
        #expect(accepted < 5000)
        #expect((try? ReceivedMeasurement(payload: valid, topicNode: "kitchen-1")) != nil)
    }
}

/// SplitMix64: a small seeded generator, so random tests repeat exactly.
typealias SeededGenerator = SeededRandom
