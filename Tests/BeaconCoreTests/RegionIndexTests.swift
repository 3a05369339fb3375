import Testing
@testable import BeaconCore

@Suite struct RegionIndexTests {
    @Test func matchesByUUIDThenMajorThenMinor() throws {
        let index = RegionIndex([
            try region("site"),
            try region("floor-5", major: 5),
            try region("desk", major: 5, minor: 6),
            try region("floor-7", major: 7),
            try region("other", uuid: otherUUID),
        ])
        let ids = { (uuid: BeaconUUID, major: UInt16?, minor: UInt16?) in
            index.matches(uuid: uuid, major: major, minor: minor).map(\.id.rawValue)
        }
        #expect(ids(deploymentUUID, 5, 6) == ["site", "floor-5", "desk"])
        #expect(ids(deploymentUUID, 5, 7) == ["site", "floor-5"])
        #expect(ids(deploymentUUID, 7, 6) == ["site", "floor-7"])
        #expect(ids(deploymentUUID, 9, 9) == ["site"])
        #expect(ids(otherUUID, 5, 6) == ["other"])
        #expect(ids(BeaconUUID(high: 1, low: 2), 5, 6) == [])
        // A beacon without major/minor (e.g. a uuid-only id) matches only uuid-only regions.
        #expect(ids(deploymentUUID, nil, nil) == ["site"])
        #expect(index.hasRegions(for: deploymentUUID) && !index.hasRegions(for: BeaconUUID(high: 1, low: 2)))
    }

    @Test func tenThousandRegionsAgreeWithAFullScan() throws {
        var generator = SplitMix64(seed: 42)
        let uuids = (0..<20).map { _ in BeaconUUID(high: generator.next(), low: generator.next()) }
        var regions: [BeaconRegion] = []
        for n in 0..<10_000 {
            let uuid = uuids[Int(generator.next() % 20)]
            let major = UInt16(generator.next() % 50)
            let minor = UInt16(generator.next() % 50)
            switch n % 10 {
            case 0: regions.append(try region("r\(n)", uuid: uuid))
            case 1...4: regions.append(try region("r\(n)", uuid: uuid, major: major))
            default: regions.append(try region("r\(n)", uuid: uuid, major: major, minor: minor))
            }
        }
        let index = RegionIndex(regions)
        for _ in 0..<300 {
            let uuid = uuids[Int(generator.next() % 21 % 20)]
            let major = UInt16(generator.next() % 50)
            let minor = UInt16(generator.next() % 50)
            let fast = Set(index.matches(uuid: uuid, major: major, minor: minor).map(\.id))
            let scan = Set(regions.filter { $0.matches(uuid: uuid, major: major, minor: minor) }.map(\.id))
            #expect(fast == scan)
        }
    }

    @Test func lookupCostDoesNotGrowWithTheNumberOfRegions() throws {
        // Not a timing test: count how many regions the index visits for one advertisement.
        var regions = [try region("mine", major: 5, minor: 6)]
        for n in 0..<10_000 {
            regions.append(try region("r\(n)", uuid: otherUUID, major: UInt16(n % 65536), minor: 1))
        }
        var visited = 0
        RegionIndex(regions).forEachMatch(uuid: deploymentUUID, major: 5, minor: 6) { _ in visited += 1 }
        #expect(visited == 1)
    }
}
