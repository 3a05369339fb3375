import BeaconCore
import RoomDecisions
import PresenceAggregator
import TestSupport
import Testing

/// Phones and watches known by their IRK, as the aggregator sees them: measurements with the
/// canonical `irk-…` id and the alias the agents gave them; no key anywhere.
@Suite struct AggregatorPhoneTests {
    static let phone: BeaconID = "irk-54903897edb0"

    private func core(_ known: [KnownBeacon] = []) -> AggregatorCore {
        var configuration = AggregatorConfiguration.default
        configuration.knownBeacons = known
        configuration.decision = RoomDecisionParameters(
            settleTime: 1, staleAfter: 12, awayTimeout: 30,
            rule: SwitchingRule(margin: 0.25, dwell: 1.5, evidenceToSwitch: 1.5, leadCap: 3))
        return AggregatorCore(configuration: configuration, softwareVersion: "1.0")
    }

    private func heard(_ distance: Double?) throws -> ReceivedMeasurement {
        let readings = distance.map { #""rssiFiltered":-70,"distance":\#($0),"proximity":"near""# } ?? #""proximity":"unknown""#
        let text = #"{"id":"alice-phone","beacon":"\#(Self.phone)","name":"Alice's iPhone","node":"office-1","room":"office",\#(readings)}"#
        return try ReceivedMeasurement(payload: Array(text.utf8), topicNode: "office-1")
    }

    @Test func aPhoneIsPublishedUnderTheAliasItsMeasurementsCarry() throws {
        var core = core()
        var out = try core.receive(heard(2), at: startTime)
        out += try core.receive(heard(2), at: startTime + 2)
        out += core.tick(at: startTime + 3)
        #expect(out.contains { $0.topic == "presence/locations/alice-phone/room" && $0.payload == "office" })
        #expect(!out.contains { $0.topic.contains(Self.phone.rawValue) })
    }

    @Test func aPhoneWithItsOwnAwayTimeoutStaysHomeThroughALockedSilence() throws {
        var core = core([KnownBeacon(beacon: Self.phone, alias: TopicLevelID("alice-phone"), awayTimeout: 600)])
        _ = try core.receive(heard(2), at: startTime)
        _ = try core.receive(heard(2), at: startTime + 2)
        _ = core.tick(at: startTime + 3)
        _ = try core.receive(heard(nil), at: startTime + 4)
        // The site's away timeout (30 s) passes: a locked phone is not yet away.
        var out = core.tick(at: startTime + 120)
        out += core.tick(at: startTime + 603)
        #expect(!out.contains { $0.topic == "presence/locations/alice-phone/room" && $0.payload == "not_home" })
        out = core.tick(at: startTime + 605)
        #expect(out.contains { $0.topic == "presence/locations/alice-phone/room" && $0.payload == "not_home" })
    }
}
