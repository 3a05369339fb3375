/// Finds the regions an advertisement belongs to in expected constant time, however many regions
/// there are: a hash lookup by uuid, then — only when such regions exist for that uuid — by
/// (uuid, major) and by (uuid, major, minor). Never a scan.
///
/// Positions returned are indices into `regions`.
public struct RegionIndex: Sendable {
    /// The regions indexed, in the order positions refer to.
    public let regions: [BeaconRegion]

    /// The positions of the regions one advertisement matches, broadest first. Empty lists share
    /// the empty-array singleton, so a lookup allocates nothing.
    public struct Matches: Sendable {
        /// uuid-only regions.
        public var byUUID: [Int] = []
        /// uuid + major regions.
        public var byMajor: [Int] = []
        /// uuid + major + minor regions.
        public var byMinor: [Int] = []

        /// True when the advertisement matches no region.
        public var isEmpty: Bool { byUUID.isEmpty && byMajor.isEmpty && byMinor.isEmpty }

        /// No region.
        public static let empty = Matches()
    }

    private struct UUIDEntry: Sendable {
        var uuidOnly: [Int] = []
        var hasMajorRegions = false
        var hasMinorRegions = false
    }

    private struct MajorKey: Hashable, Sendable { let uuid: BeaconUUID; let major: UInt16 }
    private struct MinorKey: Hashable, Sendable { let uuid: BeaconUUID; let major: UInt16; let minor: UInt16 }

    private var byUUID: [BeaconUUID: UUIDEntry] = [:]
    private var byMajor: [MajorKey: [Int]] = [:]
    private var byMinor: [MinorKey: [Int]] = [:]

    /// Indexes `regions`.
    public init(_ regions: [BeaconRegion]) {
        self.regions = regions
        for (position, region) in regions.enumerated() {
            switch (region.major, region.minor) {
            case (let major?, let minor?):
                byUUID[region.uuid, default: UUIDEntry()].hasMinorRegions = true
                byMinor[MinorKey(uuid: region.uuid, major: major, minor: minor), default: []].append(position)
            case (let major?, nil):
                byUUID[region.uuid, default: UUIDEntry()].hasMajorRegions = true
                byMajor[MajorKey(uuid: region.uuid, major: major), default: []].append(position)
            default:
                byUUID[region.uuid, default: UUIDEntry()].uuidOnly.append(position)
            }
        }
    }

    /// The positions of every region a beacon advertising these ids belongs to. One hash lookup
    /// for a uuid no region names (most beacons in a busy place), at most three otherwise.
    public func lookup(uuid: BeaconUUID, major: UInt16?, minor: UInt16?) -> Matches {
        guard let entry = byUUID[uuid] else { return Matches() }
        var matches = Matches(byUUID: entry.uuidOnly)
        guard let major else { return matches }
        if entry.hasMajorRegions, let positions = byMajor[MajorKey(uuid: uuid, major: major)] {
            matches.byMajor = positions
        }
        if entry.hasMinorRegions, let minor, let positions = byMinor[MinorKey(uuid: uuid, major: major, minor: minor)] {
            matches.byMinor = positions
        }
        return matches
    }

    /// Calls `body` with the position of every matching region, broadest first.
    public func forEachMatch(
        uuid: BeaconUUID, major: UInt16?, minor: UInt16?, _ body: (Int) throws -> Void
    ) rethrows {
        let matches = lookup(uuid: uuid, major: major, minor: minor)
        for position in matches.byUUID { try body(position) }
        for position in matches.byMajor { try body(position) }
        for position in matches.byMinor { try body(position) }
    }

    /// The regions a beacon advertising these ids belongs to, broadest first.
    public func matches(uuid: BeaconUUID, major: UInt16?, minor: UInt16?) -> [BeaconRegion] {
        var out: [BeaconRegion] = []
        forEachMatch(uuid: uuid, major: major, minor: minor) { out.append(regions[$0]) }
        return out
    }

    /// Whether any region names this uuid.
    public func hasRegions(for uuid: BeaconUUID) -> Bool { byUUID[uuid] != nil }
}
