import BeaconCore
import RoomDecisions
import PresenceAggregator
import TestSupport
import Testing

/// The operator's retained `<root>/config/beacons` at the aggregator, without a broker: names,
/// ids and away timeouts pushed there take effect; the file's own entries win; a bad message
/// changes nothing; a cleared topic leaves the file's list alone. Time is the instants passed in.
@Suite struct AggregatorPushedBeaconsTests {
    static let alice = KnownBeacon(beacon: beaconID, alias: TopicLevelID("alice-keys"), name: "Alice's keys")
    static let bob = otherBeaconID
    static let bobTracker = "homeassistant/device_tracker/beaconpresence_presence/bob-keys_tracker/config"

    private func core(file: [KnownBeacon] = [], _ configure: (inout AggregatorConfiguration) -> Void = { _ in }) -> AggregatorCore {
        var configuration = AggregatorConfiguration.default
        configuration.knownBeacons = file
        configuration.decision = RoomDecisionParameters(
            settleTime: 1, staleAfter: 12, awayTimeout: 30,
            rule: SwitchingRule(margin: 0.25, dwell: 1.5, evidenceToSwitch: 1.5, leadCap: 3))
        configure(&configuration)
        return AggregatorCore(configuration: configuration, softwareVersion: "1.0")
    }

    private func heard(_ beacon: BeaconID, _ distance: Double?, name: String? = nil) -> ReceivedMeasurement {
        ReceivedMeasurement(beacon: beacon, name: name, node: "office-1", room: "office", rssiFiltered: -70, sigma: 1,
                            distance: distance, proximity: distance == nil ? .unknown : .near)
    }

    /// Heard twice and placed in the office by a tick, at `time`, `time + 2`, `time + 3`.
    private func place(_ beacon: BeaconID, in core: inout AggregatorCore, at time: Instant) -> [AggregatorPublication] {
        var out = core.receive(heard(beacon, 2), at: time)
        out += core.receive(heard(beacon, 2), at: time + 2)
        out += core.tick(at: time + 3)
        return out
    }

    private func push(_ json: String, to core: inout AggregatorCore) throws -> [AggregatorPublication] {
        try core.applyPushedBeacons(Array(json.utf8))
    }

    private func payload(_ publications: [AggregatorPublication], _ topic: String) -> String? {
        publications.last { $0.topic == topic }?.payload
    }

    private func json(_ text: String?) throws -> JSONObject {
        guard case .object(let object) = try JSONParser.parse(Array((text ?? "").utf8)) else { throw TimedOut(what: "an object") }
        return object
    }

    @Test func aPushedNameAndIdReachTheLocationTheRoomAndHomeAssistant() throws {
        var core = core()
        _ = place(Self.bob, in: &core, at: startTime)
        let canonical = Self.bob.rawValue
        #expect(core.location(of: Self.bob)?.name == canonical)

        let named = try push(#"{"revision":3,"beacons":[{"beacon":"\#(canonical)","id":"bob-keys","name":"Bob's keys"}]}"#,
                             to: &core)
        // Its topics move to the alias: the old ones and their Home Assistant entities are cleared.
        #expect(payload(named, "presence/locations/\(canonical)") == "")
        #expect(payload(named, "presence/locations/\(canonical)/room") == "")
        #expect(payload(named, "homeassistant/device_tracker/beaconpresence_presence/\(canonical)_tracker/config") == "")
        let location = try json(payload(named, "presence/locations/bob-keys"))
        #expect(location.string("id") == "bob-keys")
        #expect(location.string("name") == "Bob's keys")
        #expect(location.string("room") == "office")
        #expect(payload(named, "presence/locations/bob-keys/room") == "office")
        #expect(try json(payload(named, Self.bobTracker)).object("device")?.string("name") == "Bob's keys")
        let room = try json(payload(named, "presence/rooms/office"))
        #expect(room.number("count") == 1)
        #expect(payload(named, "presence/rooms/office")?.contains(#""id":"bob-keys","name":"Bob's keys""#) == true)
        #expect(!named.contains { $0.topic == "presence/events" })

        // The same list again (a reconnect) is no news.
        #expect(try push(#"{"revision":3,"beacons":[{"beacon":"\#(canonical)","id":"bob-keys","name":"Bob's keys"}]}"#,
                         to: &core).isEmpty)

        // A new name alone: the discovery configs are re-published with it, on the same topics.
        let renamed = try push(
            #"{"revision":4,"beacons":[{"beacon":"\#(canonical)","id":"bob-keys","name":"Bob's spare keys"}]}"#, to: &core)
        #expect(try json(payload(renamed, Self.bobTracker)).object("device")?.string("name") == "Bob's spare keys")
        #expect(try json(payload(renamed, "presence/locations/bob-keys")).string("name") == "Bob's spare keys")
        #expect(payload(renamed, "presence/rooms/office")?.contains(#""name":"Bob's spare keys""#) == true)
        #expect(!renamed.contains { $0.payload.isEmpty })
        #expect(core.location(of: Self.bob)?.name == "Bob's spare keys")

        // A beacon first heard after the push is named by it from its first message.
        let carol = BeaconID(rawValue: "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-9-9")
        _ = try push(#"{"revision":5,"beacons":[{"beacon":"\#(carol)","id":"carol-bag","name":"Carol's bag"}]}"#, to: &core)
        let first = place(carol, in: &core, at: startTime + 10)
        #expect(try json(payload(first, "presence/locations/carol-bag")).string("name") == "Carol's bag")
        #expect(!first.contains { $0.topic.contains(carol.rawValue) && !$0.topic.hasPrefix("homeassistant/") })
    }

    /// A location restored at start before the list is handled moves to the pushed id, room kept,
    /// with no event: the restart must not look like a move.
    @Test func aRestoredBeaconFollowsAListHandledAfterIt() throws {
        var core = core()
        let retained = BeaconLocation(
            id: Self.bob.rawValue, beacon: Self.bob, name: Self.bob.rawValue, room: "office", distance: 2, proximity: .near,
            node: "office-1", since: startTime + (-3600), confidence: 0.8, candidates: ["office": 2])
        _ = core.restore(retained, at: startTime)
        let out = try push(#"{"revision":3,"beacons":[{"beacon":"\#(Self.bob)","id":"bob-keys","name":"Bob's keys"}]}"#, to: &core)
        let moved = try json(payload(out, "presence/locations/bob-keys"))
        #expect(moved.string("room") == "office")
        #expect(moved.string("name") == "Bob's keys")
        #expect(moved.string("since") == "2025-11-22T07:00:00.000Z")
        #expect(payload(out, "presence/locations/bob-keys/room") == "office")
        #expect(payload(out, "presence/locations/\(Self.bob)") == "")
        #expect(!out.contains { $0.topic == "presence/events" })
    }

    @Test func aPushedAwayTimeoutDecidesWhenTheDeviceIsAway() throws {
        var core = core()
        _ = place(Self.bob, in: &core, at: startTime)
        _ = try push(#"{"revision":1,"beacons":[{"beacon":"\#(Self.bob)","id":"bob-keys","awayTimeout":300}]}"#, to: &core)
        _ = core.receive(heard(Self.bob, nil), at: startTime + 4)
        // The site's away timeout (30 s) passes: not yet away.
        var out = core.tick(at: startTime + 60)
        out += core.tick(at: startTime + 250)
        #expect(!out.contains { $0.topic == "presence/locations/bob-keys/room" && $0.payload == "not_home" })
        #expect(core.location(of: Self.bob)?.room == "office")
        out = core.tick(at: startTime + 310)
        #expect(payload(out, "presence/locations/bob-keys/room") == "not_home")

        // Without its entry it is back on the site's away timeout.
        _ = place(Self.bob, in: &core, at: startTime + 400)
        _ = try core.applyPushedBeacons([])
        _ = core.receive(heard(Self.bob, nil), at: startTime + 404)
        out = core.tick(at: startTime + 440)
        #expect(payload(out, "presence/locations/\(Self.bob)/room") == "not_home")
    }

    /// A pushed awayTimeout beyond forgetAfter is cut to forgetAfter (and said so, naming the field);
    /// the rest of the message applies.
    @Test func aPushedAwayTimeoutLongerThanForgetAfterIsCutToIt() throws {
        var core = core { $0.forgetAfter = 120 }
        _ = place(Self.bob, in: &core, at: startTime)
        _ = try push(#"{"revision":1,"beacons":[{"beacon":"\#(Self.bob)","id":"bob-keys","name":"Bob","awayTimeout":600}]}"#,
                     to: &core)
        #expect(core.knownBeacons.notes.map(\.path.description) == ["beacons[0].awayTimeout"])
        #expect(core.knownBeacons.byBeacon[Self.bob]?.awayTimeout == 120)
        #expect(core.location(of: Self.bob)?.name == "Bob")
        _ = core.receive(heard(Self.bob, nil), at: startTime + 4)
        #expect(payload(core.tick(at: startTime + 100), "presence/locations/bob-keys/room") == nil)
        #expect(payload(core.tick(at: startTime + 130), "presence/locations/bob-keys/room") == "not_home")
    }

    @Test func theFilesEntryWinsOverAPushedOne() throws {
        var core = core(file: [Self.alice])
        _ = place(beaconID, in: &core, at: startTime)
        let out = try push(#"""
            {"revision":2,"beacons":[{"beacon":"\#(beaconID)","id":"keys","name":"Keys","awayTimeout":900},
              {"beacon":"\#(Self.bob)","id":"alice-keys","name":"Not Alice"},
              {"beacon":"ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-9-9","id":"carol-bag"}]}
            """#, to: &core)
        #expect(out.isEmpty)
        #expect(core.location(of: beaconID)?.id == "alice-keys")
        #expect(core.location(of: beaconID)?.name == "Alice's keys")
        #expect(core.knownBeacons.byBeacon[beaconID] == Self.alice)
        // Bob's alias is the file's Alice's: not used. Carol's entry applies.
        #expect(core.knownBeacons.byBeacon[Self.bob] == nil)
        #expect(core.knownBeacons.byBeacon["ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-9-9"]?.topicID == "carol-bag")
        #expect(core.knownBeacons.notes.map(\.path.description) == ["beacons[0]", "beacons[1].id"])
        // The file's entry keeps the site's away timeout, not the pushed 900 s.
        _ = core.receive(heard(beaconID, nil), at: startTime + 4)
        #expect(payload(core.tick(at: startTime + 40), "presence/locations/alice-keys/room") == "not_home")
    }

    @Test func anInvalidMessageKeepsTheLastGoodListAndNamesTheField() throws {
        var core = core()
        _ = place(Self.bob, in: &core, at: startTime)
        _ = try push(#"{"revision":3,"beacons":[{"beacon":"\#(Self.bob)","id":"bob-keys","name":"Bob's keys"}]}"#, to: &core)

        let bad = [
            (#"{"revision":4,"beacons":[{"beacon":"\#(Self.bob)","id":"bob-keys","name":""}]}"#, "beacons[0].name"),
            (#"{"revision":4,"beacons":[{"beacon":"\#(Self.bob)","id":"Bob Keys"}]}"#, "beacons[0].id"),
            (#"{"revision":4,"beacons":[{"beacon":"\#(Self.bob)","awayTimeout":0}]}"#, "beacons[0].awayTimeout"),
            (#"{"revision":4,"beacons":[{"beacon":"\#(Self.bob)","colour":"red"}]}"#, "beacons[0].colour"),
            (#"{"revision":4,"beacons":[{"beacon":"\#(Self.bob)"#, "beacons[0].beacon"),
            (#"{"beacons":[]}"#, "revision"),
        ]
        for (message, field) in bad {
            let error = try #require(throws: ConfigError.self) { try push(message, to: &core) }
            #expect(error.path.description == field, "\(error)")
        }
        let tooLarge = try #require(throws: ConfigError.self) {
            try core.applyPushedBeacons(Array(repeating: UInt8(ascii: " "), count: JSONParser.defaultMaximumBytes + 1))
        }
        #expect(tooLarge.code == .payloadTooLarge)
        #expect(core.knownBeacons.pushed?.revision == 3)
        #expect(core.location(of: Self.bob)?.id == "bob-keys")
        #expect(core.location(of: Self.bob)?.name == "Bob's keys")
    }

    /// A phone pushed by its key is known by the id cut from the key; the key is not kept.
    @Test func aDevicePushedByItsKeyIsKnownByItsIdAndTheKeyIsDropped() throws {
        var core = core()
        _ = try push(#"{"revision":1,"beacons":[{"irk":"ec0234a357c8ad05341010a60a397d9b","id":"alice-phone","name":"Alice's iPhone","awayTimeout":600}]}"#,
                     to: &core)
        let phone: BeaconID = "irk-54903897edb0"
        #expect(core.knownBeacons.byBeacon[phone]?.topicID == "alice-phone")
        #expect(core.knownBeacons.byBeacon[phone]?.awayTimeout == 600)
        #expect(core.knownBeacons.byBeacon[phone]?.irk == nil)
        #expect(core.knownBeacons.pushed?.beacons.allSatisfy { $0.irk == nil } == true)
        let out = place(phone, in: &core, at: startTime)
        #expect(try json(payload(out, "presence/locations/alice-phone")).string("name") == "Alice's iPhone")
    }

    /// Clearing the topic forgets the pushed list: the beacon is published under its canonical id
    /// again, and is again an unknown beacon, forgotten once unheard for forgetAfter.
    @Test func clearingTheTopicForgetsThePushedList() throws {
        var core = core { $0.forgetAfter = 100 }
        _ = place(Self.bob, in: &core, at: startTime)
        _ = try push(#"{"revision":3,"beacons":[{"beacon":"\#(Self.bob)","id":"bob-keys","name":"Bob's keys"}]}"#, to: &core)
        _ = core.receive(heard(Self.bob, nil), at: startTime + 4)
        // Known: away, but not forgotten.
        _ = core.tick(at: startTime + 150)
        #expect(core.location(of: Self.bob)?.room == "not_home")

        let cleared = try core.applyPushedBeacons([])
        #expect(core.knownBeacons.pushed == nil)
        #expect(payload(cleared, "presence/locations/bob-keys") == "")
        #expect(payload(cleared, Self.bobTracker) == "")
        #expect(try json(payload(cleared, "presence/locations/\(Self.bob)")).string("name") == Self.bob.rawValue)
        #expect(core.location(of: Self.bob)?.id == Self.bob.rawValue)
        // Unheard for more than forgetAfter: forgotten at the next tick.
        let forgotten = core.tick(at: startTime + 151)
        #expect(payload(forgotten, "presence/locations/\(Self.bob)") == "")
        #expect(core.location(of: Self.bob) == nil)
    }

    /// A beacon made known by the pushed list is never evicted by maxUnknownBeacons.
    @Test func aPushedBeaconIsNeverEvicted() throws {
        var core = core { $0.maxUnknownBeacons = 1 }
        _ = place(Self.bob, in: &core, at: startTime)
        _ = try push(#"{"revision":1,"beacons":[{"beacon":"\#(Self.bob)","id":"bob-keys"}]}"#, to: &core)
        #expect(core.trackedUnknownBeaconCount == 0)
        for minor in 10..<14 {
            _ = core.receive(heard(BeaconID(rawValue: "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-1-\(minor)"), 3), at: startTime + 5)
        }
        #expect(core.location(of: Self.bob)?.room == "office")
        #expect(core.trackedUnknownBeaconCount == 1)
        #expect(core.evictedBeacons == 3)
    }
}
