// Over 500 lines because one type earns it: `RegionMonitor` is a single state machine (monitoring
// and ranging share its per-region tracks and its one deadline), and splitting it would expose
// that state across files.

/// Core Location's region monitoring and ranging for one node, as a value-type state machine:
/// feed it sightings and clock ticks, publish the events it returns (docs/Semantics.md).
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
    /// The exit delay, ranging and notify settings in force.
    public private(set) var settings: RegionMonitorSettings
    private var index: RegionIndex
    private var positionByID: [TopicLevelID: Int]
    private var tracks: [Track]
    /// The beacons heard that match at least one region, each in a reusable slot; `rangedIndex`
    /// finds a slot by identity and address. Slots let a caller that hears the same beacon again
    /// hand back the slot it was given (`observe(_:matches:rangingSlot:at:)`) instead of hashing
    /// the key at every advertisement, and let region lists hold small integers.
    /// Not optional, so a field is read and changed in place (through an optional each access
    /// copied the entry, its id with it); a freed slot's entry stays, `inUse` false, until reused.
    private var rangedEntries: [RangingEntry]
    /// Each slot's `lastSeen`, apart from the entries so the once-a-second prune reads 8 bytes per
    /// beacon instead of copying each entry; +∞ for a free slot (never due).
    private var rangedLastSeen: [Instant]
    private var rangedIndex: [RangingKey: Int32]
    private var freeRangedSlots: [Int32] = []
    /// For each region position, the slots of the ranged beacons that match it.
    private var rangedByRegion: [Set<Int32>]
    /// Per region position: whether its ranging list changed since `takeChangedRangingRegions`.
    private var rangingChanged: [Bool]
    /// The positions flagged in `rangingChanged`, in the order they changed.
    private var changedPositions: [Int] = []
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
        /// While not `noRangingSlot`: the last matching beacon is the one remembered in this ranging
        /// slot, and `lastBeacon` is stale. A slot, not the id, at every advertisement: storing the id
        /// retained it and released the one before (a cache miss each, on the strings of 10,000
        /// beacons). Settled into `lastBeacon` before the slot is freed or renamed (`settleLastBeacon`).
        var lastBeaconSlot = RegionMonitor.noRangingSlot
    }

    /// A ranged beacon's identity as advertised, plus its address. Numbers rather than the
    /// `BeaconID` string: hashing five integers is several times cheaper than a 56-character id,
    /// and this is on the per-advertisement path. (Two formats advertising the same uuid, major and
    /// minor from one address would share an entry — the same device, in practice.)
    struct RangingKey: Hashable, Sendable {
        let uuid: BeaconUUID
        let major: UInt16?
        let minor: UInt16?
        let address: BluetoothAddress

        init(_ sighting: BeaconSighting) {
            self.init(uuid: sighting.uuid ?? BeaconUUID(high: 0, low: 0), major: sighting.major, minor: sighting.minor, address: sighting.address)
        }

        init(uuid: BeaconUUID, major: UInt16?, minor: UInt16?, address: BluetoothAddress) {
            self.uuid = uuid
            self.major = major
            self.minor = minor
            self.address = address
        }
    }

    /// Its key is `RangingKey(sighting)` (every sighting stored in a slot has the slot's key) and
    /// its last sighting's time is in `rangedLastSeen`: neither is kept a second time here, as this
    /// is one entry per ranged beacon.
    private struct RangingEntry: Sendable {
        var sighting: BeaconSighting
        /// The distance when it last counted as a change (`rangingDistanceFactor`).
        var countedDistance: Double?
        /// Set once its silence passed `rangingUnknownAfter` and that counted as a change.
        var silent = false
        /// False once the slot is freed (`forgetRanged`).
        var inUse = true
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
        rangedEntries = []
        rangedLastSeen = []
        rangedIndex = [:]
        rangedByRegion = Array(repeating: [], count: unique.count)
        rangingChanged = Array(repeating: false, count: unique.count)
        nextDeadline = start
        lastRangingPrune = start
    }

    // MARK: - Queries

    /// The monitored regions, in configuration order.
    public var regions: [BeaconRegion] { index.regions }

    /// The positions of the regions an advertisement with this identity falls in, for
    /// `observe(_:matches:rangingSlot:at:)`; good until the regions are replaced.
    public func regionMatches(uuid: BeaconUUID, major: UInt16?, minor: UInt16?) -> RegionIndex.Matches {
        index.lookup(uuid: uuid, major: major, minor: minor)
    }

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
        // Ordered on small keys first (slot, distance, RSSI: what decides the order almost always),
        // then each entry built once, in place: sorting the built entries moved ~100-byte values
        // with a string in each, and that was a third of a list's cost.
        var keys: [RankKey] = []
        keys.reserveCapacity(rangedByRegion[position].count)
        for slot in rangedByRegion[position] {
            let silence = now.since(rangedLastSeen[Int(slot)])
            guard silence < settings.rangingForgetAfter, rangedEntries[Int(slot)].inUse else { continue }
            let proximity = rangedEntries[Int(slot)].sighting.proximity
            let silent = silence >= settings.rangingUnknownAfter
            keys.append(RankKey(
                slot: slot, silent: silent, unknown: silent || proximity == .unknown,
                distance: silent ? nil : rangedEntries[Int(slot)].sighting.distance,
                rssi: rangedEntries[Int(slot)].sighting.rssi))
        }
        // The comparator holds the entries alone: capturing `self` copied the whole monitor per list.
        let entries = rangedEntries
        keys.sort { a, b in Self.nearerFirst(a, b, entries) }
        var out: [RangedBeacon] = []
        out.reserveCapacity(keys.count)
        for key in keys {
            var beacon = RangedBeacon(sighting: rangedEntries[Int(key.slot)].sighting, lastSeen: rangedLastSeen[Int(key.slot)])
            if key.silent {
                beacon.proximity = .unknown
                beacon.distance = nil
            }
            out.append(beacon)
        }
        return out
    }

    /// What `RangedBeacon.nearerFirst` orders by, apart from the id and address of a tie.
    private struct RankKey {
        var slot: Int32
        /// Not heard for `rangingUnknownAfter`: shown `unknown`, without a distance.
        var silent: Bool
        /// Proximity `unknown` as shown.
        var unknown: Bool
        var distance: Double?
        var rssi: Double
    }

    /// `RangedBeacon.nearerFirst` on rank keys: the same order, the entries read only on a tie.
    private static func nearerFirst(_ a: RankKey, _ b: RankKey, _ entries: [RangingEntry]) -> Bool {
        if let decided = RangedBeacon.nearerFirst(
            unknown: a.unknown, distance: a.distance, rssi: a.rssi, than: b.unknown, distance: b.distance, rssi: b.rssi)
        { return decided }
        let x = Int(a.slot), y = Int(b.slot)
        if entries[x].sighting.beacon != entries[y].sighting.beacon {
            return entries[x].sighting.beacon < entries[y].sighting.beacon
        }
        return entries[x].sighting.address < entries[y].sighting.address
    }

    /// How many (beacon, address) pairs are remembered for ranging; bounded by what was heard within
    /// `rangingForgetAfter` (plus at most one second until the next prune).
    public var rememberedBeaconCount: Int { rangedIndex.count }

    // MARK: - Inputs

    /// One beacon heard at `now`: the regions it matches become `inside` (reporting `enter` on a
    /// crossing) and it joins their ranging lists. A beacon matching no region is not stored.
    public mutating func observe(_ sighting: BeaconSighting, at now: Instant) -> [RegionEvent] {
        guard let uuid = sighting.uuid else { return [] }
        var slot = Self.noRangingSlot
        return observe(sighting, matches: index.lookup(uuid: uuid, major: sighting.major, minor: sighting.minor),
                       rangingSlot: &slot, at: now)
    }

    /// No slot known yet, for `observe(_:matches:rangingSlot:at:)`.
    public static let noRangingSlot: Int32 = -1

    /// `observe(_:at:)` for a caller that keeps, per beacon it tracks, what the monitor needs again
    /// at every advertisement: `matches`, the regions of the sighting's identity (`lookup(uuid:major:minor:)`
    /// as of the current regions: look again after `replaceRegions`), and `rangingSlot`, the slot
    /// the monitor gave this beacon last time (start with `noRangingSlot`; it is checked against the
    /// identity and address, so a stale or foreign slot only costs a hash lookup).
    public mutating func observe(
        _ sighting: BeaconSighting, matches: RegionIndex.Matches, rangingSlot: inout Int32, at now: Instant
    ) -> [RegionEvent] {
        guard let uuid = sighting.uuid else { return [] }
        return observe(
            beacon: sighting.beacon, uuid: uuid, major: sighting.major, minor: sighting.minor, address: sighting.address,
            rssi: sighting.rssi, distance: sighting.distance, proximity: sighting.proximity, matches: matches,
            rangingSlot: &rangingSlot, at: now)
    }

    /// `observe(_:matches:rangingSlot:at:)` with the sighting in parts, for a caller that keeps the
    /// beacon's id: it is only borrowed, and stored (retained) only for a beacon not remembered yet.
    public mutating func observe(
        beacon: BeaconID, uuid: BeaconUUID, major: UInt16?, minor: UInt16?, address: BluetoothAddress,
        rssi: Double, distance: Double?, proximity: Proximity,
        matches: RegionIndex.Matches, rangingSlot: inout Int32, at now: Instant
    ) -> [RegionEvent] {
        guard !matches.isEmpty else { return [] }
        // The ranging entry first: the matched regions take its slot as their last beacon.
        let key = RangingKey(uuid: uuid, major: major, minor: minor, address: address)
        let slot: Int32
        if let found = rangedSlot(of: key, hint: rangingSlot) {
            slot = found
            let changed = rangingChanges(at: Int(slot), proximity: proximity, distance: distance)
            if rangedEntries[Int(slot)].sighting.beacon != beacon { renameRanged(slot, to: beacon) }
            Self.refresh(&rangedEntries[Int(slot)], rssi: rssi, distance: distance, proximity: proximity, changed: changed)
            rangedLastSeen[Int(slot)] = now
            if changed {
                for position in matches.byUUID { markRangingChanged(position) }
                for position in matches.byMajor { markRangingChanged(position) }
                for position in matches.byMinor { markRangingChanged(position) }
            }
        } else {
            let sighting = BeaconSighting(
                beacon: beacon, uuid: uuid, major: major, minor: minor, address: address, rssi: rssi, distance: distance,
                proximity: proximity)
            let entry = RangingEntry(sighting: sighting, countedDistance: distance)
            if let reused = freeRangedSlots.popLast() {
                slot = reused
                rangedEntries[Int(slot)] = entry
                rangedLastSeen[Int(slot)] = now
            } else {
                slot = Int32(rangedEntries.count)
                rangedEntries.append(entry)
                rangedLastSeen.append(now)
            }
            rangedIndex[key] = slot
            for position in matches.byUUID { joinRanging(position, slot) }
            for position in matches.byMajor { joinRanging(position, slot) }
            for position in matches.byMinor { joinRanging(position, slot) }
        }
        rangingSlot = slot

        var events: [RegionEvent] = []
        for index in matches.byUUID.indices { match(matches.byUUID[index], beacon, slot, at: now, into: &events) }
        for index in matches.byMajor.indices { match(matches.byMajor[index], beacon, slot, at: now, into: &events) }
        for index in matches.byMinor.indices { match(matches.byMinor[index], beacon, slot, at: now, into: &events) }
        nextDeadline = min(nextDeadline, now.advanced(by: settings.exitDelay))
        return events
    }

    /// A remembered beacon heard again, in place and field by field: its identity and address are
    /// the key's, so only the readings change; assigning the whole sighting copied it, its id with it.
    @inline(__always)
    private static func refresh(
        _ entry: inout RangingEntry, rssi: Double, distance: Double?, proximity: Proximity, changed: Bool
    ) {
        entry.sighting.rssi = rssi
        entry.sighting.distance = distance
        entry.sighting.proximity = proximity
        entry.silent = false
        if changed { entry.countedDistance = distance }
    }

    /// A remembered beacon heard under another id (two formats sharing an identity and address):
    /// the regions that named it last keep the id they heard.
    private mutating func renameRanged(_ slot: Int32, to beacon: BeaconID) {
        settleLastBeacon(slot)
        rangedEntries[Int(slot)].sighting.beacon = beacon
    }

    /// The regions whose last beacon is the one in `slot` (only regions its identity matches take
    /// its slot) hold its id themselves from now on: before the slot is freed or renamed.
    private mutating func settleLastBeacon(_ slot: Int32) {
        let sighting = rangedEntries[Int(slot)].sighting
        guard let uuid = sighting.uuid else { return }
        let index = self.index
        index.forEachMatch(uuid: uuid, major: sighting.major, minor: sighting.minor) { position in
            guard tracks[position].lastBeaconSlot == slot else { return }
            tracks[position].lastBeacon = sighting.beacon
            tracks[position].lastBeaconSlot = Self.noRangingSlot
        }
    }

    /// Every region's last beacon held by the region itself (before the regions or slots are re-filed).
    private mutating func settleAllLastBeacons() {
        for position in tracks.indices where tracks[position].lastBeaconSlot != Self.noRangingSlot {
            tracks[position].lastBeacon = rangedEntries[Int(tracks[position].lastBeaconSlot)].sighting.beacon
            tracks[position].lastBeaconSlot = Self.noRangingSlot
        }
    }

    /// The last matching beacon heard in the region at `position`.
    private func lastBeacon(at position: Int) -> BeaconID? {
        let slot = tracks[position].lastBeaconSlot
        return slot == Self.noRangingSlot ? tracks[position].lastBeacon : rangedEntries[Int(slot)].sighting.beacon
    }

    /// The slot of `key`: `hint` when it holds that key (no hashing), else by the index.
    private func rangedSlot(of key: RangingKey, hint: Int32) -> Int32? {
        if hint >= 0, Int(hint) < rangedEntries.count, holds(key, at: Int(hint)) { return hint }
        return rangedIndex[key]
    }

    /// Whether the slot is in use with this key; field by field (binding the entry would copy it).
    private func holds(_ key: RangingKey, at slot: Int) -> Bool {
        rangedEntries[slot].inUse && rangedEntries[slot].sighting.address == key.address
            && rangedEntries[slot].sighting.major == key.major && rangedEntries[slot].sighting.minor == key.minor
            && (rangedEntries[slot].sighting.uuid ?? BeaconUUID(high: 0, low: 0)) == key.uuid
    }

    /// Frees a ranged beacon's slot (the caller takes it out of the region lists).
    private mutating func forgetRanged(_ slot: Int32) {
        guard rangedEntries[Int(slot)].inUse else { return }
        settleLastBeacon(slot)
        rangedEntries[Int(slot)].inUse = false
        // The id is not kept for a free slot (as it was not when the slot held nil).
        rangedEntries[Int(slot)].sighting.beacon = BeaconID(rawValue: "")
        rangedLastSeen[Int(slot)] = Instant(seconds: .infinity)
        rangedIndex[RangingKey(rangedEntries[Int(slot)].sighting)] = nil
        freeRangedSlots.append(slot)
    }

    /// Whether a new sighting changes the published ranging of its regions: back from silence, a
    /// new proximity class, a distance appearing or vanishing, or one beyond the hysteresis factor.
    private func rangingChanges(at slot: Int, proximity: Proximity, distance: Double?) -> Bool {
        // Field by field: binding the entry would copy it.
        if !rangedEntries[slot].inUse || rangedEntries[slot].silent { return true }
        if !Self.same(rangedEntries[slot].sighting.proximity, proximity) { return true }
        switch (rangedEntries[slot].countedDistance, distance) {
        case (nil, nil): return false
        case (let old?, let new?):
            let factor = settings.rangingDistanceFactor
            return !(new <= old * factor && new * factor >= old)
        default: return true
        }
    }

    /// By `switch`: `==` on a String-backed enum may compare the strings (see `match`).
    private static func same(_ a: Proximity, _ b: Proximity) -> Bool {
        switch (a, b) {
        case (.immediate, .immediate), (.near, .near), (.far, .far), (.unknown, .unknown): return true
        default: return false
        }
    }

    private mutating func joinRanging(_ position: Int, _ slot: Int32) {
        rangedByRegion[position].insert(slot)
        markRangingChanged(position)
    }

    private mutating func markRangingChanged(_ position: Int) {
        guard !rangingChanged[position] else { return }
        rangingChanged[position] = true
        changedPositions.append(position)
    }

    /// The regions whose ranging list changed since the last call, at most `limit` of them, oldest
    /// change first; the rest stay due for the next call. A change is a beacon joining or leaving
    /// the list, a proximity change (also to `unknown` by silence, noticed at the once-a-second
    /// prune in `tick`), or a distance moving beyond `rangingDistanceFactor` since it last counted —
    /// not the reorders that RSSI noise makes among beacons at similar distances. The cost is the
    /// changed regions only, never a pass over all regions.
    public mutating func takeChangedRangingRegions(limit: Int = .max) -> [TopicLevelID] {
        guard !changedPositions.isEmpty, limit > 0 else { return [] }
        let count = min(limit, changedPositions.count)
        var out: [TopicLevelID] = []
        out.reserveCapacity(count)
        for position in changedPositions.prefix(count) {
            rangingChanged[position] = false
            out.append(index.regions[position].id)
        }
        changedPositions.removeFirst(count)
        return out
    }

    /// How many regions have a ranging change not yet taken.
    public var pendingRangingChangeCount: Int { changedPositions.count }

    /// A matching beacon heard for the region at `position`.
    private mutating func match(
        _ position: Int, _ beacon: BeaconID, _ slot: Int32, at now: Instant, into events: inout [RegionEvent]
    ) {
        // `switch`, not `==`: on a String-backed enum `==` may resolve to the RawRepresentable
        // overload and compare strings, measurably on this per-advertisement path.
        switch tracks[position].state {
        case .inside:
            guard now.since(tracks[position].lastMatch) >= settings.exitDelay else { break }
            // No tick came in time: the exit happened before this sighting; report it, then the entry.
            let region = index.regions[position]
            events.append(.stateChanged(region: region.id, state: .outside, at: now))
            if region.notifyOnExit {
                events.append(.exit(region: region.id, beacon: lastBeacon(at: position), at: now))
            }
            enter(position, beacon, at: now, into: &events)
        case .outside, .unknown:
            enter(position, beacon, at: now, into: &events)
        }
        if now > tracks[position].lastMatch { tracks[position].lastMatch = now }
        tracks[position].lastBeaconSlot = slot
        if tracks[position].lastBeacon != nil { tracks[position].lastBeacon = nil }
    }

    private mutating func enter(
        _ position: Int, _ beacon: BeaconID, at now: Instant, into events: inout [RegionEvent]
    ) {
        let region = index.regions[position]
        tracks[position].state = .inside
        events.append(.stateChanged(region: region.id, state: .inside, at: now))
        if region.notifyOnEntry { events.append(.enter(region: region.id, beacon: beacon, at: now)) }
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
                            events.append(.exit(region: region.id, beacon: lastBeacon(at: position), at: now))
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
        // Kept tracks move to new positions and slots may be freed below.
        settleAllLastBeacons()
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
        rangingChanged = Array(repeating: false, count: unique.count)
        changedPositions = []
        // Re-file remembered beacons under the new regions; drop those that match none now.
        for slot in rangedEntries.indices {
            guard rangedEntries[slot].inUse else { continue }
            let entry = rangedEntries[slot]
            var matchedAny = false
            if let uuid = entry.sighting.uuid {
                index.forEachMatch(uuid: uuid, major: entry.sighting.major, minor: entry.sighting.minor) { position in
                    matchedAny = true
                    rangedByRegion[position].insert(Int32(slot))
                }
            }
            if !matchedAny { forgetRanged(Int32(slot)) }
        }
        // Positions moved: every region with beacons is due again.
        for position in rangedByRegion.indices where !rangedByRegion[position].isEmpty { markRangingChanged(position) }
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
        let unknownAfter = settings.rangingUnknownAfter
        let index = self.index
        let earliest = min(unknownAfter, forgetAfter)
        for slot in rangedLastSeen.indices {
            let silence = now.since(rangedLastSeen[slot])
            // A free slot's +∞ gives a silence of -∞: never due.
            guard silence >= earliest else { continue }
            if silence >= forgetAfter {
                let sighting = rangedEntries[slot].sighting
                forgetRanged(Int32(slot))
                guard let uuid = sighting.uuid else { continue }
                index.forEachMatch(uuid: uuid, major: sighting.major, minor: sighting.minor) { position in
                    rangedByRegion[position].remove(Int32(slot))
                    markRangingChanged(position)
                }
            } else if silence >= unknownAfter && !rangedEntries[slot].silent {
                rangedEntries[slot].silent = true
                let sighting = rangedEntries[slot].sighting
                if let uuid = sighting.uuid {
                    index.forEachMatch(uuid: uuid, major: sighting.major, minor: sighting.minor) { markRangingChanged($0) }
                }
            }
        }
    }

    private static func uniqueByID(_ regions: [BeaconRegion]) -> [BeaconRegion] {
        var seen = Set<TopicLevelID>()
        return regions.filter { seen.insert($0.id).inserted }
    }
}
