import BeaconCore
import RoomDecisions

/// A node's measurement as the aggregator reads it from `<root>/beacons/<beacon>/<node>` (docs/MQTT.md):
/// only what the room decision and the published location need. Keys it does not need are
/// ignored, so agents may add fields without breaking the aggregator.
/// Its own shape because a message from the wire is checked (its node against its topic) before it is evidence.
public struct ReceivedMeasurement: Sendable, Hashable {
    /// The canonical beacon id.
    public var beacon: BeaconID
    /// The node's display name for the beacon, if it sent one.
    public var name: String?
    /// The alias the node's topics use (`id`), kept only for a device known by its IRK (`irk-…`):
    /// its alias is required and is how people know it; other beacons are named by the
    /// aggregator's own list.
    public var alias: TopicLevelID?
    public var node: String
    public var room: String
    public var rssiFiltered: Double?
    /// The advert that made the measurement (`rssi`): only recorded (`run --record`'s `rssiAdvert`).
    public var rssi: Double?
    public var sigma: Double?
    /// The RSSI at 1 m the node's distance used (`measuredPower`), dBm: read for a node beacon, whose
    /// advert states its power (`NodeCalibrationState`).
    public var measuredPower: Double?
    /// Metres; nil when the node no longer hears the beacon (then `proximity` is `unknown`).
    public var distance: Double?
    public var proximity: Proximity

    public init(beacon: BeaconID, name: String? = nil, node: String, room: String, rssiFiltered: Double? = nil,
                sigma: Double? = nil, distance: Double?, proximity: Proximity, rssi: Double? = nil) {
        self.rssi = rssi
        self.beacon = beacon
        self.name = name
        self.node = node
        self.room = room
        self.rssiFiltered = rssiFiltered
        self.sigma = sigma
        self.distance = distance
        self.proximity = proximity
    }

    /// "The node no longer hears the beacon": proximity `unknown` (with or without a distance).
    public var isSilence: Bool { proximity == .unknown || distance == nil }

    /// The longest measurement accepted; a real one is about 400 bytes.
    public static let maximumBytes = 4096

    /// Parses a measurement payload. `topicNode` is the node level of the topic: the payload must
    /// name the same node (the broker's ACL guarantees the topic, not the payload). Never traps.
    public init(payload: [UInt8], topicNode: String) throws(ReceivedMeasurementError) {
        // Read member by member, no tree: only the fields below are kept (issue 38: a site's
        // thousands of messages a second). Unknown keys are allowed: a newer agent may publish
        // more than this aggregator reads.
        var beaconText, nodeText, roomText, proximityText, nameText, idText: String?
        var distanceValue, rssiFiltered, rssi, sigma, measuredPower: Double?
        // `id` is read only for a device known by its IRK: another type is an error only then.
        var idError: ConfigError?
        do throws(ConfigError) {
            try JSONParser.readObject(payload, maximumBytes: Self.maximumBytes, maximumDepth: 4) { key, value throws(ConfigError) in
                switch Self.field(key) {
                case .beacon: beaconText = try value.memberString()
                case .node: nodeText = try value.memberString()
                case .room: roomText = try value.memberString()
                case .proximity: proximityText = try value.memberString()
                case .name: nameText = try value.memberString()
                case .id:
                    do throws(ConfigError) { idText = try value.memberString() } catch {
                        guard error.code == .wrongType else { throw error }
                        idError = error
                    }
                case .distance: distanceValue = try value.memberNumber()
                case .rssiFiltered: rssiFiltered = try value.memberNumber()
                case .rssi: rssi = try value.memberNumber()
                case .sigma: sigma = try value.memberNumber()
                case .measuredPower:
                    // Read only for calibration: another type leaves it out rather than refusing the measurement.
                    do throws(ConfigError) { measuredPower = try value.memberNumber() } catch {
                        guard error.code == .wrongType else { throw error }
                    }
                case nil: try value.skipMemberValue()
                }
            }
        } catch {
            if error.code == .wrongType, error.path == .root { throw ReceivedMeasurementError("expected a JSON object") }
            throw ReceivedMeasurementError(error.description)
        }

        guard let beaconText else { throw ReceivedMeasurementError("beacon: required") }
        guard BeaconIDSyntax.isCanonical(beaconText) else {
            throw ReceivedMeasurementError("beacon: \(ConfigError.quoted(beaconText)) is not a canonical beacon id")
        }
        let canonical = beaconText
        guard let node = nodeText, TopicLevelID.isValid(node) else {
            throw ReceivedMeasurementError("node: missing or not a valid id")
        }
        guard node == topicNode else {
            throw ReceivedMeasurementError("node: '\(node)' does not match the topic's node \(ConfigError.quoted(topicNode))")
        }
        guard let room = roomText, TopicLevelID.isValid(room), room != RoomDecision.notHome else {
            throw ReceivedMeasurementError("room: missing or not a valid room id")
        }
        guard let proximityText, let proximity = Proximity(rawValue: proximityText) else {
            throw ReceivedMeasurementError("proximity: expected immediate, near, far or unknown")
        }
        let distance = distanceValue
        if let distance, !(distance >= 0) {
            throw ReceivedMeasurementError("distance: \(distance) is not a distance in metres")
        }
        guard distance != nil || proximity == .unknown else {
            throw ReceivedMeasurementError("distance: required unless proximity is unknown")
        }
        var name = nameText
        if let given = name, given.isEmpty || given.count > KnownBeacon.maximumNameLength { name = nil }
        self.init(beacon: BeaconID(rawValue: canonical), name: name, node: node, room: room,
                  rssiFiltered: rssiFiltered, sigma: sigma, distance: distance, proximity: proximity, rssi: rssi)
        self.measuredPower = measuredPower
        if canonical.hasPrefix("irk-") {
            if let idError { throw ReceivedMeasurementError(idError.description) }
            if let id = idText, id != canonical { alias = TopicLevelID(id) }
        }
    }

    /// The members read, and the rest (nil).
    private enum Field { case beacon, node, room, proximity, name, id, distance, rssiFiltered, rssi, sigma, measuredPower }

    /// `key`'s field, by its length first: a measurement's 14 keys compared with ten names one by
    /// one were a noticeable share of its parse. Keys of another length cannot equal these
    /// ASCII names (no other text is canonically equivalent to them).
    private static func field(_ key: String) -> Field? {
        switch key.utf8.count {
        case 2: key == "id" ? .id : nil
        case 4: key == "node" ? .node : key == "room" ? .room : key == "name" ? .name : key == "rssi" ? .rssi : nil
        case 5: key == "sigma" ? .sigma : nil
        case 6: key == "beacon" ? .beacon : nil
        case 8: key == "distance" ? .distance : nil
        case 9: key == "proximity" ? .proximity : nil
        case 12: key == "rssiFiltered" ? .rssiFiltered : nil
        case 13: key == "measuredPower" ? .measuredPower : nil
        default: nil
        }
    }

    /// The decider's view of this measurement.
    public var evidence: NodeEvidence {
        // A silence (proximity unknown, no distance) makes the decider drop this node's evidence at once.
        NodeEvidence(beacon: beacon, node: node, room: room, rssiFiltered: rssiFiltered ?? -Double.infinity,
                     sigma: sigma ?? 0, distance: isSilence ? nil : distance,
                     proximity: proximity, rssi: rssi)
    }
}

/// Why a measurement message was not used.
public struct ReceivedMeasurementError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
