import BeaconCore
import Testing
@testable import PresenceAgent

/// Measurements are QoS 0: one published before the broker connected is gone. Each connect gets
/// every beacon's current measurement, so a still beacon need not wait for its heartbeat.
@Suite struct AgentCoreReconnectTests {
    @Test func everyBeaconStillHeardHasItsMeasurementForTheConnect() {
        let start = 1_800_000_000.0
        var core = AgentCoreNoRSSITests().coreWithRegion(at: Instant(seconds: start))
        let heard = AgentCoreNoRSSITests().hear(&core, rssi: 0xCF, from: start, seconds: 3)
        let first = heard.filter { $0.topic == "presence/beacons/\(AgentCoreNoRSSITests.beacon)/test" }
        #expect(first.count == 1)  // said once; the next one only at a change or the heartbeat

        let again = core.currentMeasurements(at: Instant(seconds: start + 3))
        #expect(again.map(\.topic) == ["presence/beacons/\(AgentCoreNoRSSITests.beacon)/test"])
        let text = again.first?.text ?? ""
        #expect(text.contains(#""rssi":-49,"rssiFiltered":-49"#))
        #expect(text.contains(#""distance":"#) && !text.contains(#""proximity":"unknown""#))
        #expect(text.contains(#""timestamp":"2027-01-15T08:00:02.000Z""#))  // when it was last heard

        // A beacon no longer heard has nothing current to say (its silence was said already).
        #expect(core.currentMeasurements(at: Instant(seconds: start + 30)).isEmpty)
    }
}
