import BeaconCore
import RoomDecisions

/// What `presence-aggregator watch` knows about a deployment, built only from the messages on its
/// topics (docs/MQTT.md): the aggregator's retained rooms and locations, its status, the nodes' status,
/// info and measurements, the aggregator's events, its summaries of the foreign nodes
/// (ESPresense nodes, BLE gateways: `ForeignNodeSummaries`), whose own topics a viewer cannot read,
/// and the nodes' calibration (`<root>/calibration`).
///
/// Feed it every message with `receive(topic:payload:at:)`; it never reads a clock and never
/// traps. A payload it cannot read is ignored and counted in `malformedMessages`; topics under the
/// root that it does not show (telemetry, regions, configuration) are ignored without counting.
public struct WatchState: Sendable, Hashable {
    /// One beacon, as the aggregator placed it and as each node measures it.
    public struct Beacon: Sendable, Hashable {
        /// The topic id: a known beacon's alias, else its canonical id.
        public var id: String
        /// The display name (the location's `name`, else a measurement's, else the id).
        public var name: String
        /// The decided room or `not_home`; nil until the aggregator has said.
        public var room: String?
        /// Distance to the nearest node of the decided room, metres.
        public var distance: Double?
        public var proximity: Proximity
        /// The node whose measurement the decision used.
        public var node: String?
        /// When the beacon entered its current room (or went away).
        public var since: Instant?
        public var confidence: Double?
        /// The latest measurement of each node that has measured it, by node id.
        public var readings: [String: Reading]

        public init(id: String, name: String) {
            self.id = id
            self.name = name
            proximity = .unknown
            readings = [:]
        }
    }

    /// A node's latest measurement of one beacon.
    public struct Reading: Sendable, Hashable {
        public var room: String
        /// Nil when the node no longer hears the beacon.
        public var distance: Double?
        public var proximity: Proximity
        /// When the watcher received it.
        public var receivedAt: Instant
    }

    /// A receiver node.
    public struct Node: Sendable, Hashable {
        public var id: String
        /// From `<root>/nodes/<node>/status` (a foreign node: its summary): true `online`, false
        /// `offline`, nil not known.
        public var online: Bool?
        /// The room it serves, from its info or its measurements.
        public var room: String?
        /// A foreign node's kind as its summary names it (`espresense`, `gateway`); nil for our agents.
        public var foreignKind: String?
        /// A foreign node's messages the aggregator refused, as its summary counts them; nil for
        /// our agents and for a summary without the count.
        public var rejected: Int?
        /// Its node beacon's state as its info says (`starting`, `advertising`, `refused`); nil
        /// when its info names none.
        public var nodeBeacon: String?
        /// The node beacons it hears (their canonical ids): the paths its calibration rests on.
        public var heardNodeBeacons: Set<String> = []

        public init(id: String) { self.id = id }
    }

    /// Someone in a room, as `<root>/rooms/<room>` lists them.
    public struct Occupant: Sendable, Hashable {
        public var id: String
        public var name: String
        public var since: Instant?
        public var distance: Double?
    }

    /// One message of `<root>/events`.
    public struct Event: Sendable, Hashable {
        /// `arrived`, `departed` or `room_changed`.
        public var type: String
        public var id: String
        public var from: String?
        public var to: String?
        /// The event's own time, else when it was received.
        public var at: Instant
    }

    /// How many events are kept, newest last.
    public static let maximumEvents = 8
    /// Longer payloads are not read (a real location is under 600 bytes; a room with many
    /// occupants a few kilobytes).
    public static let maximumPayloadBytes = 65_536

    public let topics: TopicScheme
    /// From `<root>/aggregator/status`: true `online`, false `offline`, nil not known yet.
    public private(set) var aggregatorOnline: Bool?
    /// By topic id.
    public private(set) var beacons: [String: Beacon] = [:]
    /// By node id.
    public private(set) var nodes: [String: Node] = [:]
    /// The occupants of each room the aggregator has published, by room.
    public private(set) var rooms: [String: [Occupant]] = [:]
    /// The latest events, oldest first.
    public private(set) var events: [Event] = []
    /// The nodes' calibration as the aggregator last published it; nil before (or once cleared).
    public private(set) var calibration: NodeCalibration?
    /// Where each confident offset of `calibration` is applied, for an aggregator that says so.
    public private(set) var calibrationApplications: [String: NodeCalibrationDisplay.Application] = [:]
    /// Messages read and used.
    public private(set) var messagesUsed = 0
    /// Messages on a shown topic whose payload could not be read; they changed nothing.
    public private(set) var malformedMessages = 0

    /// The configuration's motion sensors (`motion:`), read as the aggregator reads them, so each
    /// room shows its motion; nil without sensors.
    public private(set) var motion: MotionSources?

    public init(topics: TopicScheme, motion: [MotionSensorSettings] = []) {
        self.topics = topics
        self.motion = motion.isEmpty ? nil : MotionSources(settings: motion)
    }

    /// A room's motion as its sensors say: occupied, clear, or nil (no sensor that counts).
    public func motion(of room: String) -> Bool? { motion?.motion(of: room) }

    /// Every room worth showing, sorted: those the aggregator published, those nodes serve and
    /// those beacons are in.
    public var roomNames: [String] {
        var names = Set(rooms.keys)
        for room in motion?.sensorRooms ?? [] { names.insert(room) }
        for node in nodes.values { if let room = node.room { names.insert(room) } }
        for beacon in beacons.values {
            if let room = beacon.room, room != RoomDecision.notHome { names.insert(room) }
        }
        return names.sorted()
    }

    /// Every node that has a status, has measured something or is calibrated, by id.
    public var nodeIDs: [String] {
        guard let calibrated = calibration?.nodes.keys else { return nodes.keys.sorted() }
        return Set(nodes.keys).union(calibrated).sorted()
    }

    /// Applies one message. Returns true when what `WatchRenderer` shows changed (a malformed
    /// message changes the footer's count, so it returns true too).
    @discardableResult
    public mutating func receive(topic: String, payload: [UInt8], at time: Instant) -> Bool {
        if motion != nil {
            switch motion!.receive(topic: topic, payload: payload, at: time) {
            case .changed: messagesUsed += 1; return true
            case .unchanged: messagesUsed += 1; return false
            case .unreadable: malformedMessages += 1; return true
            case .ignored: break
            }
        }
        let prefix = topics.root + "/"
        guard topic.hasPrefix(prefix) else { return false }
        let levels = topic.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let before = self
        let used: Bool
        switch levels.count {
        case 1 where levels[0] == "events":
            used = receiveEvent(payload, at: time)
        case 1 where levels[0] == "calibration":
            used = receiveCalibration(payload)
        case 2 where levels[0] == "aggregator" && levels[1] == "status":
            used = receiveAggregatorStatus(payload)
        case 2 where levels[0] == "rooms":
            used = receiveRoom(levels[1], payload)
        case 2 where levels[0] == "locations":
            used = receiveLocation(levels[1], payload)
        case 3 where levels[0] == "locations" && levels[2] == "room":
            used = receiveLocationRoom(levels[1], payload)
        case 3 where levels[0] == "beacons":
            used = receiveMeasurement(beacon: levels[1], node: levels[2], payload, at: time)
        case 3 where levels[0] == "nodes" && levels[2] == "status":
            used = receiveNodeStatus(levels[1], payload)
        case 3 where levels[0] == "nodes" && levels[2] == "info":
            used = receiveNodeInfo(levels[1], payload)
        case 3 where levels[0] == "aggregator" && levels[1] == "nodes":
            used = receiveForeignNode(levels[2], payload, at: time)
        default:
            return false
        }
        if used { messagesUsed += 1 } else { malformedMessages += 1 }
        return !used || !before.showsTheSame(as: self)
    }

    /// Equal apart from the message counter.
    private func showsTheSame(as other: WatchState) -> Bool {
        aggregatorOnline == other.aggregatorOnline && beacons == other.beacons && nodes == other.nodes
            && rooms == other.rooms && events == other.events && malformedMessages == other.malformedMessages
            && calibration == other.calibration && calibrationApplications == other.calibrationApplications
    }

    // MARK: - Topics

    private mutating func receiveAggregatorStatus(_ payload: [UInt8]) -> Bool {
        switch String(decoding: payload, as: UTF8.self) {
        case "online": aggregatorOnline = true
        case "offline": aggregatorOnline = false
        case "": aggregatorOnline = nil
        default: return false
        }
        return true
    }

    private mutating func receiveNodeStatus(_ node: String, _ payload: [UInt8]) -> Bool {
        guard TopicLevelID.isValid(node) else { return false }
        let online: Bool?
        switch String(decoding: payload, as: UTF8.self) {
        case "online": online = true
        case "offline": online = false
        case "":
            // Cleared: forget the node unless it still tells us its room.
            nodes[node]?.online = nil
            if nodes[node]?.room == nil { nodes[node] = nil }
            return true
        default: return false
        }
        nodes[node, default: Node(id: node)].online = online
        return true
    }

    /// `{"node","room",…,"nodeBeacon":{"state",…}}`: the room and the node beacon's state are shown.
    private mutating func receiveNodeInfo(_ node: String, _ payload: [UInt8]) -> Bool {
        guard TopicLevelID.isValid(node) else { return false }
        if payload.isEmpty { return true }
        guard let info = Self.read(payload) else { return false }
        let beaconState = info.lenientObject("nodeBeacon").map { $0.lenientString("state") ?? "starting" }
        if beaconState != nodes[node]?.nodeBeacon { nodes[node, default: Node(id: node)].nodeBeacon = beaconState }
        guard let room = info.lenientString("room"), TopicLevelID.isValid(room) else {
            // An agent whose room comes later from its node config publishes info without one.
            return info.optional("room") == nil
        }
        nodes[node, default: Node(id: node)].room = room
        return true
    }

    /// `{"room","occupants":[{"id","name","since","distance"}],"count"}`; empty clears the room.
    private mutating func receiveRoom(_ room: String, _ payload: [UInt8]) -> Bool {
        guard TopicLevelID.isValid(room) else { return false }
        if payload.isEmpty {
            rooms[room] = nil
            return true
        }
        guard let message = Self.read(payload), let list = message.lenientArray("occupants") else { return false }
        var occupants: [Occupant] = []
        for entry in list {
            guard let occupant = JSONFieldReader(lenient: entry), let id = occupant.lenientString("id"), !id.isEmpty else { return false }
            let name = occupant.lenientString("name").flatMap { $0.isEmpty ? nil : $0 } ?? id
            let since = occupant.lenientString("since").flatMap(ISO8601Timestamp.instant(from:))
            let distance = occupant.lenientNumber("distance").flatMap { $0 >= 0 ? $0 : nil }
            occupants.append(Occupant(id: id, name: name, since: since, distance: distance))
        }
        rooms[room] = occupants
        return true
    }

    /// The aggregator's location JSON; empty: the beacon was forgotten.
    private mutating func receiveLocation(_ id: String, _ payload: [UInt8]) -> Bool {
        guard Self.isBeaconTopicID(id) else { return false }
        if payload.isEmpty {
            beacons[id] = nil
            return true
        }
        guard let location = BeaconLocation(retainedPayload: payload) else { return false }
        var beacon = beacons[id] ?? Beacon(id: id, name: location.name)
        beacon.name = location.name
        beacon.room = location.room
        beacon.distance = location.distance
        beacon.proximity = location.proximity
        beacon.node = location.node
        beacon.since = location.since
        beacon.confidence = location.confidence
        beacons[id] = beacon
        return true
    }

    /// The plain room name (or `not_home`); empty: cleared with the location.
    private mutating func receiveLocationRoom(_ id: String, _ payload: [UInt8]) -> Bool {
        guard Self.isBeaconTopicID(id) else { return false }
        if payload.isEmpty { return true }
        let room = String(decoding: payload, as: UTF8.self)
        guard TopicLevelID.isValid(room) else { return false }
        beacons[id, default: Beacon(id: id, name: id)].room = room
        return true
    }

    private mutating func receiveMeasurement(beacon id: String, node: String, _ payload: [UInt8], at time: Instant) -> Bool {
        guard Self.isBeaconTopicID(id), !payload.isEmpty,
            let measurement = try? ReceivedMeasurement(payload: payload, topicNode: node)
        else { return false }
        // Another node's beacon is calibration's, not a beacon anyone is in a room with.
        if NodeBeacon.isNodeBeacon(measurement.beacon) {
            var receiver = nodes[node] ?? Node(id: node)
            if measurement.isSilence {
                receiver.heardNodeBeacons.remove(measurement.beacon.rawValue)
            } else {
                receiver.heardNodeBeacons.insert(measurement.beacon.rawValue)
            }
            if receiver.room == nil { receiver.room = measurement.room }
            nodes[node] = receiver
            return true
        }
        var beacon = beacons[id] ?? Beacon(id: id, name: measurement.name ?? id)
        if beacon.name == id, let name = measurement.name { beacon.name = name }
        beacon.readings[node] = Reading(
            room: measurement.room, distance: measurement.isSilence ? nil : measurement.distance,
            proximity: measurement.isSilence ? .unknown : measurement.proximity, receivedAt: time)
        beacons[id] = beacon
        if nodes[node]?.room != measurement.room { nodes[node, default: Node(id: node)].room = measurement.room }
        return true
    }

    /// A foreign node's summary, `{"node","room","source","status","rejected","beacons":[{"id","distance","proximity"}]}`:
    /// the node with its kind, room and status, and its word on each beacon it hears; a beacon it
    /// listed before and no longer lists is not heard. Empty: the node is forgotten.
    private mutating func receiveForeignNode(_ node: String, _ payload: [UInt8], at time: Instant) -> Bool {
        guard TopicLevelID.isValid(node) else { return false }
        if payload.isEmpty {
            nodes[node] = nil
            for id in beacons.keys { beacons[id]?.readings[node] = nil }
            return true
        }
        guard let summary = Self.read(payload), let kind = summary.lenientString("source"), !kind.isEmpty,
            let list = summary.lenientArray("beacons")
        else { return false }
        let room = summary.lenientString("room").flatMap { TopicLevelID.isValid($0) ? $0 : nil }
        var heard: [String: Reading] = [:]
        for entry in list {
            guard let beacon = JSONFieldReader(lenient: entry), let id = beacon.lenientString("id"), Self.isBeaconTopicID(id),
                let distance = beacon.lenientNumber("distance"), distance.isFinite, distance >= 0
            else { return false }
            let proximity = beacon.lenientString("proximity").flatMap(Proximity.init(rawValue:)) ?? .unknown
            heard[id] = Reading(room: room ?? "?", distance: distance, proximity: proximity, receivedAt: time)
        }
        var entry = nodes[node] ?? Node(id: node)
        entry.foreignKind = kind
        entry.room = room
        entry.rejected = summary.lenientInteger("rejected").flatMap { $0 >= 0 ? Int(exactly: $0) : nil }
        switch summary.lenientString("status") {
        case "online": entry.online = true
        case "offline": entry.online = false
        default: entry.online = nil
        }
        nodes[node] = entry
        for id in beacons.keys where heard[id] == nil {
            guard let reading = beacons[id]?.readings[node], reading.distance != nil else { continue }
            beacons[id]?.readings[node] = Reading(room: reading.room, distance: nil, proximity: .unknown, receivedAt: time)
        }
        for (id, reading) in heard { beacons[id, default: Beacon(id: id, name: id)].readings[node] = reading }
        return true
    }

    /// The aggregator's calibration (`NodeCalibrationPayload`); empty: cleared.
    private mutating func receiveCalibration(_ payload: [UInt8]) -> Bool {
        calibrationApplications = [:]
        if payload.isEmpty {
            calibration = nil
            return true
        }
        guard let solved = try? NodeCalibrationPayload.parse(payload) else { return false }
        calibration = solved
        // Read apart from the calibration itself: where each offset is applied is the aggregator's
        // choice at publishing, not part of the solve.
        let nodes = JSONFieldReader(lenient: payload, maximumBytes: NodeCalibrationPayload.maximumBytes, maximumDepth: 6)?
            .lenientObject("nodes")
        for node in solved.nodes.keys {
            guard let entry = nodes?.lenientObject(node), let place = entry.lenientString("applied") else { continue }
            calibrationApplications[node] = .init(place: place, operatorOffset: entry.lenientNumber("operatorOffset"))
        }
        return true
    }

    /// `{"type","id","from","to","at"}`.
    private mutating func receiveEvent(_ payload: [UInt8], at time: Instant) -> Bool {
        guard let event = Self.read(payload),
            let type = event.lenientString("type"), !type.isEmpty,
            let id = event.lenientString("id"), !id.isEmpty
        else { return false }
        /// Absent or null: no room (`.some(nil)`); a valid room; anything else: malformed (nil).
        func room(_ key: String) -> String?? {
            guard event.optional(key) != nil else { return .some(nil) }
            guard let text = event.lenientString(key), TopicLevelID.isValid(text) else { return nil }
            return .some(text)
        }
        guard let from = room("from"), let to = room("to") else { return false }
        let at = event.lenientString("at").flatMap(ISO8601Timestamp.instant(from:)) ?? time
        events.append(Event(type: type, id: id, from: from, to: to, at: at))
        if events.count > Self.maximumEvents { events.removeFirst(events.count - Self.maximumEvents) }
        return true
    }

    // MARK: - Helpers

    /// A message's object, read leniently: watch shows what it can of any aggregator's version.
    private static func read(_ payload: [UInt8]) -> JSONFieldReader? {
        JSONFieldReader(lenient: payload, maximumBytes: maximumPayloadBytes, maximumDepth: 6)
    }

    /// An alias or a canonical beacon id.
    private static func isBeaconTopicID(_ id: String) -> Bool {
        TopicLevelID.isValid(id) || BeaconIDSyntax.canonical(id) == id
    }
}
