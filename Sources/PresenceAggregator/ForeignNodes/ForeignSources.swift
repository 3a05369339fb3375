import BeaconCore
import IdentityCrypto

/// Every foreign source the configuration names (`sources:`), as one input of the service: the
/// filters to subscribe to, each message routed to its source, and the sources' silences at each
/// tick. Pure: the service feeds what comes out to `AggregatorCore` as its agents' input.
public struct ForeignSources: Sendable {
    public private(set) var espresense: ESPresenseSource?
    public private(set) var gateways: GatewaySource?
    private let espresensePrefix: String?

    private static let crypto = LibCrypto()

    public init(configuration: AggregatorConfiguration) {
        let sources = configuration.sources
        espresense = sources.espresense.map {
            ESPresenseSource(settings: $0, followUnknown: sources.followUnknown,
                             pathLossExponent: configuration.decision.pathLossExponent)
        }
        espresensePrefix = sources.espresense.map { $0.topic + "/" }
        gateways = sources.gateways.isEmpty ? nil : GatewaySource(settings: sources.gateways, followUnknown: sources.followUnknown)
    }

    public var isEmpty: Bool { espresense == nil && gateways == nil }

    /// The filters to subscribe to.
    public var subscriptions: [String] {
        (espresense?.subscriptions ?? []) + (gateways?.subscriptions ?? [])
    }

    /// One message of the subscriptions.
    public mutating func receive(topic: String, payload: [UInt8], at time: Instant) -> ForeignMessageOutcome {
        if let espresensePrefix, topic.hasPrefix(espresensePrefix), espresense != nil {
            return espresense!.receive(topic: topic, payload: payload, at: time)
        }
        guard gateways != nil else { return .ignored }
        return gateways!.receive(topic: topic, payload: payload, at: time)
    }

    /// The silences due at `time`.
    public mutating func tick(at time: Instant) -> [ForeignNodeInput] {
        var out: [ForeignNodeInput] = []
        if espresense != nil { out += espresense!.tick(at: time) }
        if gateways != nil { out += gateways!.tick(at: time) }
        return out
    }

    /// The known beacons in force changed (the file's merged with `<root>/config/beacons`).
    public mutating func setKnown(_ known: some Sequence<KnownBeacon>) {
        let view = ForeignKnownBeacons(known)
        espresense?.known = view
        gateways?.setKnown(view)
    }

    /// A new `<root>/config/beacons` message: the address hashes of the devices pushed with their
    /// key, for the gateways' phones. Only the hashes are kept (the keys go with the parsed
    /// message); an invalid message keeps the hashes in force, as the core keeps its list.
    public mutating func setIdentityKeys(pushed payload: [UInt8]) {
        guard gateways != nil else { return }
        let parsed: ConfigPayload<KnownBeaconsConfig>
        do {
            parsed = try KnownBeaconsConfig.parse(payload, crypto: Self.crypto)
        } catch {
            return
        }
        var keys: [(hash: AddressHash, device: BeaconID.Components)] = []
        if case .replaced(let config) = parsed {
            for entry in config.beacons {
                guard let key = entry.irk, let device = entry.beacon.components else { continue }
                keys.append((Self.crypto.addressHash(for: key), device))
            }
        }
        gateways!.setIdentityKeys(keys)
    }
}
