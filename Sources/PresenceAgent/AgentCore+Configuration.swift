import BeaconCore

/// Configuration pushed from the broker (docs/MQTT.md "Configuration pushed from the broker"): each
/// message is validated whole; a valid one is applied, answered `ok` and persisted; an invalid one
/// changes nothing and is answered with an error naming the field; an empty one clears.
extension AgentCore {
    /// File names in the state directory, one per configuration topic.
    public enum StateFile {
        public static let regions = "regions.json"
        public static let beacons = "beacons.json"
        public static let node = "node.json"
        /// The aggregator's last `<root>/nodes/<node>/calibration`, so a node that starts without
        /// its broker measures with the offset it had.
        public static let calibration = "calibration.json"
        /// The regions' last known states (`{"office":"inside"}`), so that a beacon still present
        /// after a restart is reported by the state and not by a second `enter` (docs/Semantics.md).
        public static let regionStates = "region-states.json"
        public static let all = [regions, beacons, node, calibration, regionStates]
    }

    /// The configuration topics this node subscribes to.
    public var configurationTopics: [String] {
        [effective.topics.configRegions, effective.topics.configBeacons, effective.topics.nodeConfig(effective.node),
         effective.topics.nodeCalibration(effective.node)]
    }

    /// A message on one of `configurationTopics`.
    public mutating func receiveConfiguration(topic: String, payload: [UInt8], at time: Instant) -> [AgentAction] {
        switch topic {
        case effective.topics.configRegions: return applyRegions(payload, topic: topic, at: time, persist: true)
        case effective.topics.configBeacons: return applyBeacons(payload, topic: topic, at: time, persist: true)
        case effective.topics.nodeConfig(effective.node): return applyNode(payload, topic: topic, at: time, persist: true)
        case effective.topics.nodeCalibration(effective.node): return applyCalibration(payload, persist: true)
        default: return []
        }
    }

    /// Loads what an earlier run persisted. A file that no longer parses is reported, not applied.
    mutating func restore(_ persisted: [String: [UInt8]], at time: Instant) -> [AgentAction] {
        var actions: [AgentAction] = []
        // Node settings first: they decide the tracking parameters the others are used with.
        func load(_ file: String, _ apply: (inout AgentCore, [UInt8]) -> [AgentAction]) {
            guard let bytes = persisted[file] else { return }
            let result = apply(&self, bytes)
            if result.contains(where: { if case .log(.error, _) = $0 { true } else { false } }) { rejectedStateFiles.append(file) }
            actions += result
        }
        load(StateFile.node) { $0.applyNode($1, topic: $0.effective.topics.nodeConfig($0.effective.node), at: time, persist: false) }
        load(StateFile.calibration) { $0.applyCalibration($1, persist: false) }
        load(StateFile.beacons) { $0.applyBeacons($1, topic: $0.effective.topics.configBeacons, at: time, persist: false) }
        load(StateFile.regions) { $0.applyRegions($1, topic: $0.effective.topics.configRegions, at: time, persist: false) }
        load(StateFile.regionStates) { $0.restoreRegionStates($1, at: time) }
        // A restored configuration is not an answer to anyone: no status until a message arrives.
        configStatus = nil
        return actions.filter { if case .log = $0 { return true } else { return false } }
    }

    /// Starts monitoring the restored regions in their saved states: a region saved `inside` gives no
    /// `enter` for a beacon still there, and exits one exit delay after the last match as usual.
    mutating func restoreRegionStates(_ payload: [UInt8], at time: Instant) -> [AgentAction] {
        guard let saved = JSONFieldReader(lenient: payload) else {
            return [.log(level: .error, message: "the saved region states are not a JSON object and were not applied")]
        }
        var states: [TopicLevelID: RegionState] = [:]
        for key in saved.object.keys {
            guard let region = TopicLevelID(key), let state = saved.lenientString(key).flatMap(RegionState.init(rawValue:)) else {
                return [.log(level: .error, message: "the saved region states hold '\(key)', which is not a region state")]
            }
            states[region] = state
        }
        monitor = RegionMonitor(regions: monitor.regions, settings: effective.monitor, restoredStates: states, at: time)
        regionsRevision += 1
        savedRegionStates = states.filter { monitor.state(of: $0.key) != nil }
        // Restored from the file: nothing new to write.
        regionStatesUnsaved = false
        return []
    }

    mutating func applyRegions(_ payload: [UInt8], topic: String, at time: Instant, persist: Bool) -> [AgentAction] {
        do {
            switch try RegionsConfig.parse(payload) {
            case .cleared:
                regionsConfig = nil
                var actions = regionActions(monitor.replaceRegions([], at: time))
                regionsRevision += 1
                actions += answer(.cleared(topic: topic, at: time), file: StateFile.regions, contents: nil, persist: persist)
                return actions
            case .replaced(let config):
                regionsConfig = config
                let before = Set(monitor.regions.map(\.id))
                var actions = regionActions(monitor.replaceRegions(config.regions, at: time))
                regionsRevision += 1
                // A new region's state topic says `unknown` until the monitor knows (docs/Semantics.md).
                for (region, state) in monitor.states where !before.contains(region) {
                    actions.append(.publish(regionStatePublication(region, state)))
                }
                actions += answer(.applied(topic: topic, revision: config.revision, count: ("regions", config.regions.count), at: time),
                                  file: StateFile.regions, contents: payload, persist: persist)
                return actions
            }
        } catch {
            return reject(error, topic: topic, kept: regionsConfig?.revision, persist: persist)
        }
    }

    mutating func applyBeacons(_ payload: [UInt8], topic: String, at time: Instant, persist: Bool) -> [AgentAction] {
        do {
            switch try KnownBeaconsConfig.parse(payload, crypto: Self.crypto) {
            case .cleared:
                beaconsConfig = nil
                setKnownBeacons(baseSettings.knownBeacons)
                return answer(.cleared(topic: topic, at: time), file: StateFile.beacons, contents: nil, persist: persist)
            case .replaced(let config):
                beaconsConfig = config
                setKnownBeacons(config.beacons)
                return answer(.applied(topic: topic, revision: config.revision, count: ("beacons", config.beacons.count), at: time),
                              file: StateFile.beacons, contents: payload, persist: persist)
            }
        } catch {
            return reject(error, topic: topic, kept: beaconsConfig?.revision, persist: persist)
        }
    }

    mutating func applyNode(_ payload: [UInt8], topic: String, at time: Instant, persist: Bool) -> [AgentAction] {
        do {
            switch try NodeSettings.parse(payload) {
            case .cleared:
                nodeSettings = nil
                applyEffectiveSettings()
                return answer(.cleared(topic: topic, at: time), file: StateFile.node, contents: nil, persist: persist)
            case .replaced(let settings):
                nodeSettings = settings
                applyEffectiveSettings()
                return answer(.applied(topic: topic, revision: settings.revision, count: nil, at: time),
                              file: StateFile.node, contents: payload, persist: persist)
            }
        } catch {
            return reject(error, topic: topic, kept: nodeSettings?.revision, persist: persist)
        }
    }

    /// The aggregator's calibration of this node (`PushedCalibration`): applied beneath the
    /// operator's settings, so an `rssiOffset` the operator set stays in force and the tracks are
    /// not restarted for an offset that changes nothing. Not answered on `config/status`, which
    /// is the operator's answer; the info says which offset is in force and whose it is. An
    /// unreadable message is logged and changes nothing.
    mutating func applyCalibration(_ payload: [UInt8], persist: Bool) -> [AgentAction] {
        let pushed: PushedCalibration?
        do {
            switch try PushedCalibration.parse(payload) {
            case .cleared: pushed = nil
            case .replaced(let calibration): pushed = calibration
            }
        } catch {
            let what = persist ? "rejected the calibration on \(effective.topics.nodeCalibration(effective.node))"
                : "the saved calibration no longer validates and was not applied"
            return [.log(level: persist ? .warning : .error, message: "\(what): \(error)")]
        }
        let changed = pushed?.rssiOffset != calibration?.rssiOffset
        calibration = pushed
        var actions: [AgentAction] = []
        if changed, rssiOffsetSource != .operator {
            applyEffectiveSettings()
            let offset = pushed.map { "rssiOffset \($0.rssiOffset) dB" } ?? "no rssiOffset"
            actions.append(.log(level: .info, message: "the site's calibration applied: \(offset)"))
        }
        if persist { actions.append(.persist(file: StateFile.calibration, contents: pushed == nil ? nil : payload)) }
        return actions
    }

    /// Whose `rssiOffset` is in force: the operator's (the file's `tracking.rssiOffset`, `install-calibration.json` or the node
    /// config's `rssiOffset`) wins over the aggregator's calibration.
    public var rssiOffsetSource: RSSIOffsetSource {
        if nodeSettings?.rssiOffset != nil || baseSettings.operatorSetRSSIOffset { return .operator }
        return calibration == nil ? .none : .calibration
    }

    private mutating func answer(_ status: ConfigStatus, file: String, contents: [UInt8]?, persist: Bool) -> [AgentAction] {
        let publication = AgentPublication(
            topic: effective.topics.configStatus(effective.node), text: status.jsonText, qos: .atLeastOnce, retain: true)
        configStatus = publication
        var actions: [AgentAction] = [.publish(publication)]
        if persist { actions.append(.persist(file: file, contents: contents)) }
        return actions
    }

    private mutating func reject(_ error: ConfigError, topic: String, kept: Int64?, persist: Bool) -> [AgentAction] {
        guard persist else {
            return [.log(level: .error, message: "the saved configuration for \(topic) no longer validates and was not applied: \(error)")]
        }
        let status = ConfigStatus.rejected(topic: topic, error: error, keptRevision: kept)
        let publication = AgentPublication(
            topic: effective.topics.configStatus(effective.node), text: status.jsonText, qos: .atLeastOnce, retain: true)
        configStatus = publication
        return [.publish(publication), .log(level: .warning, message: "rejected configuration on \(topic): \(error)")]
    }

    mutating func setKnownBeacons(_ beacons: [KnownBeacon]) {
        knownBeacons = Dictionary(beacons.map { ($0.beacon, $0) }, uniquingKeysWith: { first, _ in first })
        // Configured ids are canonical (validated by the parser), so each has its parts.
        knownByIdentity = Dictionary(
            beacons.compactMap { known in known.beacon.components.map { ($0, known) } }, uniquingKeysWith: { first, _ in first })
        setResolvingKeys(beacons)
        // A configured measured power changes distances: start the tracks afresh.
        tracks.removeAll()
    }

    /// The base settings with the node config's overrides.
    private mutating func applyEffectiveSettings() {
        var settings = baseSettings
        if rssiOffsetSource == .calibration, let calibration { settings.tracking.distance.rssiOffset = calibration.rssiOffset }
        if let node = nodeSettings {
            if let room = node.room { settings.room = room }
            if let offset = node.rssiOffset { settings.tracking.distance.rssiOffset = offset }
            if let exponent = node.pathLossExponent { settings.tracking.distance.pathLossExponent = exponent }
            if let exitDelay = node.exitDelay { settings.monitor.exitDelay = exitDelay }
            if let reportUnknown = node.reportUnknown { settings.reportUnknown = reportUnknown }
            if let heartbeat = node.heartbeat { settings.tracking.publish.heartbeat = heartbeat }
            if let step = node.rssiStep { settings.tracking.publish.rssiStep = step }
        }
        effective = settings
        monitor.updateSettings(settings.monitor)
        tracks.removeAll()
    }
}
