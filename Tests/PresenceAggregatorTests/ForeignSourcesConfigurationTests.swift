import BeaconCore
import ConfigFile
import Foundation
import PresenceAggregator
import TestSupport
import Testing

/// `sources:` in the aggregator's YAML: the issue's keys, their defaults, and errors naming the line.
@Suite struct ForeignSourcesConfigurationTests {
    private func load(_ text: String) throws -> (AggregatorConfigurationLoad, String) {
        let path = try TestBroker.makeTemporaryDirectory() + "/aggregator.yaml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return (AggregatorConfigurationLoad(file: path, environment: [:], flags: [:]), path)
    }

    @Test func theIssuesConfigurationReads() throws {
        let (loaded, path) = try load("""
            sources:
              espresense:
                topic: espresense
                rooms: {desk-node: office}
              gateways:
                - topic: home/+/BTtoMQTT/+
                  rooms: {gw-office: office}
            """)
        #expect(loaded.errors.isEmpty, "\(loaded.errors)")
        let sources = loaded.configuration.sources
        #expect(sources.espresense == ESPresenseSettings(topic: "espresense", rooms: ["desk-node": "office"]))
        #expect(sources.espresense?.silenceTimeout == 15)
        #expect(sources.gateways == [GatewaySettings(topic: "home/+/BTtoMQTT/+", rooms: ["gw-office": "office"])])
        #expect(sources.followUnknown == false)
        let shown = Dictionary(loaded.effectiveSettings.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(shown["sources.espresense.topic"]?.value == "espresense")
        #expect(shown["sources.espresense.topic"]?.source == .file(path: path, line: 3))
        #expect(shown["sources.espresense.rooms"]?.value == "desk-node → office")
        #expect(shown["sources.gateways[0].topic"]?.source == .file(path: path, line: 6))
        #expect(shown["sources.gateways[0].rooms"]?.value == "gw-office → office")
        // Where the gateways say online/offline: beside their adverts unless told.
        #expect(shown["sources.gateways[0].availability"]?.value == "home/+/LWT")
        #expect(shown["sources.gateways[0].availability"]?.source == .defaultValue)
    }

    @Test func aGatewaysAvailabilityIsReadWithItsLine() throws {
        let (loaded, path) = try load("""
            sources:
              gateways:
                - availability: gateways/hall/lwt
                  topic: home/TheengsGateway/BTtoMQTT/+
                  rooms: {TheengsGateway: hall}
                - topic: home/+/BTtoMQTT/+
                  room: office
                  availability: lwt/+/state
                - topic: ble/+/+
                  room: office
            """)
        #expect(loaded.errors.isEmpty, "\(loaded.errors)")
        let gateways = loaded.configuration.sources.gateways
        #expect(gateways.map(\.availability) == ["gateways/hall/lwt", "lwt/+/state", nil])
        let shown = Dictionary(loaded.effectiveSettings.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(shown["sources.gateways[0].availability"]?.value == "gateways/hall/lwt")
        #expect(shown["sources.gateways[0].availability"]?.source == .file(path: path, line: 3))
        #expect(shown["sources.gateways[1].availability"]?.source == .file(path: path, line: 8))
        #expect(shown["sources.gateways[2].availability"]?.value == "(none: no BTtoMQTT level after the gateway's)")
    }

    @Test func aBadAvailabilityIsAnErrorNamingItsLine() throws {
        let (loaded, path) = try load("""
            sources:
              gateways:
                - topic: home/+/BTtoMQTT/+
                  room: office
                  availability: home/TheengsGateway/LWT
                - topic: home/+/BTtoMQTT/+
                  availability: lwt/#
                - topic: home/+/BTtoMQTT/+
                  availability: {a: b}
            """)
        let lines = loaded.errors.map(\.description)
        #expect(lines.contains { $0.hasPrefix("\(path):5: sources.gateways[0].availability: 'home/TheengsGateway/LWT' names no gateway") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("\(path):7: sources.gateways[1].availability: expected the gateways' availability topic") })
        #expect(lines.contains { $0.hasPrefix("\(path):9: sources.gateways[2].availability: expected") })
        #expect(lines.count == 3)
    }

    @Test func withoutSourcesNoneAreRead() throws {
        let (loaded, _) = try load("root: presence\n")
        #expect(loaded.configuration.sources.isEmpty)
        #expect(loaded.effectiveSettings.contains { $0.key == "sources" && $0.value == "(none)" })
    }

    @Test func mistakesNameTheirLines() throws {
        let (loaded, path) = try load("""
            sources:
              espresense:
                topic: espresense/#
                rooms: {Desk Node: office, kitchen: not_home}
                silenceTimeout: -3
              gateways:
                - rooms: {gw-office: office}
                - topic: home/+/BTtoMQTT/+
                  room: Hall
                  colour: blue
              followUnknown: maybe
              extra: 1
            """)
        let lines = loaded.errors.map(\.description)
        #expect(lines.contains("\(path):3: sources.espresense.topic: expected their topic prefix, \(TopicScheme.rootRule) (ESPresense's is espresense)"))
        #expect(lines.contains { $0.hasPrefix("\(path):4: sources.espresense.rooms.Desk Node: is not a node name") })
        #expect(lines.contains { $0.hasPrefix("\(path):4: sources.espresense.rooms.kitchen: expected a room id") })
        #expect(lines.contains { $0.hasPrefix("\(path):5: sources.espresense.silenceTimeout:") })
        #expect(lines.contains { $0.hasPrefix("\(path):7: sources.gateways[0].topic: required") })
        #expect(lines.contains { $0.hasPrefix("\(path):9: sources.gateways[1].room: expected a room id") })
        #expect(lines.contains { $0.hasPrefix("\(path):10: sources.gateways[1].colour: unknown key") })
        #expect(lines.contains { $0.hasPrefix("\(path):11: sources.followUnknown: expected true or false") })
        #expect(lines.contains { $0.hasPrefix("\(path):12: sources.extra: unknown key") })
    }
}
