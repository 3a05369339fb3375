import Testing
@testable import BeaconCore

@Suite struct RegionRangingTests {
    @Test func nearestFirstTiesByRSSIAndAddressesKeptApart() throws {
        var monitor = RegionMonitor(regions: [try region("office")], at: at(0))
        _ = monitor.observe(sighting(minor: 1, rssi: -80, distance: 4.0, proximity: .far), at: at(1))
        _ = monitor.observe(sighting(minor: 2, rssi: -60, distance: 0.4, proximity: .immediate), at: at(1))
        _ = monitor.observe(sighting(minor: 3, rssi: -75, distance: 2.0), at: at(1))
        _ = monitor.observe(sighting(minor: 4, rssi: -70, distance: 2.0), at: at(1))
        // The same identity from a second device (a phone rotating its address): a separate entry.
        _ = monitor.observe(sighting(minor: 2, address: 0x1111_1111_1111, rssi: -90, distance: 9), at: at(1))
        _ = monitor.observe(sighting(minor: 5, rssi: -65, distance: nil, proximity: .unknown), at: at(1))

        let list = monitor.ranging(regionID: try topicID("office"), at: at(1.5))
        #expect(list.map(\.minor) == [2, 4, 3, 1, 2, 5])
        #expect(list.map(\.address.rawValue) == [0xC4A1_B2C3_D4E5, 0xC4A1_B2C3_D4E5, 0xC4A1_B2C3_D4E5, 0xC4A1_B2C3_D4E5, 0x1111_1111_1111, 0xC4A1_B2C3_D4E5])
        #expect(list[0].proximity == .immediate && list[0].distance == 0.4 && list[0].rssi == -60)
        #expect(list[0].lastSeen == at(1))
    }

    @Test func lastSightingWins() throws {
        var monitor = RegionMonitor(regions: [try region("office")], at: at(0))
        _ = monitor.observe(sighting(rssi: -80, distance: 4, proximity: .far), at: at(1))
        _ = monitor.observe(sighting(rssi: -60, distance: 1, proximity: .near), at: at(2))
        let list = monitor.ranging(regionID: try topicID("office"), at: at(2))
        #expect(list.count == 1)
        #expect(list.first?.distance == 1 && list.first?.lastSeen == at(2))
    }

    @Test func silentBeaconTurnsUnknownThenIsForgotten() throws {
        var monitor = RegionMonitor(regions: [try region("office")], at: at(0))
        _ = monitor.observe(sighting(minor: 1, distance: 1), at: at(1))
        _ = monitor.observe(sighting(minor: 2, distance: 3), at: at(2.5))
        let office = try topicID("office")

        #expect(monitor.ranging(regionID: office, at: at(2.9)).map(\.proximity) == [.near, .near])
        // Minor 1 silent for 2 s: unknown, no distance, sorted after the known one.
        let later = monitor.ranging(regionID: office, at: at(3))
        #expect(later.map(\.minor) == [2, 1])
        #expect(later[1].proximity == .unknown && later[1].distance == nil)
        // Silent for 10 s: gone from the list, and from memory after a tick.
        #expect(monitor.ranging(regionID: office, at: at(11)).map(\.minor) == [2])
        _ = monitor.tick(at: at(13))
        #expect(monitor.ranging(regionID: office, at: at(13)) == [])
        // Heard again: back in the list.
        _ = monitor.observe(sighting(minor: 1, distance: 1), at: at(14))
        #expect(monitor.ranging(regionID: office, at: at(14)).map(\.minor) == [1])
    }

    @Test func eachRegionListsOnlyItsBeacons() throws {
        var monitor = RegionMonitor(regions: [try region("site"), try region("floor-5", major: 5)], at: at(0))
        _ = monitor.observe(sighting(major: 5, minor: 1), at: at(1))
        _ = monitor.observe(sighting(major: 6, minor: 1), at: at(1))
        _ = monitor.observe(sighting(uuid: otherUUID), at: at(1))
        #expect(monitor.ranging(regionID: try topicID("site"), at: at(1)).count == 2)
        #expect(monitor.ranging(regionID: try topicID("floor-5"), at: at(1)).map(\.major) == [5])
        #expect(monitor.ranging(regionID: try topicID("nope"), at: at(1)) == [])
    }

    @Test func replacingRegionsRefilesRememberedBeacons() throws {
        var monitor = RegionMonitor(regions: [try region("site")], at: at(0))
        _ = monitor.observe(sighting(major: 5), at: at(1))
        _ = monitor.observe(sighting(major: 6), at: at(1))
        _ = monitor.replaceRegions([try region("floor-6", major: 6)], at: at(2))
        #expect(monitor.ranging(regionID: try topicID("floor-6"), at: at(2)).map(\.major) == [6])
        #expect(monitor.ranging(regionID: try topicID("site"), at: at(2)) == [])
    }

    @Test func memoryIsBoundedByWhatIsInRange() throws {
        var monitor = RegionMonitor(regions: [try region("office", major: 5)], at: at(0))
        // 20,000 beacons that match no region, and 3,000 rotating addresses of one that does.
        for n in 0..<20_000 {
            _ = monitor.observe(sighting(major: 6, minor: UInt16(n % 65536), address: UInt64(n)), at: at(1))
        }
        for n in 0..<3_000 {
            _ = monitor.observe(sighting(major: 5, address: UInt64(n)), at: at(1 + Double(n) * 0.01))
            _ = monitor.tick(at: at(1 + Double(n) * 0.01))
        }
        // Only addresses heard within the last 10 s remain.
        let now = at(1 + 2_999 * 0.01)
        let list = monitor.ranging(regionID: try topicID("office"), at: now)
        #expect(list.count <= 1_001 && list.count >= 999)
        #expect(monitor.rememberedBeaconCount <= 1_101)
    }
}
