import BeaconCore
import Evaluation
import PresenceAggregator
import RoomDecisions
import TestSupport
import Testing

/// docs/MQTT.md, `<root>/locations/<beacon>` (issue 38's sixth round): in the same room a location
/// is published again at once when its node, proximity or candidate rooms change, or when its
/// distance moved by 25 % (and 0.1 m) from the published one; a smaller change of 0.1 m waits
/// until the published location is a minute old.
@Suite struct LocationRefreshTests {
    private func core(_ rule: LocationRefreshRule = .default) -> AggregatorCore {
        var configuration = AggregatorConfiguration.default
        configuration.knownBeacons = [AggregatorCoreTests.alice]
        configuration.locationRefresh = rule
        return AggregatorCore(configuration: configuration, softwareVersion: "1.0")
    }

    private func measurement(_ distance: Double, _ proximity: Proximity = .near) -> ReceivedMeasurement {
        ReceivedMeasurement(beacon: beaconID, node: "kitchen-1", room: "kitchen", rssiFiltered: -70, sigma: 1,
                            distance: distance, proximity: proximity)
    }

    /// The published distances of `publications` (the location topic's payloads).
    private func distances(_ publications: [AggregatorPublication]) -> [String] {
        publications.filter { $0.topic == "presence/locations/alice-keys" }.compactMap { publication in
            publication.payload.split(separator: ",").first { $0.hasPrefix(#""distance":"#) }.map { String($0.dropFirst(11)) }
        }
    }

    @Test func aSmallDistanceChangeWaitsForTheRefreshAndALargeOneGoesAtOnce() {
        var core = core()
        _ = core.receive(measurement(1.0), at: startTime)
        #expect(distances(core.tick(at: startTime + 1)) == ["1"])
        // 12 % and 24 %: below the ratio, though the old rule (0.1 m) would have published both.
        #expect(distances(core.receive(measurement(1.12), at: startTime + 2)).isEmpty)
        #expect(distances(core.receive(measurement(1.24), at: startTime + 3)).isEmpty)
        // What `location(of:)` answers still follows every measurement.
        #expect(core.location(of: beaconID)?.distance == 1.24)
        // 30 % from the published 1.0: at once, and the room's list follows at the next tick.
        #expect(distances(core.receive(measurement(1.3), at: startTime + 4)) == ["1.3"])
        #expect(core.tick(at: startTime + 5).map(\.topic) == ["presence/rooms/kitchen"])
        // Back by 15 %: nothing; a proximity change: at once, whatever the distance.
        #expect(distances(core.receive(measurement(1.13), at: startTime + 6)).isEmpty)
        #expect(distances(core.receive(measurement(1.13, .immediate), at: startTime + 7)) == ["1.13"])
        // A still beacon's small drift (1.13 → 1.2, 6 %) is published a minute after the last publication.
        for second in stride(from: 17.0, through: 57, by: 10) {
            #expect(distances(core.receive(measurement(1.2, .immediate), at: startTime + second)).isEmpty)
        }
        #expect(distances(core.receive(measurement(1.2, .immediate), at: startTime + 67)) == ["1.2"])
        // Within 0.1 m of the published distance: never, however long.
        #expect(distances(core.receive(measurement(1.22, .immediate), at: startTime + 200)).isEmpty)
    }

    /// The rule of earlier versions, kept for comparisons (`presence-bench locations`): every
    /// change of 0.1 m publishes.
    @Test func theOldRulePublishesEveryTenth() {
        var core = core(.everyTenth)
        _ = core.receive(measurement(1.0), at: startTime)
        #expect(distances(core.tick(at: startTime + 1)) == ["1"])
        #expect(distances(core.receive(measurement(1.12), at: startTime + 2)) == ["1.12"])
        #expect(distances(core.receive(measurement(1.14), at: startTime + 3)).isEmpty)
        #expect(distances(core.receive(measurement(1.24), at: startTime + 4)) == ["1.24"])
    }

    @Test func theRatioIsTheSameAtEveryDistance() {
        let rule = LocationRefreshRule.default
        #expect(!rule.distanceWorthPublishing(published: 8, current: 9.9, age: 1))
        #expect(rule.distanceWorthPublishing(published: 8, current: 10, age: 1))
        #expect(rule.distanceWorthPublishing(published: 10, current: 8, age: 1))
        #expect(!rule.distanceWorthPublishing(published: 0.2, current: 0.24, age: 100))  // same tenth
        #expect(rule.distanceWorthPublishing(published: 0, current: 0.2, age: 1))
        #expect(rule.distanceWorthPublishing(published: 8, current: 9, age: nil))  // restored: any tenth
        #expect(rule.distanceWorthPublishing(published: nil, current: 1, age: 1))
        #expect(!rule.distanceWorthPublishing(published: nil, current: nil, age: 1))
    }
}
