import Testing
@testable import BeaconCore

/// The ranging table's slots: a caller hands back the slot it was given, and a stale or foreign
/// one must cost only a lookup, never a wrong entry.
@Suite struct RegionRangingSlotTests {
    @Test func theSlotGivenIsTheBeaconsAndComesBackUnchanged() throws {
        var monitor = RegionMonitor(regions: [try region("office")], at: at(0))
        let matches = monitor.regionMatches(uuid: deploymentUUID, major: 5, minor: 1)
        var slot = RegionMonitor.noRangingSlot
        _ = monitor.observe(sighting(minor: 1, distance: 1), matches: matches, rangingSlot: &slot, at: at(1))
        let first = slot
        #expect(first != RegionMonitor.noRangingSlot)
        _ = monitor.observe(sighting(minor: 1, distance: 1.1), matches: matches, rangingSlot: &slot, at: at(2))
        #expect(slot == first)
        #expect(monitor.ranging(regionID: try topicID("office"), at: at(2)).map(\.distance) == [1.1])
        #expect(monitor.rememberedBeaconCount == 1)
    }

    @Test func aForeignSlotIsNotTakenForTheBeacon() throws {
        var monitor = RegionMonitor(regions: [try region("office")], at: at(0))
        var one = RegionMonitor.noRangingSlot
        var two = RegionMonitor.noRangingSlot
        let matches = monitor.regionMatches(uuid: deploymentUUID, major: 5, minor: 1)
        _ = monitor.observe(sighting(minor: 1, distance: 1), matches: matches, rangingSlot: &one, at: at(1))
        _ = monitor.observe(sighting(minor: 2, distance: 3), matches: matches, rangingSlot: &two, at: at(1))
        // Minor 1 heard with minor 2's slot (and from a new address with minor 1's): each lands in its own entry.
        var wrong = two
        _ = monitor.observe(sighting(minor: 1, distance: 1.2), matches: matches, rangingSlot: &wrong, at: at(2))
        #expect(wrong == one)
        var moved = one
        _ = monitor.observe(sighting(minor: 1, address: 0x1111_1111_1111, distance: 5), matches: matches, rangingSlot: &moved, at: at(2))
        #expect(moved != one && moved != two)
        let list = monitor.ranging(regionID: try topicID("office"), at: at(2))
        #expect(list.map(\.minor) == [1, 2, 1])
        #expect(list.map(\.distance) == [1.2, 3, 5])
        #expect(monitor.rememberedBeaconCount == 3)
    }

    @Test func aForgottenBeaconsSlotIsReusedAndItsOldSlotNoLongerFindsIt() throws {
        var monitor = RegionMonitor(regions: [try region("office")], at: at(0))
        let office = try topicID("office")
        let matches = monitor.regionMatches(uuid: deploymentUUID, major: 5, minor: 1)
        var one = RegionMonitor.noRangingSlot
        _ = monitor.observe(sighting(minor: 1, distance: 1), matches: matches, rangingSlot: &one, at: at(1))
        // Silent past `rangingForgetAfter`: forgotten at the tick; a new beacon takes its slot.
        _ = monitor.tick(at: at(12))
        #expect(monitor.rememberedBeaconCount == 0)
        var two = RegionMonitor.noRangingSlot
        _ = monitor.observe(sighting(minor: 2, distance: 3), matches: matches, rangingSlot: &two, at: at(13))
        #expect(two == one)
        // Minor 1 comes back with its old slot: a new entry, minor 2 untouched.
        var back = one
        _ = monitor.observe(sighting(minor: 1, distance: 2), matches: matches, rangingSlot: &back, at: at(14))
        #expect(back != two)
        #expect(monitor.ranging(regionID: office, at: at(14)).map(\.minor) == [1, 2])
        #expect(monitor.ranging(regionID: office, at: at(14)).map(\.distance) == [2, 3])
    }

    @Test func slotsSurviveARegionChangeAndBeaconsMatchingNoneAreDropped() throws {
        var monitor = RegionMonitor(regions: [try region("five", major: 5), try region("six", major: 6)], at: at(0))
        var five = RegionMonitor.noRangingSlot
        var six = RegionMonitor.noRangingSlot
        _ = monitor.observe(sighting(major: 5, minor: 1), matches: monitor.regionMatches(uuid: deploymentUUID, major: 5, minor: 1),
                            rangingSlot: &five, at: at(1))
        _ = monitor.observe(sighting(major: 6, minor: 1), matches: monitor.regionMatches(uuid: deploymentUUID, major: 6, minor: 1),
                            rangingSlot: &six, at: at(1))
        // Region six goes; region all (uuid only) comes: major 6 matches "all" now, major 5 both.
        _ = monitor.replaceRegions([try region("five", major: 5), try region("all")], at: at(2))
        #expect(monitor.rememberedBeaconCount == 2)
        #expect(monitor.ranging(regionID: try topicID("all"), at: at(2)).map(\.major) == [5, 6])
        _ = monitor.replaceRegions([try region("five", major: 5)], at: at(3))
        #expect(monitor.rememberedBeaconCount == 1)
        #expect(monitor.ranging(regionID: try topicID("five"), at: at(3)).map(\.major) == [5])
        // The dropped beacon's slot is free for the next one; the kept one still finds its own.
        var seven = six
        _ = monitor.observe(sighting(major: 5, minor: 7), matches: monitor.regionMatches(uuid: deploymentUUID, major: 5, minor: 7),
                            rangingSlot: &seven, at: at(4))
        var again = five
        _ = monitor.observe(sighting(major: 5, minor: 1, distance: 4), matches: monitor.regionMatches(uuid: deploymentUUID, major: 5, minor: 1),
                            rangingSlot: &again, at: at(4))
        #expect(again == five)
        #expect(monitor.ranging(regionID: try topicID("five"), at: at(4)).map(\.minor) == [7, 1])
    }
}
