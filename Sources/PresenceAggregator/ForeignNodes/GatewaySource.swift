import BeaconCore
import MQTTClient
import RoomDecisions

/// BLE-to-MQTT gateways as a source, without I/O: each gateway is run as a virtual agent of ours.
/// Its adverts are decoded by our decoder (`GatewayAdvert`), a phone's rotating address is
/// resolved with the known devices' keys (`PrivateAddressResolver`), and each (gateway, device)
/// goes through our Kalman filter, distance, proximity and publish policy (`BeaconTrack`), so what
/// reaches the decision is what one of our agents in that room would have published — a
/// measurement when the proximity or filtered RSSI changes or the heartbeat is due, and the
/// "no longer heard" measurement after the silence (`tick`). Each gateway's availability
/// (`GatewayAvailability`, its last will) becomes its node status: `offline` ends its evidence at
/// once, as an ESPresense node's or one of our agents'.
public struct GatewaySource: Sendable {
    public let settings: [GatewaySettings]
    public let followUnknown: Bool
    public private(set) var known: ForeignKnownBeacons
    private let filters: [TopicFilter?]
    /// Per entry, where its gateways say `online`/`offline`, and the filter that matches it.
    private let availability: [(topic: GatewayAvailability, filter: TopicFilter)?]
    /// Whether a message of the one entry's subscriptions is its advert without matching: no
    /// availability filter can match a topic ending in an address.
    private let singleEntryShortcut: Bool
    private let tuning: BeaconTrack.Tuning

    struct TrackKey: Hashable { var gateway: Int32; var device: BeaconID.Components }
    struct Track { var state: BeaconTrack.State; var node: String; var room: String }
    private var tracks: [TrackKey: Track] = [:]
    /// Per gateway met (by index): its name's bytes as in its topic, and its node name, room and
    /// last-will topic (`NodeKind.gateway`).
    private var gatewayNames: [[UInt8]] = []
    private var nodes: [(node: String, room: String, lastWill: String?)] = []
    /// Gateways whose room was handed on as node info.
    private var announced: Set<Int32> = []

    private var resolver = PrivateAddressResolver(hashes: [])
    private var keyIdentities: [BeaconID.Components] = []

    /// The most (gateway, device) tracks at once: bounds memory under `followUnknown`.
    public static let maximumTracks = 100_000
    /// The most gateways met; a site has a few dozen.
    public static let maximumGateways = 1_024
    /// A track silent this long is dropped (its silence was published long before).
    public static let forgetTrackAfter = 600.0

    public init(settings: [GatewaySettings], followUnknown: Bool, known: ForeignKnownBeacons = .init(),
                tracking: TrackingParameters = .default) {
        self.settings = settings
        self.followUnknown = followUnknown
        self.known = known
        filters = settings.map { try? TopicFilter($0.topic) }
        availability = settings.map { entry in
            entry.availabilityTopic.flatMap { topic in (try? TopicFilter(topic.filter)).map { (topic, $0) } }
        }
        singleEntryShortcut = settings.count == 1 && !availability.contains { entry in
            guard let last = entry?.topic.filter.split(separator: "/", omittingEmptySubsequences: false).last else { return false }
            return last == "+" || Self.isAddress(last.utf8)
        }
        tuning = BeaconTrack.Tuning(tracking)
    }

    /// The filters to subscribe to: each entry's adverts, then the gateways' availability.
    public var subscriptions: [String] {
        var out = settings.map(\.topic)
        for entry in availability { if let filter = entry?.topic.filter, !out.contains(filter) { out.append(filter) } }
        return out
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

    /// One message on a gateway topic: an advert, or a gateway's availability.
    public mutating func receive(topic: String, payload: [UInt8], at time: Instant) -> ForeignMessageOutcome {
        // Every message but a rare availability is one advert, tens of thousands a second on a
        // busy site: the topic is read as bytes, with no level array, and a gateway met before is
        // found without a String. One entry needs no matching when its availability cannot look
        // like an advert: only its subscriptions' messages come here.
        let entry: Int?
        if singleEntryShortcut {
            entry = 0
        } else {
            entry = filters.firstIndex { $0?.matches(topic) == true }
        }
        if let entry, let outcome = advert(topic: topic, entry: entry, payload: payload, at: time) { return outcome }
        return availability(topic: topic, payload: payload)
    }

    /// A topic level that is a Bluetooth address as the gateways write it (12 hex digits).
    private static func isAddress(_ level: some Collection<UInt8>) -> Bool {
        level.count == 12 && level.allSatisfy { HexDigits.value(of: Unicode.Scalar($0)) != nil }
    }

    /// One message on entry `entry`'s advert topic; nil when the topic is not an advert's.
    private mutating func advert(topic: String, entry: Int, payload: [UInt8], at time: Instant) -> ForeignMessageOutcome? {
        guard let level = settings[entry].gatewayLevel else { return nil }
        var topic = topic
        let found: (gateway: Int32?, name: Range<Int>)? = topic.withUTF8 { bytes in
            // The level after the gateway's `BTtoMQTT` names the advertiser; anything else there
            // (OpenMQTTGateway's `undecoded`, Theengs Gateway's presence topic) is no advert.
            guard let lastSlash = bytes.lastIndex(of: UInt8(ascii: "/")), Self.isAddress(bytes[(lastSlash + 1)...]) else { return nil }
            var start = 0
            for _ in 0..<level {
                guard let slash = bytes[start...].firstIndex(of: UInt8(ascii: "/")) else { return nil }
                start = slash + 1
            }
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.count
            let name = UnsafeBufferPointer(rebasing: bytes[start..<end])
            let known = gatewayNames.firstIndex { $0.count == name.count && $0.elementsEqual(name) }
            return (known.map { Int32($0) }, start..<end)
        }
        guard let found else { return nil }
        let gateway: Int32
        if let known = found.gateway {
            gateway = known
        } else {
            let name = String(decoding: Array(topic.utf8)[found.name], as: UTF8.self)
            // OpenMQTTGateway's will is `<mqtt_topic><gateway_name>/LWT` beside
            // `<mqtt_topic><gateway_name>/BTtoMQTT` (`connectMQTT` in main/main.ino); Theengs
            // Gateway's `lwt_topic` defaults to `home/TheengsGateway/LWT` beside its
            // `publish_topic`, `home/TheengsGateway/BTtoMQTT` (TheengsGateway/config.py).
            let lastWill = availability[entry]?.topic.topic(of: name, advertTopic: topic)
            guard let made = self.gateway(name, entry: entry, lastWill: lastWill) else {
                return .rejected(source: String(name.prefix(64)), ForeignMessageError(
                    "gateway has no room: name it under sources.gateways[\(entry)].rooms"))
            }
            gateway = made
        }
        let advert: GatewayAdvert
        do {
            advert = try GatewayAdvert(payload: payload)
        } catch {
            // Named by its topic's last level, the advertiser's address: what the user looks for
            // on the gateway's own topics. The gateway itself is announced at the next tick.
            var error = error
            error.device = String(topic.utf8.suffix(12))
            return .rejected(source: nodes[Int(gateway)].node, error)
        }
        guard let rssi = advert.rssi else { return .ignored }
        let device: BeaconID.Components
        if let identity = advert.identity {
            guard known.components.contains(identity) || followUnknown else { return .ignored }
            device = identity
        } else if !resolver.isEmpty, advert.addressType == nil || advert.addressType == .random, advert.address.rawValue >> 46 == 0b01,
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
        var out: [ForeignNodeInput] = []
        announce(gateway, into: &out)
        guard update.shouldPublish, let distance = update.distance else { return .used(out) }
        let beacon = BeaconID(device)
        var measurement = ReceivedMeasurement(
            beacon: beacon, node: nodes[Int(gateway)].node, room: nodes[Int(gateway)].room,
            rssiFiltered: update.rssiFiltered, sigma: update.sigma, distance: distance, proximity: update.proximity)
        measurement.alias = known.aliases[beacon]
        out.append(.measurement(measurement))
        return .used(out)
    }

    /// A message on a gateway's availability topic: `online` or `offline`, retained, as both
    /// gateways publish it. Gateways no entry gives a room are not ours (an OpenMQTTGateway that
    /// hears no BLE says it too): their availability is ignored, as their adverts are refused.
    private mutating func availability(topic: String, payload: [UInt8]) -> ForeignMessageOutcome {
        for (entry, reading) in availability.enumerated() {
            guard let reading, reading.filter.matches(topic),
                let name = reading.topic.gateway(in: topic, namedGateway: settings[entry].namedGateway)
            else { continue }
            let gateway: Int32
            if let known = gatewayNames.firstIndex(where: { $0.elementsEqual(name.utf8) }) {
                // Read where its device reads it: a gateway met through another entry says it there.
                guard nodes[known].lastWill == topic else { continue }
                gateway = Int32(known)
            } else {
                guard let made = self.gateway(name, entry: entry, lastWill: topic) else { continue }
                gateway = made
            }
            let node = nodes[Int(gateway)].node
            let online: Bool
            switch payload {
            case Array("online".utf8): online = true
            case Array("offline".utf8): online = false
            case []: return .ignored  // a cleared retained availability
            default: return .rejected(source: node, ForeignMessageError("availability: expected online or offline"))
            }
            var out: [ForeignNodeInput] = []
            announce(gateway, into: &out)
            if !online {
                // The core drops the gateway's evidence; nothing of it is left to fall silent.
                tracks = tracks.filter { $0.key.gateway != gateway }
            }
            out.append(.nodeStatus(node: node, online: online))
            return .used(out)
        }
        return .ignored
    }

    /// The gateway's room and kind, when not handed on yet: a gateway met for the first time
    /// shows them on its device, as an agent's info does.
    private mutating func announce(_ gateway: Int32, into out: inout [ForeignNodeInput]) {
        guard !announced.contains(gateway) else { return }
        announced.insert(gateway)
        let node = nodes[Int(gateway)]
        out.append(.nodeInfo(node: node.node, room: node.room, version: nil, kind: .gateway(lastWillTopic: node.lastWill)))
    }

    /// The "no longer heard" measurements due at `time`, once per silence, as an agent's tick.
    public mutating func tick(at time: Instant) -> [ForeignNodeInput] {
        var out: [ForeignNodeInput] = []
        // A gateway met only through refused adverts is still a node of the site: shown, with
        // what it had refused, rather than missing.
        if announced.count < nodes.count {
            for gateway in 0..<Int32(nodes.count) { announce(gateway, into: &out) }
        }
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
    private mutating func gateway(_ name: String, entry: Int, lastWill: String?) -> Int32? {
        // A flood of made-up gateway names under a default `room` must not grow this without end.
        guard nodes.count < Self.maximumGateways, let room = settings[entry].room(of: name) else { return nil }
        let index = Int32(nodes.count)
        nodes.append((Self.nodeName(name), room, lastWill))
        gatewayNames.append(Array(name.utf8))
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
