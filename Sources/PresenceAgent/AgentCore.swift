// Over 500 lines because one type earns it: `AgentCore` is the agent's whole state machine, and
// its per-advertisement path reads its tracks, monitor and publish state together.
import BeaconCore

/// The agent of one node as a state machine: advertisements, configuration messages and clock
/// ticks in; publications, files to persist and log lines out. No I/O and no clock of its own, so
/// a capture replays through it at CPU speed and tests drive it with plain values.
///
/// What it does (docs/MQTT.md, docs/Semantics.md): tracks each measured beacon (Kalman filter, distance,
/// proximity) and publishes measurements by the publish policy; monitors regions (state, enter/exit,
/// ranging); applies configuration pushed from the broker whole or not at all, answers with a status
/// and asks for it to be persisted.
public struct AgentCore: Sendable {
    public struct Settings: Sendable {
        public var node: TopicLevelID
        /// The room this node serves, unless the node config from the broker says otherwise.
        public var room: TopicLevelID
        public var topics: TopicScheme
        public var tracking: TrackingParameters
        public var monitor: RegionMonitorSettings
        /// Measure every decodable beacon, not only known ones and those in a region (discovery).
        public var reportUnknown: Bool
        /// Ranging of a region is published when its list changes (beacons, order, proximity) and
        /// otherwise at least this often while it has beacons, seconds (default 30).
        public var rangingHeartbeat: Double
        /// A beacon silent this long is forgotten (its filter and publish state dropped), seconds.
        public var forgetAfter: Double
        /// At most this many beacons are tracked at once (default 10,000). At the cap a new beacon
        /// takes the place of the longest silent one that matches nothing (discovery only); beacons
        /// in a region give way only to other beacons in a region; known beacons (`config/beacons`,
        /// bounded by that message) are always tracked. What is dropped is counted
        /// (`droppedBeaconCount`).
        public var maximumTracks: Int
        /// Ranging lists rebuilt and published per tick at most, changes and heartbeats together
        /// (default 1,000): a burst is spread over the following seconds instead of stalling the agent.
        public var rangingRegionsPerTick: Int
        /// Emit a `.record` action per advertisement of a measured beacon (`--record FILE`).
        public var recordsSamples = false
        /// Known beacons and devices from the agent's own file (YAML `beacons`), in force while the
        /// broker has pushed no `config/beacons` (a pushed list replaces them whole).
        public var knownBeacons: [KnownBeacon] = []
        /// The file set `tracking.rssiOffset` (or `presence-agent calibrate` stored one): the operator's offset, which wins over the
        /// aggregator's calibration (`AgentCore.rssiOffsetSource`).
        public var operatorSetRSSIOffset = false

        public init(
            node: TopicLevelID, room: TopicLevelID, topics: TopicScheme = .default,
            tracking: TrackingParameters = .default, monitor: RegionMonitorSettings = RegionMonitorSettings(),
            reportUnknown: Bool = false, rangingHeartbeat: Double = 30, forgetAfter: Double = 60,
            maximumTracks: Int = 10_000, rangingRegionsPerTick: Int = 1_000
        ) {
            self.node = node
            self.room = room
            self.topics = topics
            self.tracking = tracking
            self.monitor = monitor
            self.reportUnknown = reportUnknown
            self.rangingHeartbeat = rangingHeartbeat
            self.forgetAfter = forgetAfter
            self.maximumTracks = maximumTracks
            self.rangingRegionsPerTick = rangingRegionsPerTick
        }
    }

    /// Per beacon: its track and what was last heard from it.
    ///
    /// One of these per tracked beacon (10,000 by default), so the field order matters: the one-
    /// and four-byte fields follow `track` (129 bytes) and fill its padding instead of adding their own.
    struct TrackedBeacon: Sendable {
        /// Its filter, classifier and publish state; the parameters are `trackTuning`, kept once.
        var track: BeaconTrack.State
        /// The format of the last advertisement: all a measurement needs of it besides the id (an
        /// iBeacon's uuid, major and minor are its key's), in one byte instead of a `Beacon?` (33).
        /// nil for one with no beacon format (tracked by its address).
        var format: BeaconFormat?
        /// Its slot in the region monitor's ranging table, handed back at the next advertisement.
        var rangingSlot: Int32
        var lastHeard: Instant
        var address: BluetoothAddress
        /// The canonical id, rendered once when tracking starts.
        let id: BeaconID
        /// The regions its identity matches, looked up when `matchedRevision` is not
        /// `AgentCore.regionsRevision` (the regions changed since): not at every advertisement.
        var regionMatches: RegionIndex.Matches
        var matchedRevision: Int
    }

    /// What keeps a beacon tracked, in the order the cap gives way: `other` (matches nothing;
    /// measured in discovery only) first, then `region`; `known` never.
    enum TrackClass: Int, Sendable {
        case known = 0
        case region = 1
        case other = 2
    }

    /// The settings given at start; `effective` adds what the node config changed.
    public let baseSettings: Settings
    // Internal rather than private: the configuration half lives in AgentCore+Configuration.swift.
    public internal(set) var effective: Settings {
        didSet {
            trackTuning = BeaconTrack.Tuning(effective.tracking)
            nodeAndRoomJSON = Self.nodeAndRoomJSON(effective)
        }
    }
    /// `,"node":"…","room":"…"` of every measurement and ranging entry, written once per settings.
    private var nodeAndRoomJSON: [UInt8]
    /// `effective.tracking` as every track uses it: once for all beacons, not copied into each
    /// (tracks are dropped whenever it changes, so each was made with the one in force).
    private(set) var trackTuning: BeaconTrack.Tuning
    var monitor: RegionMonitor
    var regionsConfig: RegionsConfig?
    var beaconsConfig: KnownBeaconsConfig?
    var nodeSettings: NodeSettings?
    /// The aggregator's last calibration of this node, applied unless the operator set an offset.
    var calibration: PushedCalibration?
    var knownBeacons: [BeaconID: KnownBeacon] = [:]
    /// The same, by parsed id: the per-advertisement lookup hashes numbers, not a 56-character id.
    var knownByIdentity: [BeaconID.Components: KnownBeacon] = [:]
    /// Resolves private addresses under the known devices' keys (empty without any).
    var resolver = PrivateAddressResolver(hashes: [])
    /// The identity of each of the resolver's keys, by key index: `.irk(…)`.
    var resolverIdentities: [BeaconID.Components] = []
    var tracks = TrackTable()
    /// Counts changes of the monitored regions (each replaces or rebuilds `monitor`): a track's
    /// cached `regionMatches` is good while its `matchedRevision` equals this.
    var regionsRevision = 0
    /// Per region: when its ranging was last published and whether that list had beacons.
    private var lastRanging: [TopicLevelID: (at: Instant, hadBeacons: Bool)] = [:]
    /// Bytes reserved per measurement and per ranging entry: each payload is written straight into
    /// the array it is published with (no copy out of a shared buffer), and rarely grows.
    private static let payloadEntryCapacity = 512
    /// Where each measurement and ranging entry is written before it is appended to its payload at
    /// once (`JSONBytes.append(to:capacity:scratch:)`); kept, so it is allocated once.
    private var jsonScratch: [UInt8] = []
    /// The answer to the last config message, re-published on reconnect.
    var configStatus: AgentPublication?
    /// The known (inside/outside) state of each region, to be persisted.
    var savedRegionStates: [TopicLevelID: RegionState] = [:]
    /// `savedRegionStates` changed since it was last persisted. Written at the next tick, not at
    /// each change: a thousand regions entered in one second are one file write, not a thousand
    /// (each with fsync).
    var regionStatesUnsaved = false

    // Counters for telemetry.
    public private(set) var advertisementCount = 0
    public private(set) var measurementCount = 0
    /// Beacons not tracked because of `maximumTracks`: evicted for a newer one, or refused.
    public private(set) var droppedBeaconCount = 0
    /// The same, for older callers.
    public var evictedTrackCount: Int { droppedBeaconCount }
    /// What restoring the state files had to say, for the service's log.
    public internal(set) var startupLog: [AgentAction] = []
    /// State files from an earlier run that no longer validate (the service sets them aside).
    public internal(set) var rejectedStateFiles: [String] = []
    /// Says so while the node hears beacons but measures none (a new node); counts unmatched ones.
    public var hint: MeasuringHint

    /// Starts the agent at `start` with the settings and the configuration persisted by an earlier
    /// run (file name → contents). Persisted files that do not parse are reported and ignored.
    public init(settings: Settings, persisted: [String: [UInt8]] = [:], at start: Instant) {
        baseSettings = settings
        effective = settings
        trackTuning = BeaconTrack.Tuning(settings.tracking)
        nodeAndRoomJSON = Self.nodeAndRoomJSON(settings)
        monitor = RegionMonitor(regions: [], settings: settings.monitor, at: start)
        hint = MeasuringHint(start: start)
        setKnownBeacons(settings.knownBeacons)
        startupLog = restore(persisted, at: start)
        if let line = MeasuringHint.startLine(
            regions: monitor.regions.count, knownBeacons: knownBeacons.count, reportUnknown: effective.reportUnknown,
            beaconsTopic: effective.topics.configBeacons)
        {
            startupLog.append(line)
        }
    }

    public var trackedBeaconCount: Int { tracks.count }
    /// Reports that carried no RSSI (127): presence for regions, no measurement.
    public private(set) var rssiUnavailableCount = 0
    public var regionCount: Int { monitor.regions.count }
    public var room: TopicLevelID { effective.room }

    /// The revisions in force, for the info topic: `{"regions":7,"beacons":3,"node":2}`.
    public var configRevisionJSON: String {
        var json = JSONObjectWriter()
        if let regionsConfig { json.add("regions", Int(regionsConfig.revision)) }
        if let beaconsConfig { json.add("beacons", Int(beaconsConfig.revision)) }
        if let nodeSettings { json.add("node", Int(nodeSettings.revision)) }
        return json.json
    }

    /// Retained state to (re-)publish after every connect: region states and the last config status.
    /// (`status` and `info` are the service's: they carry process facts.)
    public func retainedPublications() -> [AgentPublication] {
        var out = monitor.states.map { regionStatePublication($0.region, $0.state) }
        if let configStatus { out.append(configStatus) }
        return out
    }

    /// Every tracked beacon's current measurement, for the service to publish on each connect:
    /// measurements are QoS 0 and one published while the broker was away is gone, so a still
    /// beacon would otherwise wait for its heartbeat. Beacons no longer heard are left out.
    public mutating func currentMeasurements(at time: Instant) -> [AgentPublication] {
        var out: [AgentPublication] = []
        for group in [TrackClass.known, .region, .other] {
            var next = tracks.oldest(group)
            while let slot = next {
                next = tracks.newer(than: slot)
                if let update = tracks[slot].track.current(at: time, trackTuning) {
                    out.append(measurement(slot, update, at: tracks[slot].lastHeard))
                }
            }
        }
        return out
    }

    // MARK: - Advertisements

    public mutating func observe(_ advertisement: DecodedAdvertisement) -> [AgentAction] {
        advertisementCount += 1
        let time = advertisement.time
        let address = advertisement.report.address
        // A phone or watch known by its key is one identity across its addresses (AgentCore+Identities).
        let resolved = resolver.isEmpty ? nil : resolvedIdentity(address, type: advertisement.report.addressType)
        let key = resolved ?? advertisement.beacon?.identity(address: address) ?? .mac(address)
        // The key decides the region identity, so a tracked beacon's matches are cached in its slot
        // (and read there: a copy of them cost three retains and releases). A resolved device is
        // matched by its key alone: whatever beacon it may also send is not its identity.
        let identity = resolved == nil ? Self.regionIdentity(advertisement.beacon) : nil
        // Other nodes' beacons are always measured: the aggregator calibrates the receivers from them.
        let nodeBeacon = resolved == nil && Self.isNodeBeacon(advertisement.beacon)
        let slot: Int
        if let existing = tracks.slot(of: key) {
            let matchesRegion = Self.matchesRegion(&tracks[existing], identity, monitor, regionsRevision) || nodeBeacon
            // Known or not cannot change while a beacon is tracked (new known beacons start every
            // track afresh): a tracked one is known exactly when it is on the known list.
            let isKnown = tracks.group(at: existing) == .known
            guard matchesRegion || isKnown || (effective.reportUnknown && advertisement.beacon != nil) else { return [] }
            let group: TrackClass = isKnown ? .known : matchesRegion ? .region : .other
            slot = existing
            tracks.touch(slot, group: tracks.group(at: slot) == group ? nil : group)
        } else {
            let matches = identity.map { monitor.regionMatches(uuid: $0.uuid, major: $0.major, minor: $0.minor) } ?? RegionIndex.Matches.empty
            let known = knownByIdentity.isEmpty ? nil : knownByIdentity[key]
            let matchesRegion = !matches.isEmpty || nodeBeacon
            guard matchesRegion || known != nil || (effective.reportUnknown && advertisement.beacon != nil) else {
                if advertisement.beacon != nil { hint.heardUnmatched(key, at: time) }
                return []
            }
            let group: TrackClass = known != nil ? .known : matchesRegion ? .region : .other
            guard makeRoom(for: group) else { return [] }
            slot = tracks.insert(key, TrackedBeacon(
                track: BeaconTrack.State(trackTuning, configuredMeasuredPower: known?.measuredPower, worn: known?.worn ?? false),
                format: advertisement.beacon?.kind, rangingSlot: RegionMonitor.noRangingSlot,
                lastHeard: time, address: address, id: BeaconID(key),
                regionMatches: matches, matchedRevision: regionsRevision), group: group)
        }

        guard let rssi = advertisement.report.rssi else {
            return observeWithoutRSSI(slot, address: address, beacon: advertisement.beacon, identity: identity, at: time)
        }
        var actions: [AgentAction] = []
        let measuredPower = advertisement.beacon?.measuredPower
        if effective.recordsSamples {
            actions.append(.record(TraceSample(
                time: time, node: effective.node.rawValue, room: effective.room.rawValue, beacon: tracks[slot].id,
                rssi: Int(rssi), measuredPower: measuredPower)))
        }
        let update = Self.hear(
            &tracks[slot], rssi: Int(rssi), measuredPower: measuredPower, address: address, beacon: advertisement.beacon,
            at: time, trackTuning)
        if update.shouldPublish {
            actions.append(.publish(measurement(slot, update, at: time)))
        }
        if let identity {
            let events = Self.observeRegions(
                &tracks[slot], &monitor, identity, address, rssi: update.rssiFiltered, distance: update.distance,
                proximity: update.proximity, at: time)
            if !events.isEmpty { actions += regionActions(events) }
        }
        return actions
    }

    /// A report without an RSSI (127, "not available": BlueZ's emulated controllers send only these,
    /// some controllers do on some PHYs) says the beacon is here, not how far. It keeps the beacon
    /// tracked and counts for its regions (state, enter, ranging with proximity `unknown` and no
    /// distance), but is no measurement: docs/MQTT.md's measurement with proximity `unknown` and no RSSI
    /// means "this node stopped hearing it", and the aggregator would drop this node's evidence, so
    /// none is published for it, and it is no evidence of a room. A beacon whose RSSI stopped while
    /// such reports go on gets that measurement once, as when it falls silent (its range is gone).
    /// While reports with an RSSI keep its track current (heard within `unknownAfter`), those carry
    /// its regions, with a distance, and this one changes nothing there.
    private mutating func observeWithoutRSSI(
        _ slot: Int, address: BluetoothAddress, beacon: Beacon?, identity: (uuid: BeaconUUID, major: UInt16, minor: UInt16)?,
        at time: Instant
    ) -> [AgentAction] {
        rssiUnavailableCount += 1
        var actions: [AgentAction] = []
        tracks[slot].lastHeard = time
        tracks[slot].address = address
        tracks[slot].format = beacon?.kind
        if tracks[slot].track.checkSilence(at: time, trackTuning) != nil {
            actions.append(.publish(silenceMeasurement(slot, at: time)))
        }
        guard let identity else { return actions }
        if let ranged = tracks[slot].track.lastHeard, time - ranged <= effective.tracking.proximity.unknownAfter { return actions }
        let events = Self.observeRegions(
            &tracks[slot], &monitor, identity, address,
            // No reading: `unknown` ranks after every beacon with one; the RSSI is never published for it.
            rssi: Self.noRSSI, distance: nil, proximity: .unknown, at: time)
        if !events.isEmpty { actions += regionActions(events) }
        return actions
    }

    /// The ranking value of a beacon heard without an RSSI: below any RSSI a controller reports.
    static let noRSSI = -128.0

    /// One advertisement into a tracked beacon, in one access to its entry (each field written
    /// through the table on its own checked the table's storage again).
    @inline(__always)
    private static func hear(
        _ entry: inout TrackedBeacon, rssi: Int, measuredPower: Int?, address: BluetoothAddress, beacon: Beacon?,
        at time: Instant, _ tuning: BeaconTrack.Tuning
    ) -> TrackUpdate {
        let update = entry.track.observe(rssi: rssi, measuredPower: measuredPower, at: time, tuning)
        entry.lastHeard = time
        entry.address = address
        entry.format = beacon?.kind
        return update
    }

    /// Whether a tracked beacon matches a region, its cached matches looked up again when the
    /// regions changed since. Through `inout`, as the next two: reading a field of a tracked beacon
    /// by value copied the whole entry (its id and three match lists retained and released).
    @inline(__always)
    private static func matchesRegion(
        _ entry: inout TrackedBeacon, _ identity: (uuid: BeaconUUID, major: UInt16, minor: UInt16)?,
        _ monitor: RegionMonitor, _ regionsRevision: Int
    ) -> Bool {
        if entry.matchedRevision != regionsRevision {
            entry.regionMatches =
                identity.map { monitor.regionMatches(uuid: $0.uuid, major: $0.major, minor: $0.minor) } ?? RegionIndex.Matches.empty
            entry.matchedRevision = regionsRevision
        }
        return !entry.regionMatches.isEmpty
    }

    /// A tracked beacon's sighting into the region monitor, with the matches and ranging slot it keeps.
    @inline(__always)
    private static func observeRegions(
        _ entry: inout TrackedBeacon, _ monitor: inout RegionMonitor, _ identity: (uuid: BeaconUUID, major: UInt16, minor: UInt16),
        _ address: BluetoothAddress, rssi: Double, distance: Double?, proximity: Proximity, at time: Instant
    ) -> [RegionEvent] {
        // In parts, not a `BeaconSighting`: the id is lent, not retained (a cache miss per advert).
        monitor.observe(
            beacon: entry.id, uuid: identity.uuid, major: identity.major, minor: identity.minor, address: address,
            rssi: rssi, distance: distance, proximity: proximity,
            matches: entry.regionMatches, rangingSlot: &entry.rangingSlot, at: time)
    }

    /// Makes room under `maximumTracks` for a new beacon of `group`; false when it cannot be
    /// tracked (counted as dropped).
    private mutating func makeRoom(for group: TrackClass) -> Bool {
        guard tracks.count >= effective.maximumTracks, group != .known else { return true }
        let victim = tracks.oldest(.other) ?? (group == .region ? tracks.oldest(.region) : nil)
        droppedBeaconCount += 1
        guard let victim else { return false }
        tracks.remove(victim)
        return true
    }

    // MARK: - Time

    /// Call at least once a second: region exits, beacons gone silent, ranging.
    public mutating func tick(at time: Instant) -> [AgentAction] {
        var actions = regionActions(monitor.tick(at: time))
        // Each list is oldest first: walk only the beacons silent for longer than the track's
        // `unknownAfter` (the forgotten ones go; the track says once when one fell silent, and the
        // node then says it is not heard).
        let silentAfter = effective.tracking.proximity.unknownAfter
        for group in [TrackClass.known, .region, .other] {
            var next = tracks.oldest(group)
            while let slot = next, time - tracks[slot].lastHeard > min(silentAfter, effective.forgetAfter) {
                next = tracks.newer(than: slot)
                if time - tracks[slot].lastHeard >= effective.forgetAfter {
                    tracks.remove(slot)
                } else if tracks[slot].track.checkSilence(at: time, trackTuning) != nil {
                    actions.append(.publish(silenceMeasurement(slot, at: time)))
                }
            }
        }
        actions += rangingActions(at: time)
        actions += pendingPersistence()
        if let line = hint.check(
            at: time, adverts: advertisementCount, measured: tracks.count + measurementCount, regions: monitor.regions.count,
            knownBeacons: knownBeacons.count, beaconsTopic: effective.topics.configBeacons)
        {
            actions.append(line)
        }
        return actions
    }

    // MARK: - Publications

    /// A measurement: `MeasurementPayload`'s bytes, written straight into the array it is published with.
    mutating func measurement(_ slot: Int, _ update: TrackUpdate, at time: Instant) -> AgentPublication {
        measurementCount += 1
        return measurementPublication(
            slot, rssi: update.rssi, rssiFiltered: update.rssiFiltered, sigma: update.sigma,
            measuredPower: Int(update.measuredPower.rounded()), distance: update.distance, proximity: update.proximity,
            at: time)
    }

    /// One measurement that says the node no longer hears the beacon: proximity `unknown`, no
    /// distance and no RSSI (the last ones heard are stale by now; the timestamp says when).
    private mutating func silenceMeasurement(_ slot: Int, at time: Instant) -> AgentPublication {
        measurementCount += 1
        return measurementPublication(
            slot, rssi: nil, rssiFiltered: nil, sigma: nil, measuredPower: nil, distance: nil, proximity: .unknown, at: time)
    }

    private mutating func measurementPublication(
        _ slot: Int, rssi: Int?, rssiFiltered: Double?, sigma: Double?, measuredPower: Int?, distance: Double?,
        proximity: Proximity, at time: Instant
    ) -> AgentPublication {
        let entry = tracks[slot]
        let known = knownByIdentity.isEmpty ? nil : knownByIdentity[tracks.key(at: slot)]
        let topicID = known?.topicID ?? entry.id.rawValue
        let format = entry.format?.name
        var textBytes = topicID.utf8.count + entry.id.rawValue.utf8.count
        textBytes += (known?.name?.utf8.count ?? 0) + (format?.utf8.count ?? 0)
        var out: [UInt8] = []
        out.reserveCapacity(Self.payloadEntryCapacity + (known?.name?.utf8.count ?? 0))
        let nodeAndRoomJSON = self.nodeAndRoomJSON
        JSONBytes.append(
            to: &out, capacity: MeasurementPayload.capacity(textBytes: textBytes) + nodeAndRoomJSON.count,
            scratch: &jsonScratch
        ) { json in
            MeasurementPayload.writeHead(id: topicID, beacon: entry.id, name: known?.name, to: &json)
            json.append(nodeAndRoomJSON)
            MeasurementPayload.writeReadings(
                rssi: rssi, rssiFiltered: rssiFiltered, sigma: sigma, measuredPower: measuredPower, distance: distance,
                proximity: proximity, to: &json)
            json.append(",\"address\":")
            json.appendQuoted(entry.address)
            if let format {
                json.append(",\"format\":")
                json.appendQuoted(format)
            }
            if entry.format == .iBeacon, case .iBeacon(let uuid, let major, let minor) = tracks.key(at: slot) {
                MeasurementPayload.writeIdentity(uuid: uuid, major: major, minor: minor, to: &json)
            }
            json.append(",\"timestamp\":")
            json.appendQuotedTimestamp(time)
            json.append(UInt8(ascii: "}"))
        }
        return AgentPublication(
            topic: effective.topics.measurement(topicID, effective.node), payload: out, qos: .atMostOnce, retain: false)
    }

    func regionStatePublication(_ region: TopicLevelID, _ state: RegionState) -> AgentPublication {
        AgentPublication(topic: effective.topics.regionState(effective.node, region), text: state.rawValue, qos: .atLeastOnce, retain: true)
    }

    mutating func regionActions(_ events: [RegionEvent]) -> [AgentAction] {
        var actions: [AgentAction] = []
        for event in events {
            switch event {
            case .stateChanged(let region, let state, _):
                let saved: RegionState? = state == .unknown ? nil : state
                if savedRegionStates[region] != saved {
                    savedRegionStates[region] = saved
                    regionStatesUnsaved = true
                }
                actions.append(.publish(regionStatePublication(region, state)))
            case .enter(let region, let beacon, let at):
                actions.append(.publish(regionEvent("enter", region, beacon, at)))
            case .exit(let region, let beacon, let at):
                actions.append(.publish(regionEvent("exit", region, beacon, at)))
            case .removed(let region):
                if savedRegionStates.removeValue(forKey: region) != nil { regionStatesUnsaved = true }
                lastRanging[region] = nil
                // An empty retained message removes the state topic from the broker.
                actions.append(.publish(AgentPublication(
                    topic: effective.topics.regionState(effective.node, region), payload: [], qos: .atLeastOnce, retain: true)))
            }
        }
        return actions
    }

    /// What is not yet persisted (the region states, saved at most once a tick): for the service
    /// to write when it stops.
    public mutating func pendingPersistence() -> [AgentAction] {
        guard regionStatesUnsaved else { return [] }
        regionStatesUnsaved = false
        return [.persist(file: StateFile.regionStates, contents: Array(regionStatesJSON.utf8))]
    }

    /// `{"office":"inside",…}` in region order.
    var regionStatesJSON: String {
        var json = JSONObjectWriter()
        for region in monitor.regions {
            if let state = savedRegionStates[region.id] { json.add(region.id.rawValue, state.rawValue) }
        }
        return json.json
    }

    private func regionEvent(_ kind: String, _ region: TopicLevelID, _ beacon: BeaconID?, _ at: Instant) -> AgentPublication {
        var json = JSONObjectWriter()
        json.add("event", kind)
        json.add("region", region.rawValue)
        json.add("node", effective.node.rawValue)
        json.add("room", effective.room.rawValue)
        if let beacon { json.add("beacon", knownBeacons[beacon]?.topicID ?? beacon.rawValue) } else { json.addNull("beacon") }
        json.add("at", ISO8601Timestamp.string(from: at))
        return AgentPublication(
            topic: effective.topics.regionEvent(effective.node, region), text: json.json, qos: .atLeastOnce, retain: false)
    }

    /// Ranging, incrementally: only regions whose list changed (the monitor says which: beacons
    /// joining or leaving, proximity changes, distances beyond its hysteresis — not noisy
    /// reorders), at most `rangingRegionsPerTick` of them, plus the heartbeat of lists with beacons.
    private mutating func rangingActions(at time: Instant) -> [AgentAction] {
        var actions: [AgentAction] = []
        let changed = monitor.takeChangedRangingRegions(limit: effective.rangingRegionsPerTick)
        for region in changed {
            if let publication = rangingPublication(region, at: time) { actions.append(.publish(publication)) }
        }
        // Heartbeats: a list with beacons not published for `rangingHeartbeat` goes out as it is,
        // within what the changes left of the budget (the rest stay due for the next tick).
        let budget = effective.rangingRegionsPerTick - changed.count
        guard budget > 0 else { return actions }
        let heartbeat = effective.rangingHeartbeat
        var due: [TopicLevelID] = []
        for (region, last) in lastRanging where last.hadBeacons && time - last.at >= heartbeat {
            due.append(region)
            if due.count == budget { break }
        }
        for region in due {
            if let publication = rangingPublication(region, at: time) { actions.append(.publish(publication)) }
        }
        return actions
    }

    /// The region's list now, unless it is empty and was empty when last published (or never was).
    private mutating func rangingPublication(_ region: TopicLevelID, at time: Instant) -> AgentPublication? {
        let ranged = monitor.ranging(regionID: region, at: time)
        if ranged.isEmpty && !(lastRanging[region]?.hadBeacons ?? false) { return nil }
        lastRanging[region] = (time, !ranged.isEmpty)
        return AgentPublication(
            topic: effective.topics.regionRanging(effective.node, region), payload: rangingPayload(ranged),
            qos: .atMostOnce, retain: false)
    }

    /// The most a ranging entry takes apart from its strings (id, beacon, name) and the node and
    /// room: keys and punctuation (146 bytes with a name), two numbers of at most 32, the address
    /// (19), the UUID (38), major and minor (5 each) and the timestamp (26), rounded up.
    private static let rangedEntryFixedCapacity = 360

    /// The list as a JSON array, each entry what `MeasurementPayload.write` writes for it (id or
    /// alias, no RSSI of its own, the filtered RSSI unless `unknown`), byte for byte. Sized once at
    /// worst and written in one pass into the array it is published with; each id is checked for
    /// escapes once and, when clean (always, for the canonical forms), copied as it is for both
    /// `id` and `beacon` (the escape check was a fifth of an entry's cost, done twice per id).
    private func rangingPayload(_ ranged: [RangedBeacon]) -> [UInt8] {
        let nodeAndRoomJSON = self.nodeAndRoomJSON
        // Known beacons are looked up once per entry (a hash of the id), kept only when there are any.
        let known: [KnownBeacon?] = knownBeacons.isEmpty ? [] : ranged.map { knownBeacons[$0.beacon] }
        var capacity = 2 + ranged.count * (1 + Self.rangedEntryFixedCapacity + nodeAndRoomJSON.count)
        var clean = true
        var textBytes = 0
        for position in ranged.indices {
            let beacon = ranged[position].beacon.rawValue
            if clean && JSONBytes.needsEscape(beacon) { clean = false }
            if !known.isEmpty, let entryKnown = known[position] {
                textBytes += entryKnown.topicID.utf8.count + beacon.utf8.count + (entryKnown.name?.utf8.count ?? 0)
                if clean && JSONBytes.needsEscape(entryKnown.topicID) { clean = false }
                if clean, let name = entryKnown.name, JSONBytes.needsEscape(name) { clean = false }
            } else {
                textBytes += 2 * beacon.utf8.count
            }
        }
        // Each of an entry's three strings quoted (6), and escaped at worst (`\u00XX` per byte)
        // unless every string of the list is clean.
        capacity += 6 * ranged.count + (clean ? textBytes : 6 * textBytes)
        return JSONBytes.bytes(capacity: capacity) { json in
            json.append(UInt8(ascii: "["))
            for position in ranged.indices {
                if position > 0 { json.append(UInt8(ascii: ",")) }
                Self.writeRanged(ranged[position], known: known, at: position, clean: clean, nodeAndRoomJSON: nodeAndRoomJSON, to: &json)
            }
            json.append(UInt8(ascii: "]"))
        }
    }

    /// A ranging entry's `{"id":…,"beacon":…[,"name":…]`; `clean`: its strings were checked and
    /// need no escapes.
    private static func writeRangedOpening(
        _ ranged: RangedBeacon, known: KnownBeacon?, clean: Bool, to json: inout JSONByteCursor
    ) {
        if clean {
            let beacon = ranged.beacon.rawValue
            json.append("{\"id\":")
            json.appendQuotedVerbatim(known?.topicID ?? beacon)
            json.append(",\"beacon\":")
            json.appendQuotedVerbatim(beacon)
            if let name = known?.name {
                json.append(",\"name\":")
                json.appendQuotedVerbatim(name)
            }
        } else {
            MeasurementPayload.writeHead(
                id: known?.topicID ?? ranged.beacon.rawValue, beacon: ranged.beacon, name: known?.name, to: &json)
        }
    }

    /// One ranging entry; `known`: the known beacon of each entry of the list, or none at all.
    /// The entry is read in one place (each call it was handed to copied it, its id retained).
    @inline(__always)
    private static func writeRanged(
        _ ranged: RangedBeacon, known: [KnownBeacon?], at position: Int, clean: Bool, nodeAndRoomJSON: [UInt8],
        to json: inout JSONByteCursor
    ) {
        if known.isEmpty && clean {
            // The common case apart: no optional known beacon copied and destroyed per entry.
            json.appendOpeningVerbatim(id: ranged.beacon.rawValue)
        } else {
            writeRangedOpening(ranged, known: known.isEmpty ? nil : known[position], clean: clean, to: &json)
        }
        json.append(nodeAndRoomJSON)
        MeasurementPayload.writeReadings(
            rssi: nil, rssiFiltered: ranged.proximity == .unknown ? nil : ranged.rssi, sigma: nil, measuredPower: nil,
            distance: ranged.distance, proximity: ranged.proximity, to: &json)
        json.append(",\"address\":")
        json.appendQuoted(ranged.address)
        if let uuid = ranged.uuid {
            // The format and the UUID's key in one piece: an entry with a UUID is an iBeacon's.
            json.append(",\"format\":\"ibeacon\",\"uuid\":")
            json.appendQuoted(uuid)
        }
        MeasurementPayload.writeIdentity(uuid: nil, major: ranged.major, minor: ranged.minor, to: &json)
        json.append(",\"timestamp\":")
        json.appendQuotedTimestamp(ranged.lastSeen)
        json.append(UInt8(ascii: "}"))
    }

    static func nodeAndRoomJSON(_ settings: Settings) -> [UInt8] {
        var out: [UInt8] = []
        JSONBytes.append(",\"node\":", to: &out)
        JSONBytes.appendQuoted(settings.node.rawValue, to: &out)
        JSONBytes.append(",\"room\":", to: &out)
        JSONBytes.appendQuoted(settings.room.rawValue, to: &out)
        return out
    }

    /// The identity regions match on: iBeacons, and AltBeacons whose id is uuid + major + minor
    /// (the Android Beacon Library's layout).
    /// An iBeacon with the node beacons' UUID (`NodeBeacon`).
    static func isNodeBeacon(_ beacon: Beacon?) -> Bool {
        if case .iBeacon(let b)? = beacon { return NodeBeacon.isNodeBeacon(uuid: b.uuid) }
        return false
    }

    static func regionIdentity(_ beacon: Beacon?) -> (uuid: BeaconUUID, major: UInt16, minor: UInt16)? {
        switch beacon {
        case .iBeacon(let b)?: return (b.uuid, b.major, b.minor)
        case .altBeacon(let b)?: return (b.beaconID.leading, b.beaconID.id2, b.beaconID.id3)
        default: return nil
        }
    }
}
