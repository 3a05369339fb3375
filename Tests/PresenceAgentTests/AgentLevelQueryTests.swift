import BeaconCore
import BluetoothHCI
import Testing
import TestSupport
@testable import PresenceAgent

/// A level query (docs/MQTT.md, `<root>/nodes/<node>/level`; issue 40, eighth round): the
/// aggregator asks a node for a worn beacon's level now, and the node answers at once with the
/// beacon's measurement plus `levelRssi`, the loudest advert of the last second. The beacon's real
/// advert (decoded from the horizon capture's HCI bytes), heard twice a second as a wristband's.
@Suite struct AgentLevelQueryTests {
    static let beacon = AgentCoreTests.beacon
    static let topic = "presence/beacons/band/test"
    let settings = AgentCore.Settings(node: TopicLevelID("test")!, room: TopicLevelID("lab")!)

    /// A core that heard the band (`worn` or not) every 0.5 s for 5 s: −60 dBm until the last second,
    /// then −66, −63 and −70 (the last at `start + 5`). Returns the core and the last advert's time.
    func core(worn: Bool = true, settings: AgentCore.Settings? = nil) throws -> (AgentCore, Instant) {
        var options = FeedOptions()
        options.speed = 0
        let feed = try AdvertisementFeeds.open(.btsnoop(path: try RecordedData.path(RecordedData.horizonCapture)), options: options)
        var adverts: [DecodedAdvertisement] = []
        while try feed.poll(timeout: 0, { adverts.append($0) }) {}
        let template = try #require(adverts.first { $0.beaconID.rawValue == Self.beacon })
        let start = template.time
        var core = AgentCore(settings: settings ?? self.settings, at: start)
        _ = core.receiveConfiguration(
            topic: "presence/config/beacons",
            payload: Array(#"{"revision":1,"beacons":[{"beacon":"\#(Self.beacon)","id":"band","worn":\#(worn)}]}"#.utf8),
            at: start)
        let levels: [Int8] = [-60, -60, -60, -60, -60, -60, -60, -60, -66, -63, -70]
        for (i, level) in levels.enumerated() {
            var advert = template
            advert.time = start + Double(i) * 0.5
            advert.report.rssi = level
            if i % 2 == 0 { _ = core.tick(at: advert.time) }
            _ = core.observe(advert)
        }
        return (core, start + 5)
    }

    func query(_ beacon: String) -> [UInt8] { Array(#"{"beacon":"\#(beacon)"}"#.utf8) }

    func answers(_ actions: [AgentAction]) -> [AgentPublication] {
        actions.compactMap { if case .publish(let p) = $0 { p } else { nil } }
    }

    @Test("a worn beacon heard 0.3 s ago answers at once: its measurement with the loudest advert of the last second")
    func wornBeaconAnswersItsLoudestAdvertOfTheLastSecond() throws {
        var (core, last) = try core()
        #expect(core.levelQueryTopic == "presence/nodes/test/level")
        let published = answers(core.receiveLevelQuery(query(Self.beacon), at: last + 0.3))
        let answer = try #require(published.first)
        #expect(published.count == 1)
        #expect(answer.topic == Self.topic && answer.qos == .atMostOnce && !answer.retain)
        // −63 (0.8 s before) is the loudest of the second; −66 (1.3 s before) is older.
        #expect(answer.text.contains(#""levelRssi":-63,"#), "\(answer.text)")
        #expect(answer.text.hasPrefix(#"{"id":"band","beacon":"\#(Self.beacon)","node":"test","room":"lab","rssi":-70,"#))
        #expect(!answer.text.contains(#""rise""#) && !answer.text.contains("riseRssi"))
        // The measurement of the last advert heard, dated then.
        #expect(answer.text.hasSuffix(#""timestamp":"\#(ISO8601Timestamp.string(from: last))"}"#))
        // Asked by its alias, the same answer.
        let byAlias = answers(core.receiveLevelQuery(query("band"), at: last + 0.6))
        #expect(byAlias.count == 1 && byAlias.first?.text.contains(#""levelRssi":-70,"#) == true)
    }

    @Test("a worn beacon heard 1.5 s ago answers null; one no longer heard does not answer")
    func wornBeaconUnheardForASecondAnswersNull() throws {
        var (core, last) = try core()
        let published = answers(core.receiveLevelQuery(query(Self.beacon), at: last + 1.5))
        #expect(published.count == 1)
        #expect(published.first?.text.contains(#""levelRssi":null,"#) == true, "\(published.first?.text ?? "")")
        // After `unknownAfter` (5 s) the node no longer hears it: no answer.
        #expect(core.receiveLevelQuery(query(Self.beacon), at: last + 6).isEmpty)
    }

    @Test("a beacon not tracked, or tracked but not worn, gets no answer")
    func unknownOrNotWornBeaconGetsNoAnswer() throws {
        var (core, last) = try core()
        #expect(core.receiveLevelQuery(query("ibeacon-494e5445-4c4c-495f-524f-434b535f4857-1-2"), at: last + 0.3).isEmpty)
        var (plain, plainLast) = try self.core(worn: false)
        #expect(plain.receiveLevelQuery(query(Self.beacon), at: plainLast + 0.3).isEmpty)
        #expect(plain.receiveLevelQuery(query("band"), at: plainLast + 0.3).isEmpty)
    }

    @Test("one beacon answers at most once per 0.2 s; the queries beyond are dropped and counted")
    func answersAreLimitedToOnePerBeaconPerFifthOfASecond() throws {
        var (core, last) = try core()
        let times = [0.3, 0.35, 0.45, 0.55, 0.8]
        let answered = times.map { !answers(core.receiveLevelQuery(query(Self.beacon), at: last + $0)).isEmpty }
        #expect(answered == [true, false, false, true, true])
        #expect(core.levelQueriesDropped == 2)
    }

    @Test("a malformed query is ignored with a warning naming what is wrong, one a minute; the node's state is kept")
    func malformedQueryWarnsNamingTheField() throws {
        var (core, last) = try core()
        func problem(_ payload: String) -> String {
            do {
                _ = try core.queriedBeacon(Array(payload.utf8))
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        #expect(problem("beacon please").hasPrefix("payload: "))
        #expect(problem(#"["beacon"]"#).hasPrefix("payload: expected an object"))
        #expect(problem(#"{"id":"band"}"#) == "beacon: required")
        #expect(problem(#"{"beacon":5}"#).hasPrefix("beacon: expected a string"))
        #expect(problem(#"{"beacon":"kitchen tag"}"#).hasPrefix("beacon: 'kitchen tag' is neither a canonical beacon id nor a known beacon's alias"))

        let first = core.receiveLevelQuery(Array(#"{"beacon":5}"#.utf8), at: last + 0.1)
        guard case .log(.warning, let message)? = first.first, first.count == 1 else {
            Issue.record("expected one warning, got \(first)")
            return
        }
        #expect(message == "ignored a malformed level query on presence/nodes/test/level: beacon: expected a string, got an integer")
        // Within the minute: held back, and counted in the next line.
        #expect(core.receiveLevelQuery(Array("{".utf8), at: last + 0.2).isEmpty)
        let later = core.receiveLevelQuery(Array("{}".utf8), at: last + 61)
        guard case .log(.warning, let summary)? = later.first else {
            Issue.record("expected a warning, got \(later)")
            return
        }
        #expect(summary.hasSuffix("beacon: required (malformed level queries: 2 in the last 61 s)"), "\(summary)")
        // Nothing was lost: the beacon still answers.
        #expect(answers(core.receiveLevelQuery(query(Self.beacon), at: last + 0.3)).count == 1)
    }

    @Test("with rise reports off the node reads no level queries and answers none")
    func riseReportsOffNoQueries() throws {
        var settings = self.settings
        settings.tracking.rise = RiseReport.Parameters(rise: 0)
        var (core, last) = try core(settings: settings)
        #expect(core.levelQueryTopic == nil)
        #expect(core.receiveLevelQuery(query(Self.beacon), at: last + 0.3).isEmpty)
    }
}
