import Testing
@testable import BeaconCore

/// Which ranging lists are due again (`RegionMonitor.takeChangedRangingRegions`): the agent
/// publishes only those, so a noisy reorder must not count and a real change must.
@Suite struct RegionRangingChangeTests {
    @Test func joiningLeavingAndProximityChangesCountNoisyReordersDoNot() throws {
        var monitor = RegionMonitor(regions: [try region("office"), try region("floor-6", major: 6)], at: at(0))
        let office = try topicID("office")
        _ = monitor.observe(sighting(minor: 1, distance: 2.0), at: at(1))
        _ = monitor.observe(sighting(minor: 2, distance: 2.1), at: at(1))
        // Two beacons joined office (major 5 is not in floor-6): office is due, once.
        #expect(monitor.takeChangedRangingRegions() == [office])
        #expect(monitor.takeChangedRangingRegions() == [])

        // Noise swaps their order (2.0/2.1 → 2.3/1.9): within the hysteresis, not a change.
        _ = monitor.observe(sighting(minor: 1, distance: 2.3), at: at(2))
        _ = monitor.observe(sighting(minor: 2, distance: 1.9), at: at(2))
        _ = monitor.tick(at: at(2))
        #expect(monitor.takeChangedRangingRegions() == [])
        // …and the list, when published, is still nearest first.
        #expect(monitor.ranging(regionID: office, at: at(2)).map(\.minor) == [2, 1])

        // A proximity change counts at once.
        _ = monitor.observe(sighting(minor: 1, distance: 2.4, proximity: .far), at: at(3))
        #expect(monitor.takeChangedRangingRegions() == [office])
        // A distance beyond the factor (2.1 → 3.5 is more than 1.5 times) counts.
        _ = monitor.observe(sighting(minor: 2, distance: 3.5), at: at(3))
        #expect(monitor.takeChangedRangingRegions() == [office])
        // Small steps do not add up unnoticed: they are measured from the distance last counted.
        for (k, distance) in [3.9, 4.4, 4.9, 5.4].enumerated() {
            _ = monitor.observe(sighting(minor: 2, distance: distance), at: at(3.1 + 0.1 * Double(k)))
        }
        #expect(monitor.takeChangedRangingRegions() == [office])

        // A beacon of major 6 joins floor-6 and office (both match it).
        _ = monitor.observe(sighting(major: 6, minor: 1, distance: 1), at: at(4))
        #expect(Set(monitor.takeChangedRangingRegions()) == [office, try topicID("floor-6")])
    }

    @Test func silenceCountsWhenItTurnsUnknownAndWhenItLeaves() throws {
        var monitor = RegionMonitor(regions: [try region("office")], at: at(0))
        let office = try topicID("office")
        _ = monitor.observe(sighting(minor: 1, distance: 1), at: at(1))
        _ = monitor.takeChangedRangingRegions()
        _ = monitor.tick(at: at(2))
        #expect(monitor.takeChangedRangingRegions() == [])
        // Silent for 2 s: shown unknown, a change (noticed by the tick).
        _ = monitor.tick(at: at(3.5))
        #expect(monitor.takeChangedRangingRegions() == [office])
        _ = monitor.tick(at: at(5))
        #expect(monitor.takeChangedRangingRegions() == [])
        // Silent for 10 s: leaves the list, a change.
        _ = monitor.tick(at: at(11.5))
        #expect(monitor.takeChangedRangingRegions() == [office])
        #expect(monitor.ranging(regionID: office, at: at(11.5)) == [])
        // Heard again: joins again.
        _ = monitor.observe(sighting(minor: 1, distance: 1), at: at(12))
        #expect(monitor.takeChangedRangingRegions() == [office])
    }

    @Test func aLimitSpreadsABurstOverCallsOldestFirst() throws {
        let regions = try (0..<10).map { try region("r\($0)", major: UInt16($0)) }
        var monitor = RegionMonitor(regions: regions, at: at(0))
        for major in 0..<10 { _ = monitor.observe(sighting(major: UInt16(major), minor: 1), at: at(1)) }
        #expect(monitor.takeChangedRangingRegions(limit: 4).map(\.rawValue) == ["r0", "r1", "r2", "r3"])
        #expect(monitor.pendingRangingChangeCount == 6)
        #expect(monitor.takeChangedRangingRegions(limit: 4).map(\.rawValue) == ["r4", "r5", "r6", "r7"])
        #expect(monitor.takeChangedRangingRegions(limit: 4).map(\.rawValue) == ["r8", "r9"])
    }
}
