import BeaconCore
import PresenceAggregator
import TestSupport
import Testing

/// The foreign sources as state machines: messages and time in, the aggregator's inputs out.
@Suite struct ForeignSourceTests {
    typealias P = ForeignNodePayloads
    static let keys = P.iBeacon(major: 5, minor: 6)
    static let known = ForeignKnownBeacons([
        KnownBeacon(beacon: keys, alias: TopicLevelID("alice-keys"), name: "Alice's keys"),
        KnownBeacon(beacon: P.sampleKeyID, alias: TopicLevelID("alice-phone"), name: "Alice's iPhone"),
    ])

    private func espresense(followUnknown: Bool = false) -> ESPresenseSource {
        ESPresenseSource(settings: ESPresenseSettings(topic: "espresense", rooms: ["desk-node": "office"]),
                         followUnknown: followUnknown, pathLossExponent: 1.5, known: Self.known)
    }

    private func measurements(_ outcome: ForeignMessageOutcome) -> [ReceivedMeasurement] {
        guard case .used(let inputs) = outcome else { return [] }
        return inputs.compactMap { if case .measurement(let m) = $0 { m } else { nil } }
    }

    @Test func aKnownDeviceBecomesAMeasurementInTheNodesRoom() {
        var source = espresense()
        let id = "iBeacon:\(P.uuid)-5-6"
        let kitchen = measurements(source.receive(topic: "espresense/devices/\(id)/kitchen",
                                                  payload: Array(P.espresense(id: id, rssi: -70).utf8), at: startTime))
        #expect(kitchen.count == 1)
        #expect(kitchen.first?.beacon == Self.keys)
        #expect(kitchen.first?.room == "kitchen")
        #expect(kitchen.first?.node == "kitchen")
        let desk = measurements(source.receive(topic: "espresense/devices/\(id)/desk-node",
                                               payload: Array(P.espresense(id: id, rssi: -80).utf8), at: startTime))
        #expect(desk.first?.room == "office")
    }

    @Test func unknownDevicesAreFollowedOnlyWhenAsked() {
        let id = "iBeacon:\(P.uuid)-9-9"
        var strict = espresense()
        #expect(strict.receive(topic: "espresense/devices/\(id)/kitchen", payload: Array(P.espresense(id: id, rssi: -70).utf8), at: startTime) == .ignored)
        var open = espresense(followUnknown: true)
        #expect(measurements(open.receive(topic: "espresense/devices/\(id)/kitchen", payload: Array(P.espresense(id: id, rssi: -70).utf8), at: startTime)).count == 1)
        // Ids with no identity of ours are never followed.
        #expect(open.receive(topic: "espresense/devices/apple:1005:9-25/kitchen", payload: Array(P.espresense(id: "apple:1005:9-25", rssi: -70).utf8), at: startTime) == .ignored)
    }

    @Test func aResolvedPhoneIsItsKnownDeviceAndTheKeyGoesNowhere() {
        var source = espresense()
        let id = "irk:\(P.sampleKeyHex)"
        let out = measurements(source.receive(topic: "espresense/devices/\(id)/kitchen",
                                              payload: Array(P.espresense(id: id, rssi: -66, name: "iPhone").utf8), at: startTime))
        #expect(out.first?.beacon == P.sampleKeyID)
        #expect(out.first?.alias?.rawValue == "alice-phone")
        #expect(!"\(out)".contains(P.sampleKeyHex))
        // A wrong id in the payload is refused without naming the key.
        let wrong = source.receive(topic: "espresense/devices/\(id)/kitchen",
                                   payload: Array(P.espresense(id: "irk:00000000000000000000000000000001", rssi: -66).utf8), at: startTime)
        guard case .rejected(_, let error) = wrong else { return #expect(Bool(false)) }
        #expect(!error.description.contains(P.sampleKeyHex) && !error.description.contains("0000000000000001"))
    }

    @Test func silenceEndsANodesEvidence() {
        var source = espresense()
        let id = "iBeacon:\(P.uuid)-5-6"
        _ = source.receive(topic: "espresense/devices/\(id)/kitchen", payload: Array(P.espresense(id: id, rssi: -70).utf8), at: startTime)
        #expect(source.tick(at: startTime + 15).isEmpty)
        let silence = source.tick(at: startTime + 15.5)
        #expect(silence == [.measurement(ReceivedMeasurement(beacon: Self.keys, node: "kitchen", room: "kitchen", distance: nil, proximity: .unknown))])
        #expect(source.tick(at: startTime + 30).isEmpty)
    }

    @Test func statusesBecomeNodeStatuses() {
        var source = espresense()
        // A node met for the first time is handed on as an ESPresense node, with its status topic,
        // before its status: its Home Assistant device reads its connectivity there.
        let kitchen = NodeKind.espresense(statusTopic: "espresense/rooms/kitchen/status")
        #expect(source.receive(topic: "espresense/rooms/kitchen/status", payload: Array("offline".utf8), at: startTime)
            == .used([.nodeInfo(node: "kitchen", room: "kitchen", version: nil, kind: kitchen), .nodeStatus(node: "kitchen", online: false)]))
        #expect(source.receive(topic: "espresense/rooms/kitchen/status", payload: Array("online".utf8), at: startTime)
            == .used([.nodeStatus(node: "kitchen", online: true)]))
        // Telemetry gives the node's device its room and firmware version (`ver`), nothing else.
        let telemetry = #"{"ip":"192.168.1.23","uptime":5123,"firm":"esp32","rssi":-61,"ver":"v4.1.6","adverts":2012,"freeHeap":101232}"#
        #expect(source.receive(topic: "espresense/rooms/desk-node/telemetry", payload: Array(telemetry.utf8), at: startTime)
            == .used([.nodeInfo(node: "desk-node", room: "office", version: "v4.1.6",
                                kind: .espresense(statusTopic: "espresense/rooms/desk-node/status"))]))
        #expect(source.receive(topic: "espresense/rooms/kitchen/set", payload: Array("{}".utf8), at: startTime) == .ignored)
        if case .rejected(let node, _) = source.receive(topic: "espresense/rooms/kitchen/status", payload: Array("maybe".utf8), at: startTime) {
            #expect(node == "kitchen")
        } else {
            Issue.record("a nonsense status was not refused")
        }
    }

    // MARK: Gateways

    private func gateways() -> GatewaySource {
        var source = GatewaySource(settings: [GatewaySettings(topic: "home/+/BTtoMQTT/+", rooms: ["gw-office": "office"])],
                                   followUnknown: false, known: Self.known)
        source.setIdentityKeys([(P.crypto.addressHash(for: P.sampleKey), P.sampleKeyID.components!)])
        return source
    }

    @Test func aGatewayRunsAsOurAgentWould() {
        var source = gateways()
        let topic = "home/gw-office/BTtoMQTT/C4A1B2C3D4E5"
        var published: [ReceivedMeasurement] = []
        for step in 0..<20 {
            let payload = P.theengsRaw(rssi: -70 + (step % 3), manufacturerData: P.iBeaconData(major: 5, minor: 6))
            published += measurements(source.receive(topic: topic, payload: Array(payload.utf8), at: startTime + Double(step) * 0.1))
        }
        // The first advert is published; a still beacon is not re-published at every advert.
        #expect(published.count >= 1 && published.count < 5)
        #expect(published.first?.beacon == Self.keys)
        #expect(published.first?.node == "gw-office")
        #expect(published.first?.room == "office")
        // Its device reads its connectivity on its last will, beside its BTtoMQTT topic.
        var again = gateways()
        guard case .used(let inputs) = again.receive(topic: topic, payload: Array(P.theengsRaw(rssi: -70,
            manufacturerData: P.iBeaconData(major: 5, minor: 6)).utf8), at: startTime) else { return #expect(Bool(false)) }
        #expect(inputs.first == .nodeInfo(node: "gw-office", room: "office", version: nil, kind: .gateway(lastWillTopic: "home/gw-office/LWT")))
        let silence = source.tick(at: startTime + 8)
        #expect(silence.count == 1)
        if case .measurement(let m)? = silence.first { #expect(m.isSilence) }
    }

    @Test func aPhonesRotatingAddressResolvesToItsDevice() {
        var source = gateways()
        let address = P.phoneAddress(prand: 0x2A_5A5A)
        let payload = P.openMQTTGateway(address: address.description.uppercased(), macType: 1, rssi: -62, manufacturerData: "4c0010050b1c6a4f2e")
        let out = measurements(source.receive(topic: "home/gw-office/BTtoMQTT/\(address.compactHex.uppercased())",
                                              payload: Array(payload.utf8), at: startTime))
        #expect(out.first?.beacon == P.sampleKeyID)
        #expect(out.first?.alias?.rawValue == "alice-phone")
    }

    @Test func gatewaysWithoutARoomAndOtherTopicsAreNotAdverts() {
        var source = gateways()
        let payload = Array(P.theengsRaw(rssi: -70, manufacturerData: P.iBeaconData(major: 5, minor: 6)).utf8)
        guard case .rejected(let gateway, let error) = source.receive(topic: "home/TheengsGateway/BTtoMQTT/C4A1B2C3D4E5", payload: payload, at: startTime) else {
            return #expect(Bool(false))
        }
        #expect(gateway == "TheengsGateway")
        #expect(error.description.contains("sources.gateways[0].rooms"))
        #expect(source.receive(topic: "home/gw-office/BTtoMQTT/undecoded", payload: payload, at: startTime) == .ignored)
        #expect(source.receive(topic: "home/gw-office/BTtoMQTT/C4A1B2C3D4E6", payload: Array(P.theengsRaw(rssi: -70, manufacturerData: P.iBeaconData(major: 9, minor: 9)).utf8), at: startTime) == .ignored)
        #expect(GatewaySource.nodeName("TheengsGateway") == "theengsgateway")
        // Theengs Gateway's presence messages share the advert topic and carry no RSSI.
        #expect(source.receive(topic: "home/gw-office/BTtoMQTT/C4A1B2C3D4E5", payload: Array(#"{"id":"C4:A1:B2:C3:D4:E5","presence":"absent"}"#.utf8), at: startTime) == .ignored)
    }
}
