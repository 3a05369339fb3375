import BeaconCore
import RoomDecisions
import TestSupport
import PresenceAggregator
import Testing

/// Issue 38: live, a room's message goes at most once a second. A busy room's list grows with its
/// occupants (some 90 KB at 100,000 beacons), and each move sent two at once.
@Suite struct RoomMessageIntervalTests {
    static let beacons = (1...3).map { BeaconID(rawValue: "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-7-\($0)") }

    private func arrive(_ beacon: BeaconID, into core: inout AggregatorCore, at time: Instant) -> [AggregatorPublication] {
        var out = core.receive(ReceivedMeasurement(beacon: beacon, node: "kitchen-1", room: "kitchen", rssiFiltered: -70,
                                                   sigma: 1, distance: 1, proximity: .near), at: time)
        out += core.decideDue(at: time + 1)  // the settle time
        return out
    }

    private func kitchen(_ publications: [AggregatorPublication]) -> [String] {
        publications.filter { $0.topic == "presence/rooms/kitchen" }.map(\.payload)
    }

    @Test func arrivalsWithinASecondOfTheRoomsLastMessageWaitForTheTickAfterIt() {
        var core = AggregatorCore(configuration: AggregatorConfiguration(homeAssistantDiscovery: false), softwareVersion: "test")
        core.servesDecisionsWhenDue = true
        core.roomMessageInterval = 1
        // The first arrival goes at once.
        #expect(kitchen(arrive(Self.beacons[0], into: &core, at: startTime)).map { $0.contains(#""count":1"#) } == [true])
        // Two more 0.3 s and 0.6 s later: nothing for the kitchen yet...
        #expect(kitchen(arrive(Self.beacons[1], into: &core, at: startTime + 0.3)).isEmpty)
        #expect(kitchen(arrive(Self.beacons[2], into: &core, at: startTime + 0.6)).isEmpty)
        #expect(kitchen(core.tick(at: startTime + 1.75)).isEmpty)
        // ...then both in one message at the first tick a second after the last.
        #expect(kitchen(core.tick(at: startTime + 2)).map { $0.contains(#""count":3"#) } == [true])
        #expect(kitchen(core.tick(at: startTime + 3)).isEmpty)
    }

    @Test func withoutAnIntervalEachArrivalGoesAtOnce() {
        var core = AggregatorCore(configuration: AggregatorConfiguration(homeAssistantDiscovery: false), softwareVersion: "test")
        core.servesDecisionsWhenDue = true
        #expect(kitchen(arrive(Self.beacons[0], into: &core, at: startTime)).count == 1)
        #expect(kitchen(arrive(Self.beacons[1], into: &core, at: startTime + 0.3)).count == 1)
    }
}
