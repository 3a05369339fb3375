import BeaconCore
import BluetoothHCI
import Testing
import TestSupport
@testable import PresenceAgent

/// The agent's decisions on real HCI bytes: the horizon capture replayed through the core with the
/// capture's own clock, as `presence-agent run --source btsnoop:… --speed 0` does.
@Suite struct AgentCoreTests {
    static let uuid = "494e5445-4c4c-495f-524f-434b535f4857"
    static let beacon = "ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20594-62207"
    let settings = AgentCore.Settings(node: TopicLevelID("test")!, room: TopicLevelID("lab")!)

    /// Replays the capture, ticking once per capture second; returns every publication in order.
    func replay(_ core: inout AgentCore, extraSeconds: Double = 0) throws -> [AgentPublication] {
        var options = FeedOptions()
        options.speed = 0
        let feed = try AdvertisementFeeds.open(.btsnoop(path: try RecordedData.path(RecordedData.horizonCapture)), options: options)
        var out: [AgentPublication] = []
        var lastTick: Instant?
        func take(_ actions: [AgentAction]) {
            for case .publish(let publication) in actions { out.append(publication) }
        }
        var adverts: [DecodedAdvertisement] = []
        while try feed.poll(timeout: 0, { adverts.append($0) }) {}
        for advert in adverts {
            if lastTick == nil || advert.time - lastTick! >= 1 {
                take(core.tick(at: advert.time))
                lastTick = advert.time
            }
            take(core.observe(advert))
        }
        if let last = adverts.last?.time {
            var t = last
            while t < last + extraSeconds {
                t = t + 1
                take(core.tick(at: t))
            }
        }
        return out
    }

    func regionsMessage(_ json: String) -> [UInt8] { Array(json.utf8) }

    @Test func captureWithARegionGivesStateEnterAndMeasurements() throws {
        let start = Instant(seconds: 1_612_150_079)
        var core = AgentCore(settings: settings, at: start)
        let answer = core.receiveConfiguration(
            topic: "presence/config/regions",
            payload: regionsMessage(#"{"revision":7,"regions":[{"id":"office","uuid":"\#(Self.uuid)"}]}"#), at: start)
        let status = answer.compactMap { if case .publish(let p) = $0 { p } else { nil } }
        #expect(status.map(\.topic).contains("presence/nodes/test/config/status"))
        #expect(status.first { $0.topic.hasSuffix("config/status") }?.text.hasPrefix(#"{"status":"ok","topic":"presence/config/regions","revision":7,"regions":1,"appliedAt":"#) == true)
        #expect(answer.contains(.persist(file: "regions.json", contents: regionsMessage(#"{"revision":7,"regions":[{"id":"office","uuid":"\#(Self.uuid)"}]}"#))))

        let published = status + (try replay(&core, extraSeconds: 40))
        let states = published.filter { $0.topic == "presence/nodes/test/regions/office/state" }.map(\.text)
        #expect(states.first == "unknown")
        #expect(states.contains("inside"))
        let events = published.filter { $0.topic == "presence/nodes/test/regions/office/event" }
        #expect(events.filter { $0.text.contains(#""event":"enter""#) }.count == 1)
        #expect(events.first?.text.contains(#""region":"office","node":"test","room":"lab","beacon":"\#(Self.beacon)""#) == true)
        #expect(events.allSatisfy { $0.qos == .atLeastOnce && !$0.retain })

        let measurements = published.filter { $0.topic == "presence/beacons/\(Self.beacon)/test" }
        #expect(!measurements.isEmpty)
        #expect(measurements.count < 11)  // never once per advertisement
        let first = try #require(measurements.first?.text)
        #expect(first.hasPrefix(#"{"id":"\#(Self.beacon)","beacon":"\#(Self.beacon)","node":"test","room":"lab","rssi":-49,"#))
        #expect(first.contains(#""measuredPower":-62"#) && first.contains(#""format":"ibeacon","uuid":"\#(Self.uuid)","major":20594,"minor":62207"#))
        // The second sensor (major 20597) is in the region too.
        #expect(published.contains { $0.topic == "presence/beacons/ibeacon-494e5445-4c4c-495f-524f-434b535f4857-20597-62207/test" })
        // Nothing else in the capture matches a region or a known beacon, so nothing else is measured.
        #expect(published.filter { $0.topic.hasPrefix("presence/beacons/") }.allSatisfy { $0.topic.contains(Self.uuid.prefix(8)) })
        // After the capture, silence: the beacons turn unknown, then the region is left after the exit delay.
        #expect(measurements.last?.text.contains(#""proximity":"unknown""#) == true)
        #expect(states.last == "outside")
        #expect(events.last?.text.contains(#""event":"exit""#) == true)
    }

    @Test func anInvalidMessageIsAnsweredWithTheFieldAndChangesNothing() throws {
        let start = Instant(seconds: 0)
        var core = AgentCore(settings: settings, at: start)
        _ = core.receiveConfiguration(topic: "presence/config/regions",
                                      payload: regionsMessage(#"{"revision":7,"regions":[{"id":"office","uuid":"\#(Self.uuid)"}]}"#), at: start)
        let actions = core.receiveConfiguration(topic: "presence/config/regions",
                                                payload: regionsMessage(#"{"revision":8,"regions":[{"id":"office","uuid":"abc"}]}"#), at: start + 1)
        let status = actions.compactMap { if case .publish(let p) = $0 { p } else { nil } }
        #expect(status.map(\.text) == [#"{"status":"error","topic":"presence/config/regions","revision":8,"error":"regions[0].uuid: 'abc' is not a UUID","keptRevision":7}"#])
        #expect(!actions.contains { if case .persist = $0 { true } else { false } })
        #expect(core.regionCount == 1)
        #expect(core.retainedPublications().contains(status[0]))
    }

    @Test func anEmptyMessageClearsAndRemovesTheStateTopic() throws {
        let start = Instant(seconds: 0)
        var core = AgentCore(settings: settings, at: start)
        _ = core.receiveConfiguration(topic: "presence/config/regions",
                                      payload: regionsMessage(#"{"revision":7,"regions":[{"id":"office","uuid":"\#(Self.uuid)"}]}"#), at: start)
        let actions = core.receiveConfiguration(topic: "presence/config/regions", payload: [], at: start + 1)
        #expect(actions.contains(.publish(AgentPublication(topic: "presence/nodes/test/regions/office/state", payload: [], qos: .atLeastOnce, retain: true))))
        #expect(actions.contains(.persist(file: "regions.json", contents: nil)))
        #expect(core.regionCount == 0)
    }

    @Test func persistedConfigurationIsBackAfterARestart() throws {
        let start = Instant(seconds: 0)
        let saved = regionsMessage(#"{"revision":7,"regions":[{"id":"office","uuid":"\#(Self.uuid)"}]}"#)
        let core = AgentCore(settings: settings, persisted: ["regions.json": saved, "node.json": Array(#"{"revision":2,"room":"kitchen"}"#.utf8)], at: start)
        #expect(core.regionCount == 1)
        #expect(core.room.rawValue == "kitchen")
        #expect(core.configRevisionJSON == #"{"regions":7,"node":2}"#)
        let broken = AgentCore(settings: settings, persisted: ["regions.json": Array("{not json".utf8)], at: start)
        #expect(broken.regionCount == 0)
    }

    /// A restart while the beacon is still there: the region comes back `inside` from the state
    /// directory, so there is no second `enter`; it still exits after the exit delay.
    @Test func aRestoredInsideRegionGivesNoSecondEnter() throws {
        let start = Instant(seconds: 1_612_150_079)
        let saved = regionsMessage(#"{"revision":7,"regions":[{"id":"office","uuid":"\#(Self.uuid)"}]}"#)
        var core = AgentCore(settings: settings, persisted: [
            "regions.json": saved, "region-states.json": Array(#"{"office":"inside"}"#.utf8),
        ], at: start)
        #expect(core.retainedPublications().contains { $0.topic == "presence/nodes/test/regions/office/state" && $0.text == "inside" })
        let published = try replay(&core, extraSeconds: 40)
        let events = published.filter { $0.topic == "presence/nodes/test/regions/office/event" }.map(\.text)
        #expect(events.count == 1)
        #expect(events.first?.contains(#""event":"exit""#) == true)
        #expect(published.filter { $0.topic == "presence/nodes/test/regions/office/state" }.map(\.text) == ["outside"])

        // What is saved follows the state: outside now.
        var fresh = AgentCore(settings: settings, at: start)
        let applied = fresh.receiveConfiguration(topic: "presence/config/regions", payload: saved, at: start)
        #expect(!applied.contains { if case .persist(file: "region-states.json", _) = $0 { true } else { false } })
        let corrupt = AgentCore(settings: settings, persisted: ["regions.json": saved, "region-states.json": Array("[1]".utf8)], at: start)
        #expect(corrupt.rejectedStateFiles == ["region-states.json"])
        #expect(corrupt.regionCount == 1)
    }

    @Test func knownBeaconsUseTheirAliasInTopicsAndPayloads() throws {
        let start = Instant(seconds: 1_612_150_079)
        var core = AgentCore(settings: settings, at: start)
        _ = core.receiveConfiguration(
            topic: "presence/config/beacons",
            payload: Array(#"{"revision":3,"beacons":[{"beacon":"\#(Self.beacon)","id":"govee-1","name":"Govee sensor","measuredPower":-59}]}"#.utf8),
            at: start)
        let published = try replay(&core)
        let measurements = published.filter { $0.topic == "presence/beacons/govee-1/test" }
        #expect(!measurements.isEmpty)
        #expect(measurements[0].text.hasPrefix(#"{"id":"govee-1","beacon":"\#(Self.beacon)","name":"Govee sensor","#))
        #expect(measurements[0].text.contains(#""measuredPower":-59"#))
        // Only the known beacon is measured: no region, discovery off.
        #expect(published.allSatisfy { !$0.topic.hasPrefix("presence/beacons/") || $0.topic == "presence/beacons/govee-1/test" })
    }
}
