import BeaconCore
import MQTTClient
import RoomDecisions

/// BLE-to-MQTT gateways as a source, without I/O: each gateway is run as a virtual agent of ours.
/// Its adverts are decoded by our decoder (`GatewayAdvert`), a phone's rotating address is
/// resolved with the known devices' keys (`PrivateAddressResolver`), and each (gateway, device)
/// goes through our Kalman filter, distance, proximity and publish policy (`BeaconTrack`), so what
/// reaches the decision is what one of our agents in that room would have published — a
/// measurement when the proximity or filtered RSSI changes or the heartbeat is due, and the
/// "no longer heard" measurement after the silence (`tick`).
public struct GatewaySource: Sendable {
    public let settings: [GatewaySettings]
    public let followUnknown: Bool
    public private(set) var known: ForeignKnownBeacons
    private let filters: [TopicFilter?]
    private let tuning: BeaconTrack.Tuning

    struct TrackKey: Hashable { var gateway: Int32; var device: BeaconID.Components }
    struct Track { var state: BeaconTrack.State; var node: String; var room: String }
    private var tracks: [TrackKey: Track] = [:]
    /// Gateway name → its node name and room, and its index in `nodes`.
    private var gatewayIndex: [String: Int32] = [:]
    private var nodes: [(node: String, room: String)] = []

    private var resolver = PrivateAddressResolver(hashes: [])
    private var keyIdentities: [BeaconID.Components] = []

    /// The most (gateway, device) tracks at once: bounds memory under `followUnknown`.
    public static let maximumTracks = 100_000
    /// A track silent this long is dropped (its silence was published long before).
    public static let forgetTrackAfter = 600.0

    public init(settings: [GatewaySettings], followUnknown: Bool, known: ForeignKnownBeacons = .init(),
                tracking: TrackingParameters = .default) {
        self.settings = settings
        self.followUnknown = followUnknown
        self.known = known
        filters = settings.map { try? TopicFilter($0.topic) }
        tuning = BeaconTrack.Tuning(tracking)
    }

    /// Tracks held now.
    public var trackCount: Int { tracks.count }

    /// The known beacons changed: new measured powers apply to new tracks; tracks of devices no
    /// longer known end at the next silence.
    public mutating func setKnown(_ known: ForeignKnownBeacons) { self.known = known }

    /// The address hash of each known device's key with its `irk-…` id: what resolves a phone's
    /// rotating addresses. The keys themselves are not kept here.
    public mutating func setIdentityKeys(_ keys: [(hash: AddressHash, device: BeaconID.Components)]) {
        resolver = PrivateAddressResolver(hashes: keys.map(\.hash))
        keyIdentities = keys.map(\.device)
    }

    /// One message on a gateway topic.
    public mutating func receive(topic: String, payload: [UInt8], at time: Instant) -> ForeignMessageOutcome {
        guard let entry = filters.firstIndex(where: { $0?.matches(topic) == true }),
            let level = settings[entry].gatewayLevel
        else { return .ignored }
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard level < levels.count else { return .ignored }
        let gatewayName = String(levels[level])
        // The level after the gateway's `BTtoMQTT` names the advertiser; anything else there
        // (OpenMQTTGateway's `undecoded`, Theengs Gateway's presence topic) is no advert.
        if let last = levels.last, last.utf8.count != 12 || HexDigits.bytes(String(last)) == nil { return .ignored }
        guard let gateway = gateway(gatewayName, entry: entry) else {
            return .rejected(source: String(gatewayName.prefix(64)), ForeignMessageError(
                "gateway has no room: name it under sources.gateways[\(entry)].rooms"))
        }
        let advert: GatewayAdvert
        do {
            advert = try GatewayAdvert(payload: payload)
        } catch {
            return .rejected(source: nodes[Int(gateway)].node, error)
        }
        guard let rssi = advert.rssi else { return .ignored }
        let device: BeaconID.Components
        if let identity = advert.identity {
            guard known.components.contains(identity) || followUnknown else { return .ignored }
            device = identity
        } else if !resolver.isEmpty, advert.addressType != .public, advert.address.rawValue >> 46 == 0b01,
            let key = resolver.resolve(advert.address)
        {
            device = keyIdentities[key]
        } else if known.components.contains(.mac(advert.address)) {
            device = .mac(advert.address)
        } else {
            return .ignored
        }
        let key = TrackKey(gateway: gateway, device: device)
        var update: TrackUpdate
        if var track = tracks[key] {
            update = track.state.observe(rssi: rssi, measuredPower: advert.measuredPower, at: time, tuning)
            tracks[key] = track
        } else {
            guard tracks.count < Self.maximumTracks else {
                return .rejected(source: nodes[Int(gateway)].node, ForeignMessageError(
                    "more than \(Self.maximumTracks) devices followed; new ones are refused"))
            }
            let beacon = BeaconID(device)
            var state = BeaconTrack.State(tuning, configuredMeasuredPower: known.measuredPower[beacon])
            update = state.observe(rssi: rssi, measuredPower: advert.measuredPower, at: time, tuning)
            tracks[key] = Track(state: state, node: nodes[Int(gateway)].node, room: nodes[Int(gateway)].room)
        }
        guard update.shouldPublish, let distance = update.distance else { return .used([]) }
        let beacon = BeaconID(device)
        var measurement = ReceivedMeasurement(
            beacon: beacon, node: nodes[Int(gateway)].node, room: nodes[Int(gateway)].room,
            rssiFiltered: update.rssiFiltered, sigma: update.sigma, distance: distance, proximity: update.proximity)
        measurement.alias = known.aliases[beacon]
        return .used([.measurement(measurement)])
    }

    /// The "no longer heard" measurements due at `time`, once per silence, as an agent's tick.
    public mutating func tick(at time: Instant) -> [ForeignNodeInput] {
        var out: [ForeignNodeInput] = []
        var forgotten: [TrackKey] = []
        for key in tracks.keys {
            guard var track = tracks[key] else { continue }
            if let silence = track.state.checkSilence(at: time, tuning) {
                let beacon = BeaconID(key.device)
                out.append(.measurement(ReceivedMeasurement(
                    beacon: beacon, node: track.node, room: track.room, rssiFiltered: silence.rssiFiltered,
                    sigma: silence.sigma, distance: nil, proximity: .unknown)))
                tracks[key] = track
            } else if let last = track.state.lastHeard, time.since(last) > Self.forgetTrackAfter {
                forgotten.append(key)
            }
        }
        for key in forgotten { tracks[key] = nil }
        return out
    }

    /// The index of gateway `name` seen through entry `entry`, made at its first advert; nil when
    /// the configuration gives it no room.
    private mutating func gateway(_ name: String, entry: Int) -> Int32? {
        if let index = gatewayIndex[name] { return index }
        guard let room = settings[entry].room(of: name) else { return nil }
        let index = Int32(nodes.count)
        nodes.append((Self.nodeName(name), room))
        gatewayIndex[name] = index
        return index
    }

    /// The node name a gateway's evidence carries: its topic level in lowercase, characters an id
    /// cannot hold as `-` (Theengs Gateway's default name is `TheengsGateway`).
    public static func nodeName(_ gateway: String) -> String {
        var name = ""
        for scalar in gateway.lowercased().unicodeScalars.prefix(TopicLevelID.maximumLength) {
            switch scalar {
            case "a"..."z", "0"..."9", "_", "-": name.unicodeScalars.append(scalar)
            default: name += "-"
            }
        }
        return name.isEmpty ? "gateway" : name
    }
}
