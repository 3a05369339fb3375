import Testing
@testable import BeaconCore

@Suite struct RegionMonitorTests {
    let desk = BeaconID(rawValue: "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-5-6")

    func officeID() throws -> TopicLevelID { try topicID("office") }

    @Test func firstMatchAfterAFreshStartIsAnEntry() throws {
        // The acceptance capture: first matching iBeacon 0.7 s after start, state still `unknown`.
        var monitor = RegionMonitor(regions: [try region("office", major: 5)], at: at(0))
        #expect(monitor.state(of: try officeID()) == .unknown)
        let events = monitor.observe(sighting(), at: at(0.7))
        #expect(
            events == [
                .stateChanged(region: try officeID(), state: .inside, at: at(0.7)),
                .enter(region: try officeID(), beacon: desk, at: at(0.7)),
            ])
        #expect(monitor.state(of: try officeID()) == .inside)
        // Further advertisements are not crossings.
        #expect(monitor.observe(sighting(), at: at(1.0)) == [])
        #expect(monitor.tick(at: at(1.0)) == [])
    }

    @Test func exitOnlyAfterTheExitDelayThenReEnter() throws {
        var monitor = RegionMonitor(regions: [try region("office")], at: at(0))
        _ = monitor.observe(sighting(), at: at(1))
        _ = monitor.observe(sighting(), at: at(10))
        #expect(monitor.tick(at: at(39.9)) == [])  // 29.9 s of silence
        #expect(monitor.state(of: try officeID()) == .inside)
        #expect(
            monitor.tick(at: at(40)) == [
                .stateChanged(region: try officeID(), state: .outside, at: at(40)),
                .exit(region: try officeID(), beacon: desk, at: at(40)),
            ])
        #expect(monitor.tick(at: at(100)) == [])  // once only
        #expect(
            monitor.observe(sighting(), at: at(101)) == [
                .stateChanged(region: try officeID(), state: .inside, at: at(101)),
                .enter(region: try officeID(), beacon: desk, at: at(101)),
            ])
    }

    @Test func unknownBecomesOutsideAfterOneExitDelayWithoutAnEvent() throws {
        var monitor = RegionMonitor(regions: [try region("office")], at: at(0))
        #expect(monitor.tick(at: at(29)) == [])
        #expect(monitor.state(of: try officeID()) == .unknown)
        #expect(monitor.tick(at: at(30)) == [.stateChanged(region: try officeID(), state: .outside, at: at(30))])
        // An entry from outside is reported like any other.
        #expect(
            monitor.observe(sighting(), at: at(45)) == [
                .stateChanged(region: try officeID(), state: .inside, at: at(45)),
                .enter(region: try officeID(), beacon: desk, at: at(45)),
            ])
    }

    @Test func notifyFlagsSuppressEventsNotStateChanges() throws {
        var monitor = RegionMonitor(
            regions: [try region("office", notifyOnEntry: false, notifyOnExit: false)], at: at(0))
        #expect(monitor.observe(sighting(), at: at(1)) == [.stateChanged(region: try officeID(), state: .inside, at: at(1))])
        #expect(monitor.tick(at: at(31)) == [.stateChanged(region: try officeID(), state: .outside, at: at(31))])

        var exitOnly = RegionMonitor(regions: [try region("office", notifyOnEntry: false)], at: at(0))
        _ = exitOnly.observe(sighting(), at: at(1))
        #expect(exitOnly.tick(at: at(31)).contains(.exit(region: try officeID(), beacon: desk, at: at(31))))
    }

    @Test func restoredInsideGivesNoEnterButStillExits() throws {
        var monitor = RegionMonitor(
            regions: [try region("office")], restoredStates: [try officeID(): .inside], at: at(0))
        #expect(monitor.state(of: try officeID()) == .inside)
        #expect(monitor.observe(sighting(), at: at(0.7)) == [])
        #expect(monitor.tick(at: at(30)) == [])
        #expect(
            monitor.tick(at: at(30.7)) == [
                .stateChanged(region: try officeID(), state: .outside, at: at(30.7)),
                .exit(region: try officeID(), beacon: desk, at: at(30.7)),
            ])

        // Restored inside and never heard again: exit after one delay, with no beacon to name.
        var silent = RegionMonitor(regions: [try region("office")], restoredStates: [try officeID(): .inside], at: at(0))
        #expect(silent.tick(at: at(30)).last == .exit(region: try officeID(), beacon: nil, at: at(30)))

        // Restored outside: the first match is an entry.
        var outside = RegionMonitor(regions: [try region("office")], restoredStates: [try officeID(): .outside], at: at(0))
        #expect(outside.observe(sighting(), at: at(1)).contains(.enter(region: try officeID(), beacon: desk, at: at(1))))
    }

    @Test func onlyMatchingRegionsChange() throws {
        var monitor = RegionMonitor(
            regions: [try region("office", major: 5), try region("lab", major: 9), try region("other", uuid: otherUUID)],
            at: at(0))
        let events = monitor.observe(sighting(major: 5), at: at(1))
        #expect(events.count == 2)
        #expect(monitor.state(of: try officeID()) == .inside)
        #expect(monitor.state(of: try topicID("lab")) == .unknown)
        #expect(monitor.observe(sighting(uuid: BeaconUUID(high: 7, low: 7)), at: at(2)) == [])
        #expect(monitor.state(of: try topicID("nope")) == nil)
    }

    @Test func aLateTickDoesNotSwallowAnExitAndReEntry() throws {
        var monitor = RegionMonitor(regions: [try region("office")], at: at(0))
        _ = monitor.observe(sighting(), at: at(1))
        // No tick for a minute; the beacon is heard again.
        #expect(
            monitor.observe(sighting(), at: at(61)) == [
                .stateChanged(region: try officeID(), state: .outside, at: at(61)),
                .exit(region: try officeID(), beacon: desk, at: at(61)),
                .stateChanged(region: try officeID(), state: .inside, at: at(61)),
                .enter(region: try officeID(), beacon: desk, at: at(61)),
            ])
    }

    @Test func replaceRegionsKeepsUnchangedStateAndStartsNewOnesUnknown() throws {
        var monitor = RegionMonitor(
            regions: [try region("office", major: 5), try region("lab", major: 9), try region("gone")], at: at(0))
        _ = monitor.observe(sighting(major: 5), at: at(1))
        _ = monitor.observe(sighting(major: 9), at: at(1))
        let events = monitor.replaceRegions(
            [
                try region("office", major: 5, notifyOnExit: false),  // same beacons: state kept
                try region("lab", major: 10),  // changed: unknown again
                try region("new", major: 5),  // added: unknown
            ], at: at(5))
        #expect(
            events == [
                .stateChanged(region: try topicID("lab"), state: .unknown, at: at(5)),
                .stateChanged(region: try topicID("new"), state: .unknown, at: at(5)),
                .removed(region: try topicID("gone")),
            ])
        #expect(monitor.state(of: try officeID()) == .inside)
        #expect(monitor.state(of: try topicID("lab")) == .unknown)
        #expect(monitor.state(of: try topicID("gone")) == nil)
        #expect(monitor.regions.map(\.id.rawValue) == ["office", "lab", "new"])
        // The kept region's new notify flag applies; its exit timing continues from the last match.
        #expect(monitor.tick(at: at(31)) == [.stateChanged(region: try officeID(), state: .outside, at: at(31))])
        // The new region is unknown for one exit delay from when it was added.
        #expect(monitor.tick(at: at(35)).contains(.stateChanged(region: try topicID("new"), state: .outside, at: at(35))))
    }

    @Test func statesListsEveryRegionInOrder() throws {
        let monitor = RegionMonitor(
            regions: [try region("b"), try region("a"), try region("b", major: 1)],
            restoredStates: [try topicID("a"): .outside], at: at(0))
        #expect(monitor.states.map(\.region.rawValue) == ["b", "a"])
        #expect(monitor.states.map(\.state) == [.unknown, .outside])
    }

    @Test func customExitDelay() throws {
        var monitor = RegionMonitor(
            regions: [try region("office")], settings: RegionMonitorSettings(exitDelay: 5), at: at(0))
        _ = monitor.observe(sighting(), at: at(1))
        #expect(monitor.tick(at: at(5.9)) == [])
        #expect(monitor.tick(at: at(6)).count == 2)
        monitor.updateSettings(RegionMonitorSettings(exitDelay: 60))
        _ = monitor.observe(sighting(), at: at(10))
        #expect(monitor.tick(at: at(69)) == [])
        #expect(monitor.tick(at: at(70)).count == 2)
    }

    @Test func tenThousandRegionsOneAdvertisement() throws {
        var regions: [BeaconRegion] = []
        for n in 0..<10_000 {
            regions.append(try region("r\(n)", major: UInt16(n % 1000), minor: UInt16(n / 1000)))
        }
        var monitor = RegionMonitor(regions: regions, at: at(0))
        let events = monitor.observe(sighting(major: 123, minor: 4), at: at(1))
        #expect(events == [
            .stateChanged(region: try topicID("r4123"), state: .inside, at: at(1)),
            .enter(region: try topicID("r4123"), beacon: sighting(major: 123, minor: 4).beacon, at: at(1)),
        ])
        let later = monitor.tick(at: at(30))
        #expect(later.count == 9_999)  // every other region: unknown → outside
        #expect(monitor.state(of: try topicID("r4123")) == .inside)
    }
}
