/// Finds the regions an advertisement belongs to in expected constant time, however many regions
/// there are: three hash lookups — by uuid, by (uuid, major), by (uuid, major, minor) — never a scan.
///
/// Positions returned are indices into `regions`.
public struct RegionIndex: Sendable {
    public let regions: [BeaconRegion]

    private struct MajorKey: Hashable { let uuid: BeaconUUID; let major: UInt16 }
    private struct MinorKey: Hashable { let uuid: BeaconUUID; let major: UInt16; let minor: UInt16 }

    private var byUUID: [BeaconUUID: [Int]] = [:]
    private var byMajor: [MajorKey: [Int]] = [:]
    private var byMinor: [MinorKey: [Int]] = [:]
    private var uuids: Set<BeaconUUID> = []

    public init(_ regions: [BeaconRegion]) {
        self.regions = regions
        for (position, region) in regions.enumerated() {
            uuids.insert(region.uuid)
            switch (region.major, region.minor) {
            case (let major?, let minor?):
                byMinor[MinorKey(uuid: region.uuid, major: major, minor: minor), default: []].append(position)
            case (let major?, nil):
                byMajor[MajorKey(uuid: region.uuid, major: major), default: []].append(position)
            default:
                byUUID[region.uuid, default: []].append(position)
            }
        }
    }

    /// Calls `body` with the position of every region a beacon advertising these ids belongs to,
    /// broadest regions first. Allocates nothing.
    public func forEachMatch(
        uuid: BeaconUUID, major: UInt16?, minor: UInt16?, _ body: (Int) throws -> Void
    ) rethrows {
        if let positions = byUUID[uuid] {
            for position in positions { try body(position) }
        }
        guard let major else { return }
        if let positions = byMajor[MajorKey(uuid: uuid, major: major)] {
            for position in positions { try body(position) }
        }
        guard let minor else { return }
        if let positions = byMinor[MinorKey(uuid: uuid, major: major, minor: minor)] {
            for position in positions { try body(position) }
        }
    }

    /// The regions a beacon advertising these ids belongs to, broadest first.
    public func matches(uuid: BeaconUUID, major: UInt16?, minor: UInt16?) -> [BeaconRegion] {
        var out: [BeaconRegion] = []
        forEachMatch(uuid: uuid, major: major, minor: minor) { out.append(regions[$0]) }
        return out
    }

    /// Whether any region could match a beacon with this uuid (a cheap pre-filter).
    public func hasRegions(for uuid: BeaconUUID) -> Bool { uuids.contains(uuid) }
}
