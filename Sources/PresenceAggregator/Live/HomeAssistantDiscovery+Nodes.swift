import BeaconCore
import RoomDecisions

/// The aggregator's own device and one device per node (connectivity and telemetry sensors, and
/// its RSSI offset once calibrated), and which of them this run has announced: a node is announced
/// when first met (its status, info, a measurement or the calibration), again when what its device
/// shows changes, and removed when it is retired.
extension HomeAssistantDiscovery {
    /// How long a node device the broker kept waits for its node's info, status or a measurement
    /// before it is removed, seconds. Retained messages arrive right after each SUBSCRIBE, so this
    /// is ample, and a node that is merely down keeps its retained info and status.
    public static let unclaimedNodeDeviceGrace = 10.0

    /// Whether `node` was announced as a device in this run.
    func hasNodeDevice(_ node: TopicLevelID) -> Bool { nodeDevices[node] != nil }

    /// The aggregator's own device, once per run.
    mutating func announceAggregator(into out: inout [AggregatorPublication]) {
        guard !aggregatorAnnounced else { return }
        aggregatorAnnounced = true
        out.append(aggregatorConfiguration())
    }

    /// A node met: its device is announced, or announced again when what it shows changed. A
    /// node whose kind changed (an agent's name taken by a foreign node) loses the sensors the new
    /// kind cannot fill; so does a foreign node met for the first time in this run, whose device
    /// the broker may keep from a version that gave every node an agent's sensors.
    mutating func noteNode(_ node: TopicLevelID, room: String?, version: String?, kind: NodeKind? = nil,
                           into out: inout [AggregatorPublication]) {
        let known = nodeDevices[node]
        var device = known ?? NodeDevice()
        if let room { device.room = room }
        if let version { device.version = version }
        if let kind { device.kind = kind }
        guard device != known else { return }
        nodeDevices[node] = device
        announceAggregator(into: &out)
        if (known?.kind ?? .agent) != device.kind {
            let offered = Self.entities(of: device)
            for entity in Self.entities(of: known?.kind ?? .agent) where !offered.contains(entity) {
                out.append(.clear(configTopic(entity, node: node)))
            }
        }
        out += nodeConfigurations(node: node, device: device)
    }

    /// The sensors a node's device offers: its kind's, and its RSSI offset once the calibration
    /// names it (an ESPresense node's too, when `nodeBeacons` names its beacon).
    public static func entities(of device: NodeDevice) -> [NodeEntity] {
        entities(of: device.kind) + (device.calibrated ? [.rssiOffset] : [])
    }

    /// The sensors a node of `kind` can fill before any calibration: all but the RSSI offset for
    /// our agents; for a foreign node only its connectivity, on the availability it publishes
    /// itself (its telemetry, if any, is not ours), and none for a gateway whose availability
    /// topic is not known.
    public static func entities(of kind: NodeKind) -> [NodeEntity] {
        switch kind {
        case .agent: NodeEntity.allCases.filter { $0 != .rssiOffset }
        case .espresense: [.connectivity]
        case .gateway(let lastWill): lastWill == nil ? [] : [.connectivity]
        }
    }

    /// A node the calibration names: its device gains the RSSI offset sensor (announced again).
    /// A node met first through the calibration (its measurements of node beacons are the
    /// calibration's, not a node met) is announced as an agent; meeting it as a foreign node
    /// changes its kind as any first meeting would.
    mutating func noteCalibrated(_ node: TopicLevelID, into out: inout [AggregatorPublication]) {
        let known = nodeDevices[node]
        guard known?.calibrated != true else { return }
        var device = known ?? NodeDevice()
        device.calibrated = true
        nodeDevices[node] = device
        if known == nil { announceAggregator(into: &out) }
        out += nodeConfigurations(node: node, device: device)
    }

    /// A retired node (its info cleared): its device's configs are cleared, if it was announced.
    mutating func retireNode(_ node: TopicLevelID) -> [AggregatorPublication] {
        nodeDevices.removeValue(forKey: node) == nil ? [] : nodeRemovals(node: node)
    }

    /// A node device's retained connectivity config from an earlier run, seen at `time`.
    mutating func retainedNodeDevice(_ node: TopicLevelID, at time: Instant) {
        guard nodeDevices[node] == nil, unclaimedNodeDevices[node] == nil else { return }
        unclaimedNodeDevices[node] = time
    }

    /// Removes the kept node devices that no node claimed within `unclaimedNodeDeviceGrace`.
    mutating func removeUnclaimedNodeDevices(at time: Instant, into out: inout [AggregatorPublication]) {
        guard !unclaimedNodeDevices.isEmpty else { return }
        for (node, seen) in unclaimedNodeDevices.sorted(by: { $0.key < $1.key }) {
            if nodeDevices[node] != nil {
                unclaimedNodeDevices[node] = nil
            } else if time.since(seen) >= Self.unclaimedNodeDeviceGrace {
                unclaimedNodeDevices[node] = nil
                out += nodeRemovals(node: node)
            }
        }
    }

    /// The configs of the aggregator's device and every node device announced, by node.
    func nodeDeviceConfigurations() -> [AggregatorPublication] {
        var out = [aggregatorConfiguration()]
        for node in nodeDevices.keys.sorted() {
            out += nodeConfigurations(node: node, device: nodeDevices[node] ?? .init())
        }
        return out
    }

    /// What a node's retained info (`{"node","room","version",…}`) gives its device (`nodeShows`);
    /// nil for a message that is not a JSON object. Fields of another type are left out: the info
    /// is a display, not evidence.
    static func nodeInfo(_ payload: [UInt8]) -> (room: String?, version: String?)? {
        guard let info = JSONFieldReader(lenient: payload, maximumBytes: 4096, maximumDepth: 4) else { return nil }
        return nodeShows(room: info.lenientString("room"), version: info.lenientString("version"))
    }

    /// What a node's device may show of a room and version it reported: the room when it is a
    /// valid topic level and not `not_home`, the version when it has 1–64 bytes.
    static func nodeShows(room: String?, version: String?) -> (room: String?, version: String?) {
        (room.flatMap { TopicLevelID.isValid($0) && $0 != RoomDecision.notHome ? $0 : nil },
         version.flatMap { !$0.isEmpty && $0.utf8.count <= 64 ? $0 : nil })
    }

    /// The aggregator device's identifier, which node devices name as `via_device`.
    public var aggregatorIdentifier: String { "\(siteID)/aggregator" }

    /// The aggregator device's one entity, its connectivity: `on` while its status is `online`.
    public func aggregatorConfiguration() -> AggregatorPublication {
        var json = JSONObjectWriter()
        json.add("name", "Connectivity")
        json.add("unique_id", "\(aggregatorIdentifier)/connectivity")
        json.add("state_topic", topics.aggregatorStatus)
        json.add("payload_on", "online")
        json.add("payload_off", "offline")
        json.add("device_class", "connectivity")
        json.add("entity_category", "diagnostic")
        json.add("qos", 1)
        var device = JSONObjectWriter()
        device.addRaw("identifiers", JSONObjectWriter.array([Self.quoted(aggregatorIdentifier)]))
        device.add("name", topics.root == TopicScheme.default.root ? "BeaconPresence aggregator" : "BeaconPresence aggregator \(topics.root)")
        device.add("manufacturer", origin.name)
        device.add("model", "presence-aggregator")
        device.add("sw_version", origin.softwareVersion)
        json.addRaw("device", device.json)
        addOrigin(to: &json)
        return .retained("\(prefix)/binary_sensor/\(siteID)/aggregator_connectivity/config", json.json)
    }

    /// The config topic of one entity of a node.
    public func configTopic(_ entity: NodeEntity, node: TopicLevelID) -> String {
        "\(prefix)/\(entity.component)/\(siteID)/node_\(node)_\(entity.rawValue)/config"
    }

    /// The topic filter of every node device's connectivity config of this site: what the broker
    /// kept of the node devices announced before, read at start to find retired nodes.
    public var nodeConnectivityConfigFilter: String { "\(prefix)/binary_sensor/\(siteID)/+/config" }

    /// The node whose connectivity config `topic` is; nil for any other topic (the aggregator's own
    /// connectivity, another site's).
    public func node(ofConnectivityConfigTopic topic: String) -> TopicLevelID? {
        let head = "\(prefix)/binary_sensor/\(siteID)/node_", tail = "_\(NodeEntity.connectivity.rawValue)/config"
        guard topic.hasPrefix(head), topic.hasSuffix(tail), topic.utf8.count > head.utf8.count + tail.utf8.count else { return nil }
        return TopicLevelID(String(topic.dropFirst(head.count).dropLast(tail.count)))
    }

    /// The node device's identifier.
    public func nodeIdentifier(_ node: TopicLevelID) -> String { "\(siteID)/nodes/\(node)" }

    /// The retained config messages of one node's device: the entities its kind can fill.
    public func nodeConfigurations(node: TopicLevelID, device: NodeDevice) -> [AggregatorPublication] {
        Self.entities(of: device).map { .retained(configTopic($0, node: node), nodePayload($0, node: node, device: device)) }
    }

    /// The empty retained messages that remove one node's device (every entity of it).
    public func nodeRemovals(node: TopicLevelID) -> [AggregatorPublication] {
        NodeEntity.allCases.map { .clear(configTopic($0, node: node)) }
    }

    /// The discovery payload of one entity of a node.
    public func nodePayload(_ entity: NodeEntity, node: TopicLevelID, device nodeDevice: NodeDevice) -> String {
        let status = nodeDevice.kind.foreignAvailabilityTopic ?? topics.nodeStatus(node)
        var json = JSONObjectWriter()
        json.add("name", entity.name)
        json.add("unique_id", "\(nodeIdentifier(node))/\(entity.rawValue)")
        if entity == .rssiOffset {
            // The aggregator's word, so unavailable with the aggregator, not with the node. `get`:
            // a node the calibration does not name yet is unknown, not a template error.
            let entry = "value_json.nodes.get('\(node)', {})"
            json.add("state_topic", topics.calibration)
            json.add("value_template", "{{ \(entry).get('offset') }}")
            json.add("unit_of_measurement", "dB")
            json.add("state_class", "measurement")
            json.add("suggested_display_precision", 1)
            json.add("json_attributes_topic", topics.calibration)
            json.add("json_attributes_template", "{{ \(entry) | tojson }}")
            addAvailability(topics.aggregatorStatus, to: &json)
            json.add("qos", 1)
        } else if let key = entity.telemetryKey {
            json.add("state_topic", topics.nodeTelemetry(node))
            // `get`: a field this agent does not send (an older one, or no radio) is unknown, not
            // a template error in Home Assistant's log.
            json.add("value_template", "{{ value_json.get('\(key)') }}")
            switch entity {
            case .advertsPerSecond:
                json.add("unit_of_measurement", "adverts/s")
                json.add("state_class", "measurement")
            case .beacons: json.add("state_class", "measurement")
            case .reconnects: json.add("state_class", "total_increasing")
            case .connectivity, .radio, .rssiOffset: break
            }
            json.add("expire_after", Self.telemetryExpiry)
            addAvailability(status, to: &json)
            json.add("qos", 0)
        } else {
            json.add("state_topic", status)
            json.add("payload_on", "online")
            json.add("payload_off", "offline")
            json.add("device_class", "connectivity")
            json.add("qos", 1)
        }
        json.add("entity_category", "diagnostic")
        var device = JSONObjectWriter()
        device.addRaw("identifiers", JSONObjectWriter.array([Self.quoted(nodeIdentifier(node))]))
        switch nodeDevice.kind {
        case .agent:
            device.add("name", "Node \(node)")
            device.add("manufacturer", origin.name)
            device.add("model", "presence-agent")
        case .espresense:
            device.add("name", "ESPresense \(node)")
            device.add("manufacturer", "ESPresense")
            device.add("model", "ESPresense node")
        case .gateway:
            device.add("name", "Gateway \(node)")
            device.add("model", "BLE-to-MQTT gateway")
        }
        if let version = nodeDevice.version { device.add("sw_version", version) }
        if let room = nodeDevice.room { device.add("suggested_area", room) }
        device.add("via_device", aggregatorIdentifier)
        json.addRaw("device", device.json)
        addOrigin(to: &json)
        return json.json
    }
}
