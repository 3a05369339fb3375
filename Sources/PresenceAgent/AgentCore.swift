import BeaconCore

/// The agent of one node as a state machine: advertisements, configuration messages and clock
/// ticks in; publications, files to persist and log lines out. No I/O and no clock of its own, so
/// a capture replays through it at CPU speed and tests drive it with plain values.
///
/// What it does (MQTT.md, SEMANTICS.md): tracks each measured beacon (Kalman filter, distance,
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
        /// At most this many beacons are tracked at once; the longest silent goes first.
        public var maximumTracks: Int
        /// Emit a `.record` action per advertisement of a measured beacon (`--record FILE`).
        public var recordsSamples = false

        public init(
            node: TopicLevelID, room: TopicLevelID, topics: TopicScheme = .default,
            tracking: TrackingParameters = .default, monitor: RegionMonitorSettings = RegionMonitorSettings(),
            reportUnknown: Bool = false, rangingHeartbeat: Double = 30, forgetAfter: Double = 60,
            maximumTracks: Int = 10_000
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
        }
    }

    /// Per beacon: its track and what was last published for it.
    struct TrackedBeacon: Sendable {
        var track: BeaconTrack
        var lastHeard: Instant
        var address: BluetoothAddress
        var beacon: Beacon?
        var lastRSSI: Int
    }

    /// The settings given at start; `effective` adds what the node config changed.
    public let baseSettings: Settings
    // Internal rather than private: the configuration half lives in AgentCore+Configuration.swift.
    public internal(set) var effective: Settings
    var monitor: RegionMonitor
    var regionsConfig: RegionsConfig?
    var beaconsConfig: KnownBeaconsConfig?
    var nodeSettings: NodeSettings?
    var knownBeacons: [BeaconID: KnownBeacon] = [:]
    var tracks: [BeaconID: TrackedBeacon] = [:]
    private var lastRanging: [TopicLevelID: (signature: [String], at: Instant)] = [:]
    /// The answer to the last config message, re-published on reconnect.
    var configStatus: AgentPublication?
    /// The known (inside/outside) state of each region, as last persisted.
    var savedRegionStates: [TopicLevelID: RegionState] = [:]

    // Counters for telemetry.
    public private(set) var advertisementCount = 0
    public private(set) var measurementCount = 0
    public private(set) var evictedTrackCount = 0
    /// What restoring the state files had to say, for the service's log.
    public internal(set) var startupLog: [AgentAction] = []
    /// State files from an earlier run that no longer validate (the service sets them aside).
    public internal(set) var rejectedStateFiles: [String] = []

    /// Starts the agent at `start` with the settings and the configuration persisted by an earlier
    /// run (file name → contents). Persisted files that do not parse are reported and ignored.
    public init(settings: Settings, persisted: [String: [UInt8]] = [:], at start: Instant) {
        baseSettings = settings
        effective = settings
        monitor = RegionMonitor(regions: [], settings: settings.monitor, at: start)
        startupLog = restore(persisted, at: start)
    }

    public var trackedBeaconCount: Int { tracks.count }
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

    // MARK: - Advertisements

    public mutating func observe(_ advertisement: DecodedAdvertisement) -> [AgentAction] {
        advertisementCount += 1
        guard let rssi = advertisement.report.rssi else { return [] }
        let time = advertisement.time
        let id = advertisement.beaconID
        let identity = Self.regionIdentity(advertisement.beacon)
        let matchesRegion = identity.map { monitor.matchesAnyRegion(uuid: $0.uuid, major: $0.major, minor: $0.minor) } ?? false
        let known = knownBeacons[id]
        guard matchesRegion || known != nil || (effective.reportUnknown && advertisement.beacon != nil) else { return [] }

        var actions: [AgentAction] = []
        if effective.recordsSamples {
            actions.append(.record(TraceSample(
                time: time, node: effective.node.rawValue, room: effective.room.rawValue, beacon: id, rssi: Int(rssi),
                measuredPower: advertisement.beacon?.measuredPower)))
        }
        var entry = tracks[id] ?? makeTrack(for: id, known: known, advertisement: advertisement)
        let update = entry.track.observe(rssi: Int(rssi), measuredPower: advertisement.beacon?.measuredPower, at: time)
        entry.lastHeard = time
        entry.address = advertisement.report.address
        entry.beacon = advertisement.beacon
        entry.lastRSSI = Int(rssi)
        tracks[id] = entry
        if update.shouldPublish {
            actions.append(.publish(measurement(id, entry, update: update, at: time)))
        }
        if let identity {
            let sighting = BeaconSighting(
                beacon: id, uuid: identity.uuid, major: identity.major, minor: identity.minor,
                address: advertisement.report.address, rssi: update.rssiFiltered, distance: update.distance,
                proximity: update.proximity)
            actions += regionActions(monitor.observe(sighting, at: time))
        }
        if tracks.count > effective.maximumTracks { evictLongestSilent() }
        return actions
    }

    // MARK: - Time

    /// Call at least once a second: region exits, beacons gone silent, ranging.
    public mutating func tick(at time: Instant) -> [AgentAction] {
        var actions = regionActions(monitor.tick(at: time))
        for (id, var entry) in tracks {
            if time - entry.lastHeard >= effective.forgetAfter {
                tracks[id] = nil
                continue
            }
            // The track says once when the beacon fell silent; the node then says it is not heard.
            if entry.track.checkSilence(at: time) != nil {
                tracks[id] = entry
                actions.append(.publish(silenceMeasurement(id, entry, at: time)))
            }
        }
        actions += rangingActions(at: time)
        return actions
    }

    // MARK: - Publications

    private func makeTrack(for id: BeaconID, known: KnownBeacon?, advertisement: DecodedAdvertisement) -> TrackedBeacon {
        TrackedBeacon(
            track: BeaconTrack(parameters: effective.tracking, configuredMeasuredPower: known?.measuredPower),
            lastHeard: advertisement.time, address: advertisement.report.address, beacon: advertisement.beacon,
            lastRSSI: Int(advertisement.report.rssi ?? 0))
    }

    private func payload(_ id: BeaconID, _ entry: TrackedBeacon, at time: Instant) -> MeasurementPayload {
        let known = knownBeacons[id]
        var payload = MeasurementPayload(
            id: known?.topicID ?? id.rawValue, beacon: id, name: known?.name, node: effective.node.rawValue,
            room: effective.room.rawValue, rssi: nil, rssiFiltered: nil, sigma: nil, measuredPower: nil,
            distance: nil, proximity: .unknown, address: entry.address, format: entry.beacon?.format, timestamp: time)
        if case .iBeacon(let beacon)? = entry.beacon {
            payload.uuid = beacon.uuid
            payload.major = beacon.major
            payload.minor = beacon.minor
        }
        return payload
    }

    private mutating func measurement(_ id: BeaconID, _ entry: TrackedBeacon, update: TrackUpdate, at time: Instant) -> AgentPublication {
        var payload = payload(id, entry, at: time)
        payload.rssi = update.rssi
        payload.rssiFiltered = update.rssiFiltered
        payload.sigma = update.sigma
        payload.measuredPower = Int(update.measuredPower.rounded())
        payload.distance = update.distance
        payload.proximity = update.proximity
        measurementCount += 1
        return AgentPublication(
            topic: effective.topics.measurement(payload.id, effective.node), text: payload.json, qos: .atMostOnce, retain: false)
    }

    /// One measurement that says the node no longer hears the beacon: proximity `unknown`, no
    /// distance and no RSSI (the last ones heard are stale by now; the timestamp says when).
    private mutating func silenceMeasurement(_ id: BeaconID, _ entry: TrackedBeacon, at time: Instant) -> AgentPublication {
        let payload = payload(id, entry, at: time)
        measurementCount += 1
        return AgentPublication(
            topic: effective.topics.measurement(payload.id, effective.node), text: payload.json, qos: .atMostOnce, retain: false)
    }

    func regionStatePublication(_ region: TopicLevelID, _ state: RegionState) -> AgentPublication {
        AgentPublication(topic: effective.topics.regionState(effective.node, region), text: state.rawValue, qos: .atLeastOnce, retain: true)
    }

    mutating func regionActions(_ events: [RegionEvent]) -> [AgentAction] {
        var actions: [AgentAction] = []
        let statesBefore = savedRegionStates
        for event in events {
            switch event {
            case .stateChanged(let region, let state, _):
                savedRegionStates[region] = state == .unknown ? nil : state
                actions.append(.publish(regionStatePublication(region, state)))
            case .enter(let region, let beacon, let at):
                actions.append(.publish(regionEvent("enter", region, beacon, at)))
            case .exit(let region, let beacon, let at):
                actions.append(.publish(regionEvent("exit", region, beacon, at)))
            case .removed(let region):
                savedRegionStates[region] = nil
                lastRanging[region] = nil
                // An empty retained message removes the state topic from the broker.
                actions.append(.publish(AgentPublication(
                    topic: effective.topics.regionState(effective.node, region), payload: [], qos: .atLeastOnce, retain: true)))
            }
        }
        if savedRegionStates != statesBefore {
            actions.append(.persist(file: StateFile.regionStates, contents: Array(regionStatesJSON.utf8)))
        }
        return actions
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

    private mutating func rangingActions(at time: Instant) -> [AgentAction] {
        var actions: [AgentAction] = []
        for region in monitor.regions {
            let ranged = monitor.ranging(regionID: region.id, at: time)
            let signature = ranged.map { "\($0.beacon.rawValue)@\($0.address.rawValue):\($0.proximity.rawValue)" }
            let previous = lastRanging[region.id]
            if ranged.isEmpty && (previous == nil || previous!.signature.isEmpty) { continue }
            let changed = previous?.signature != signature
            let due = previous.map { time - $0.at >= effective.rangingHeartbeat } ?? true
            guard changed || due else { continue }
            lastRanging[region.id] = (signature, time)
            let elements = ranged.map { rangedJSON($0, at: time) }
            actions.append(.publish(AgentPublication(
                topic: effective.topics.regionRanging(effective.node, region.id),
                text: JSONObjectWriter.array(elements), qos: .atMostOnce, retain: false)))
        }
        return actions
    }

    private func rangedJSON(_ ranged: RangedBeacon, at time: Instant) -> String {
        let known = knownBeacons[ranged.beacon]
        let payload = MeasurementPayload(
            id: known?.topicID ?? ranged.beacon.rawValue, beacon: ranged.beacon, name: known?.name,
            node: effective.node.rawValue, room: effective.room.rawValue, rssi: nil,
            rssiFiltered: ranged.proximity == .unknown ? nil : ranged.rssi, sigma: nil, measuredPower: nil,
            distance: ranged.distance, proximity: ranged.proximity, address: ranged.address,
            format: ranged.uuid == nil ? nil : "ibeacon", uuid: ranged.uuid, major: ranged.major, minor: ranged.minor,
            timestamp: ranged.lastSeen)
        return payload.json
    }

    private mutating func evictLongestSilent() {
        guard let oldest = tracks.min(by: { $0.value.lastHeard < $1.value.lastHeard }) else { return }
        tracks[oldest.key] = nil
        evictedTrackCount += 1
    }

    /// The identity regions match on: iBeacons, and AltBeacons whose id is uuid + major + minor
    /// (the Android Beacon Library's layout).
    static func regionIdentity(_ beacon: Beacon?) -> (uuid: BeaconUUID, major: UInt16, minor: UInt16)? {
        switch beacon {
        case .iBeacon(let b)?: return (b.uuid, b.major, b.minor)
        case .altBeacon(let b)?: return (b.beaconID.leading, b.beaconID.id2, b.beaconID.id3)
        default: return nil
        }
    }
}
