/// Core Location's region monitoring and ranging for one node, as a value-type state machine:
/// feed it sightings and clock ticks, publish the events it returns (SEMANTICS.md).
///
/// Rules:
/// - A region is `unknown` for one exit delay after monitoring starts or after it is added, then
///   `outside` unless a matching beacon was heard.
/// - The first matching advertisement makes it `inside` and reports `enter` — also while it is still
///   `unknown` after a fresh start (the project's reading of "entry is reported at the first matching
///   advertisement"). A state *restored* as `inside` (after a restart or a config change that kept
///   the region) gives no `enter`: being inside at start is reported by the state alone.
/// - `exit` only after no matching beacon for the exit delay; each crossing once. The notify flags
///   suppress events, never state changes.
/// - Per advertisement the cost is the matched regions only (`RegionIndex`), not all regions; only
///   beacons that match a region are remembered for ranging, and forgotten after
///   `rangingForgetAfter`, so memory is bounded by what is actually in range.
public struct RegionMonitor: Sendable {
    public private(set) var settings: RegionMonitorSettings
    private var index: RegionIndex
    private var positionByID: [TopicLevelID: Int]
    private var tracks: [Track]
    /// The beacons heard that match at least one region, by (beacon, address).
    private var ranged: [RangingKey: RangingEntry]
    /// For each region position, the ranged beacons that match it.
    private var rangedByRegion: [Set<RangingKey>]
    /// No state can change by time before this instant, so `tick` may return at once.
    private var nextDeadline: Instant
    private var lastRangingPrune: Instant

    private struct Track: Sendable {
        var state: RegionState
        /// When monitoring of this region (re)started: the end of `unknown` is one exit delay later.
        var monitoredSince: Instant
        /// When a matching beacon was last heard (for a region restored `inside`: when restored).
        var lastMatch: Instant
        var lastBeacon: BeaconID?
    }

    private struct RangingKey: Hashable, Sendable {
        let beacon: BeaconID
        let address: BluetoothAddress
    }

    private struct RangingEntry: Sendable {
        var sighting: BeaconSighting
        var lastSeen: Instant
    }

    /// Starts monitoring `regions` at `start`. Regions named in `restoredStates` begin in that state
    /// (a restored `inside` gives no `enter` and exits after one exit delay without a beacon);
    /// all others begin `unknown`. Duplicate region ids: the first one counts.
    public init(
        regions: [BeaconRegion], settings: RegionMonitorSettings = RegionMonitorSettings(),
        restoredStates: [TopicLevelID: RegionState] = [:], at start: Instant
    ) {
        self.settings = settings
        let unique = Self.uniqueByID(regions)
        index = RegionIndex(unique)
        positionByID = Dictionary(unique.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        tracks = unique.map { region in
            Track(
                state: restoredStates[region.id] ?? .unknown, monitoredSince: start, lastMatch: start,
                lastBeacon: nil)
        }
        ranged = [:]
        rangedByRegion = Array(repeating: [], count: unique.count)
        nextDeadline = start
        lastRangingPrune = start
    }

    // MARK: - Queries

    /// The monitored regions, in configuration order.
    public var regions: [BeaconRegion] { index.regions }

    /// The current state of a region; nil when no such region is monitored.
    public func state(of region: TopicLevelID) -> RegionState? {
        positionByID[region].map { tracks[$0].state }
    }

    /// Every region with its state, in configuration order: what to publish retained at start.
    public var states: [(region: TopicLevelID, state: RegionState)] {
        zip(index.regions, tracks).map { ($0.id, $1.state) }
    }

    /// Core Location's ranging: the beacons of a region heard within `rangingForgetAfter`, nearest
    /// first. Same-identity beacons stay apart by address; one not heard for `rangingUnknownAfter`
    /// shows proximity `unknown` and no distance.
    public func ranging(regionID: TopicLevelID, at now: Instant) -> [RangedBeacon] {
        guard let position = positionByID[regionID] else { return [] }
        var out: [RangedBeacon] = []
        out.reserveCapacity(rangedByRegion[position].count)
        for key in rangedByRegion[position] {
            guard let entry = ranged[key] else { continue }
            let silence = now.since(entry.lastSeen)
            guard silence < settings.rangingForgetAfter else { continue }
            var beacon = RangedBeacon(sighting: entry.sighting, lastSeen: entry.lastSeen)
            if silence >= settings.rangingUnknownAfter {
                beacon.proximity = .unknown
                beacon.distance = nil
            }
            out.append(beacon)
        }
        out.sort(by: RangedBeacon.nearerFirst)
        return out
    }

    /// How many (beacon, address) pairs are remembered for ranging; bounded by what was heard within
    /// `rangingForgetAfter` (plus at most one second until the next prune).
    public var rememberedBeaconCount: Int { ranged.count }

    // MARK: - Inputs

    /// One beacon heard at `now`: the regions it matches become `inside` (reporting `enter` on a
    /// crossing) and it joins their ranging lists. A beacon matching no region is not stored.
    public mutating func observe(_ sighting: BeaconSighting, at now: Instant) -> [RegionEvent] {
        guard let uuid = sighting.uuid, index.hasRegions(for: uuid) else { return [] }
        var events: [RegionEvent] = []
        var matchedAny = false
        let index = self.index  // a reference, not a copy: lets the loop mutate `self`
        let exitDelay = settings.exitDelay
        index.forEachMatch(uuid: uuid, major: sighting.major, minor: sighting.minor) { position in
            matchedAny = true
            let region = index.regions[position]
            var track = tracks[position]
            if track.state == .inside, now.since(track.lastMatch) >= exitDelay {
                // No tick came in time: the exit happened before this sighting; report it first.
                track.state = .outside
                events.append(.stateChanged(region: region.id, state: .outside, at: now))
                if region.notifyOnExit { events.append(.exit(region: region.id, beacon: track.lastBeacon, at: now)) }
            }
            if track.state != .inside {
                track.state = .inside
                events.append(.stateChanged(region: region.id, state: .inside, at: now))
                if region.notifyOnEntry { events.append(.enter(region: region.id, beacon: sighting.beacon, at: now)) }
            }
            track.lastMatch = max(track.lastMatch, now)
            track.lastBeacon = sighting.beacon
            tracks[position] = track
        }
        guard matchedAny else { return events }
        nextDeadline = min(nextDeadline, now.advanced(by: exitDelay))

        let key = RangingKey(beacon: sighting.beacon, address: sighting.address)
        if ranged.updateValue(RangingEntry(sighting: sighting, lastSeen: now), forKey: key) == nil {
            index.forEachMatch(uuid: uuid, major: sighting.major, minor: sighting.minor) { position in
                rangedByRegion[position].insert(key)
            }
        }
        return events
    }

    /// Lets time pass: regions with no matching beacon for the exit delay become `outside`
    /// (reporting `exit`), and `unknown` regions become `outside` one exit delay after they began.
    /// Call it regularly (e.g. every second); cheap when nothing is due.
    public mutating func tick(at now: Instant) -> [RegionEvent] {
        var events: [RegionEvent] = []
        if now >= nextDeadline {
            let exitDelay = settings.exitDelay
            var earliest = Instant(seconds: .infinity)
            for position in tracks.indices {
                let region = index.regions[position]
                switch tracks[position].state {
                case .inside:
                    let due = tracks[position].lastMatch.advanced(by: exitDelay)
                    if now >= due {
                        tracks[position].state = .outside
                        events.append(.stateChanged(region: region.id, state: .outside, at: now))
                        if region.notifyOnExit {
                            events.append(.exit(region: region.id, beacon: tracks[position].lastBeacon, at: now))
                        }
                    } else {
                        earliest = min(earliest, due)
                    }
                case .unknown:
                    let due = tracks[position].monitoredSince.advanced(by: exitDelay)
                    if now >= due {
                        tracks[position].state = .outside
                        events.append(.stateChanged(region: region.id, state: .outside, at: now))
                    } else {
                        earliest = min(earliest, due)
                    }
                case .outside:
                    break
                }
            }
            nextDeadline = earliest
        }
        pruneRanging(at: now)
        return events
    }

    /// Replaces the monitored regions. A region whose id and beacons (uuid, major, minor) are
    /// unchanged keeps its state (its notify flags are updated); a new or changed one starts
    /// `unknown` (reported by `stateChanged`); a removed one vanishes (reported by `removed`).
    public mutating func replaceRegions(_ newRegions: [BeaconRegion], at now: Instant) -> [RegionEvent] {
        let unique = Self.uniqueByID(newRegions)
        var events: [RegionEvent] = []
        var newTracks: [Track] = []
        newTracks.reserveCapacity(unique.count)
        var kept = Set<TopicLevelID>()
        for region in unique {
            if let old = positionByID[region.id] {
                kept.insert(region.id)
                if index.regions[old].matchesSameBeacons(as: region) {
                    newTracks.append(tracks[old])
                    continue
                }
                if tracks[old].state != .unknown {
                    events.append(.stateChanged(region: region.id, state: .unknown, at: now))
                }
            } else {
                events.append(.stateChanged(region: region.id, state: .unknown, at: now))
            }
            newTracks.append(Track(state: .unknown, monitoredSince: now, lastMatch: now, lastBeacon: nil))
        }
        for region in index.regions where !kept.contains(region.id) {
            events.append(.removed(region: region.id))
        }

        index = RegionIndex(unique)
        positionByID = Dictionary(unique.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        tracks = newTracks
        rangedByRegion = Array(repeating: [], count: unique.count)
        // Re-file remembered beacons under the new regions; drop those that match none now.
        for (key, entry) in ranged {
            var matchedAny = false
            if let uuid = entry.sighting.uuid {
                index.forEachMatch(uuid: uuid, major: entry.sighting.major, minor: entry.sighting.minor) { position in
                    matchedAny = true
                    rangedByRegion[position].insert(key)
                }
            }
            if !matchedAny { ranged[key] = nil }
        }
        nextDeadline = min(nextDeadline, now)
        return events
    }

    /// Changes the timing; deadlines are recomputed at the next tick.
    public mutating func updateSettings(_ newSettings: RegionMonitorSettings) {
        settings = newSettings
        nextDeadline = Instant(seconds: -.infinity)
    }

    // MARK: - Helpers

    /// Forgets ranged beacons silent for `rangingForgetAfter`; at most once a second of clock time.
    private mutating func pruneRanging(at now: Instant) {
        guard now.since(lastRangingPrune) >= 1 || now < lastRangingPrune else { return }
        lastRangingPrune = now
        let forgetAfter = settings.rangingForgetAfter
        let index = self.index
        for (key, entry) in ranged where now.since(entry.lastSeen) >= forgetAfter {
            ranged[key] = nil
            if let uuid = entry.sighting.uuid {
                index.forEachMatch(uuid: uuid, major: entry.sighting.major, minor: entry.sighting.minor) { position in
                    rangedByRegion[position].remove(key)
                }
            }
        }
    }

    private static func uniqueByID(_ regions: [BeaconRegion]) -> [BeaconRegion] {
        var seen = Set<TopicLevelID>()
        return regions.filter { seen.insert($0.id).inserted }
    }
}
