import BeaconCore
import PresenceAggregator
import TestSupport
import Testing

/// A gateway's availability (its last will, `online`/`offline` retained) as its node status:
/// messages and time in, the aggregator's inputs out.
@Suite struct GatewayAvailabilityTests {
    typealias P = ForeignNodePayloads
    static let keys = P.iBeacon(major: 5, minor: 6)
    static let known = ForeignKnownBeacons([KnownBeacon(beacon: keys, alias: TopicLevelID("alice-keys"), name: "Alice's keys")])
    static let advert = Array(P.theengsRaw(rssi: -70, manufacturerData: P.iBeaconData(major: 5, minor: 6)).utf8)

    private func source(_ entries: [GatewaySettings] = [GatewaySettings(topic: "home/+/BTtoMQTT/+", rooms: ["gw-office": "office"])]) -> GatewaySource {
        GatewaySource(settings: entries, followUnknown: false, known: Self.known)
    }

    private func say(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func theDefaultIsBesideTheAdvertsAndSubscribed() {
        #expect(GatewaySettings(topic: "home/+/BTtoMQTT/+").availabilityTopic?.filter == "home/+/LWT")
        #expect(GatewaySettings(topic: "home/TheengsGateway/BTtoMQTT/+").availabilityTopic?.filter == "home/TheengsGateway/LWT")
        #expect(GatewaySettings(topic: "ble/+/+").availabilityTopic == nil)
        #expect(source().subscriptions == ["home/+/BTtoMQTT/+", "home/+/LWT"])
        // Two entries under one base share one subscription.
        let two = source([GatewaySettings(topic: "home/+/BTtoMQTT/+", rooms: ["gw-office": "office"]),
                          GatewaySettings(topic: "home/+/BTtoMQTT/#", room: "hall")])
        #expect(two.subscriptions == ["home/+/BTtoMQTT/+", "home/+/BTtoMQTT/#", "home/+/LWT"])
    }

    @Test func offlineEndsTheGatewaysEvidenceAtOnceAndOnlineIsOnline() {
        var gateways = source()
        guard case .used(let first) = gateways.receive(topic: "home/gw-office/BTtoMQTT/C4A1B2C3D4E5", payload: Self.advert, at: startTime) else {
            return #expect(Bool(false))
        }
        #expect(first.first == .nodeInfo(node: "gw-office", room: "office", version: nil, kind: .gateway(lastWillTopic: "home/gw-office/LWT")))
        #expect(gateways.trackCount == 1)
        // Its last will: its status, and its tracks end with it (no silence left to publish).
        #expect(gateways.receive(topic: "home/gw-office/LWT", payload: say("offline"), at: startTime + 1)
            == .used([.nodeStatus(node: "gw-office", online: false)]))
        #expect(gateways.trackCount == 0)
        #expect(gateways.tick(at: startTime + 8).isEmpty)
        #expect(gateways.receive(topic: "home/gw-office/LWT", payload: say("online"), at: startTime + 9)
            == .used([.nodeStatus(node: "gw-office", online: true)]))
    }

    @Test func aGatewayMetByItsAvailabilityFirstIsAnnouncedBeforeItsStatus() {
        var gateways = source()
        #expect(gateways.receive(topic: "home/gw-office/LWT", payload: say("online"), at: startTime) == .used([
            .nodeInfo(node: "gw-office", room: "office", version: nil, kind: .gateway(lastWillTopic: "home/gw-office/LWT")),
            .nodeStatus(node: "gw-office", online: true),
        ]))
        // Its first advert is not announced again.
        guard case .used(let inputs) = gateways.receive(topic: "home/gw-office/BTtoMQTT/C4A1B2C3D4E5", payload: Self.advert, at: startTime) else {
            return #expect(Bool(false))
        }
        #expect(!inputs.contains { if case .nodeInfo = $0 { true } else { false } })
    }

    @Test func otherPayloadsAreRefusedAndOtherGatewaysIgnored() {
        var gateways = source()
        guard case .rejected(let node, let error) = gateways.receive(topic: "home/gw-office/LWT", payload: say("Online!"), at: startTime) else {
            return #expect(Bool(false))
        }
        #expect(node == "gw-office")
        #expect(error.description == "availability: expected online or offline")
        #expect(gateways.receive(topic: "home/gw-office/LWT", payload: [], at: startTime) == .ignored)
        // An OpenMQTTGateway with no room here (one that hears no BLE says it too) is not ours.
        #expect(gateways.receive(topic: "home/gw-rf/LWT", payload: say("offline"), at: startTime) == .ignored)
        #expect(gateways.receive(topic: "home/gw-office/SYStoMQTT", payload: say("{}"), at: startTime) == .ignored)
    }

    @Test func aMovedLastWillIsReadWhereConfigured() throws {
        // A Theengs Gateway whose `lwt_topic` is `gateways/hall/lwt`: a topic, for the one gateway
        // its entry's topic names.
        let theengs = GatewaySettings(topic: "home/TheengsGateway/BTtoMQTT/+", rooms: ["TheengsGateway": "hall"], availability: "gateways/hall/lwt")
        var one = source([theengs])
        #expect(one.subscriptions == ["home/TheengsGateway/BTtoMQTT/+", "gateways/hall/lwt"])
        let kind = NodeKind.gateway(lastWillTopic: "gateways/hall/lwt")
        #expect(one.receive(topic: "gateways/hall/lwt", payload: say("offline"), at: startTime)
            == .used([.nodeInfo(node: "theengsgateway", room: "hall", version: nil, kind: kind), .nodeStatus(node: "theengsgateway", online: false)]))
        #expect(one.receive(topic: "home/TheengsGateway/LWT", payload: say("offline"), at: startTime) == .ignored)

        // A filter with `+` where the gateway's name goes, the devices naming the same topic.
        var many = source([GatewaySettings(topic: "home/+/BTtoMQTT/+", rooms: ["gw-office": "office"], availability: "lwt/+/state")])
        #expect(many.subscriptions == ["home/+/BTtoMQTT/+", "lwt/+/state"])
        guard case .used(let inputs) = many.receive(topic: "home/gw-office/BTtoMQTT/C4A1B2C3D4E5", payload: Self.advert, at: startTime) else {
            return #expect(Bool(false))
        }
        #expect(inputs.first == .nodeInfo(node: "gw-office", room: "office", version: nil, kind: .gateway(lastWillTopic: "lwt/gw-office/state")))
        #expect(many.receive(topic: "lwt/gw-office/state", payload: say("offline"), at: startTime) == .used([.nodeStatus(node: "gw-office", online: false)]))
        #expect(many.receive(topic: "home/gw-office/LWT", payload: say("offline"), at: startTime) == .ignored)
    }

    @Test func aTopicWithoutBTtoMQTTGetsItsAvailabilityOnlyWhenConfigured() {
        // Its last level `+` could look like an address: adverts are matched, not assumed.
        var gateways = source([GatewaySettings(topic: "ble/+/+", rooms: ["gw-office": "office"], availability: "ble-status/+")])
        #expect(gateways.receive(topic: "ble-status/gw-office", payload: say("online"), at: startTime) == .used([
            .nodeInfo(node: "gw-office", room: "office", version: nil, kind: .gateway(lastWillTopic: "ble-status/gw-office")),
            .nodeStatus(node: "gw-office", online: true),
        ]))
        guard case .used(let inputs) = gateways.receive(topic: "ble/gw-office/C4A1B2C3D4E5", payload: Self.advert, at: startTime) else {
            return #expect(Bool(false))
        }
        #expect(inputs.contains { if case .measurement(let m) = $0 { m.node == "gw-office" } else { false } })
    }

    @Test func aConfiguredAvailabilityMustSayWhichGateway() {
        #expect(throws: GatewayAvailability.Invalid.self) { try GatewayAvailability(configured: "home/#", namedGateway: nil) }
        #expect(throws: GatewayAvailability.Invalid.self) { try GatewayAvailability(configured: "lwt/+/+", namedGateway: nil) }
        #expect(throws: GatewayAvailability.Invalid.self) { try GatewayAvailability(configured: "lwt/a+b", namedGateway: nil) }
        // A topic without `+` for an entry that reads any gateway: about which one?
        #expect(throws: GatewayAvailability.Invalid.self) { try GatewayAvailability(configured: "gateways/hall/lwt", namedGateway: nil) }
        #expect((try? GatewayAvailability(configured: "gateways/hall/lwt", namedGateway: "TheengsGateway"))?.gatewayLevel == nil)
        #expect((try? GatewayAvailability(configured: "lwt/+/state", namedGateway: nil))?.gatewayLevel == 1)
    }
}
