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
