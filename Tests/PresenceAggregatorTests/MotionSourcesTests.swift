import BeaconCore
import ConfigFile
import Foundation
import PresenceAggregator
import RoomDecisions
import TestSupport
import Testing

/// `motion:` in the aggregator's YAML (issue 37's keys), the payloads Zigbee2MQTT and ESPresense
/// send, and what makes a sensor stop counting.
@Suite struct MotionSourcesTests {
    private func load(_ text: String) throws -> (AggregatorConfigurationLoad, String) {
        let path = try TestBroker.makeTemporaryDirectory() + "/aggregator.yaml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return (AggregatorConfigurationLoad(file: path, environment: [:], flags: [:]), path)
    }

    private static let issueExample = """
        motion:
          - topic: zigbee2mqtt/hall-pir
            room: hall
          - topic: espresense/rooms/office/motion
            room: office
          - topic: home/bath/motion
            room: bath
            payload: {on: "detected", off: "clear"}
        """

    @Test func theIssuesConfigurationReadsAndCheckConfigShowsIt() throws {
        let (loaded, path) = try load(Self.issueExample)
        #expect(loaded.errors.isEmpty, "\(loaded.errors)")
        #expect(loaded.configuration.motion == [
            MotionSensorSettings(topic: "zigbee2mqtt/hall-pir", room: "hall"),
            MotionSensorSettings(topic: "espresense/rooms/office/motion", room: "office"),
            MotionSensorSettings(topic: "home/bath/motion", room: "bath", payload: .init(on: "detected", off: "clear")),
        ])
        let shown = Dictionary(loaded.effectiveSettings.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(shown["motion[0].topic"]?.value == "zigbee2mqtt/hall-pir")
        #expect(shown["motion[0].topic"]?.source == .file(path: path, line: 2))
        #expect(shown["motion[1].room"]?.value == "office")
        #expect(shown["motion[2].payload"]?.value == "on: detected, off: clear")
        #expect(shown["motion[2].payload"]?.source == .file(path: path, line: 8))
    }

    /// The motion hold (`decision.motionHold`) is set by the file, the environment or a flag, shown
    /// by check-config with where it came from, named in its error, and reaches the decision.
    @Test func theMotionHoldIsAFileEnvironmentAndFlagSetting() throws {
        let (loaded, path) = try load("decision:\n  motionHold: 3\n")
        #expect(loaded.errors.isEmpty, "\(loaded.errors)")
        #expect(loaded.configuration.motionDecision.hold == 3)
        let shown = loaded.effectiveSettings.first { $0.key == "decision.motionHold" }
        #expect(shown?.value == "3")
        #expect(shown?.source == .file(path: path, line: 2))
        #expect(AggregatorConfigurationLoad(file: nil, environment: [:], flags: [:])
            .effectiveSettings.first { $0.key == "decision.motionHold" }?.value == "0")

        let environment = AggregatorConfigurationLoad(file: path, environment: ["PRESENCE_MOTION_HOLD": "4.5"], flags: [:])
        #expect(environment.configuration.motionDecision.hold == 4.5)
        let flagged = AggregatorConfigurationLoad(file: path, environment: ["PRESENCE_MOTION_HOLD": "4.5"], flags: [.motionHold: "2"])
        #expect(flagged.configuration.motionDecision.hold == 2)
        let wrong = AggregatorConfigurationLoad(file: nil, environment: [:], flags: [.motionHold: "loud"])
        #expect(wrong.errors.map(\.description).contains { $0.contains("--motion-hold") && $0.contains("'loud' is not a number of dB in 0…20") },
                "\(wrong.errors)")

        let core = AggregatorCore(configuration: flagged.configuration, softwareVersion: "test")
        #expect(core.decider.motionParameters.hold == 2)
        // The rest of the motion settings stay the defaults.
        #expect(core.decider.motionParameters.onsetWindow == MotionParameters.default.onsetWindow)
    }

    @Test func withoutMotionNoneIsRead() throws {
        let (loaded, _) = try load("root: presence\n")
        #expect(loaded.configuration.motion.isEmpty)
        #expect(loaded.effectiveSettings.contains { $0.key == "motion" && $0.value == "(none)" })
    }

    @Test func mistakesNameTheirLines() throws {
        let (loaded, path) = try load("""
            motion:
              - topic: zigbee2mqtt/+
                room: hall
              - topic: home/a
                room: Not A Room
              - room: kitchen
              - topic: home/b
                room: bath
                colour: blue
                payload: {on: yes}
              - topic: home/a
                room: hall
            """)
        let lines = loaded.errors.map(\.description)
        #expect(lines.contains { $0.hasPrefix("\(path):2: motion[0].topic: expected the sensor's MQTT topic") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("\(path):5: motion[1].room: expected a room id") })
        #expect(lines.contains { $0.hasPrefix("\(path):6: motion[2].topic: required") })
        #expect(lines.contains { $0.hasPrefix("\(path):9: motion[3].colour: unknown key (known keys: topic, room, payload, staleAfter)") })
        #expect(lines.contains { $0.hasPrefix("\(path):10: motion[3].payload: expected the sensor's two words") })
        #expect(lines.contains { $0.hasPrefix("\(path):11: motion[4].topic: 'home/a' is already a sensor's topic (line 4)") })
        let (notAList, notAListPath) = try load("motion: {topic: a}\n")
        #expect(notAList.errors.map(\.description) == ["\(notAListPath):1: motion: expected a list of sensors (- topic: …, room: …)"])
    }

    // MARK: - Payloads

    @Test func zigbee2mqttPayloadsAsItPublishesThem() {
        // zigbee2mqtt/<name>: the device's whole state in one object (Zigbee2MQTT's MQTT topics guide).
        #expect(MotionPayload.state(Array(#"{"battery":100,"illuminance":12,"occupancy":true,"linkquality":87}"#.utf8), words: nil) == .motion(true))
        #expect(MotionPayload.state(Array(#"{"occupancy":false}"#.utf8), words: nil) == .motion(false))
        #expect(MotionPayload.state(Array(#"{"presence":true,"target_distance":1.2}"#.utf8), words: nil) == .motion(true))
        #expect(MotionPayload.state(Array(#"{"battery":97}"#.utf8), words: nil) == .nothing)
        #expect(MotionPayload.state(Array(#"{"occupancy":"yes"}"#.utf8), words: nil) == nil)
        #expect(MotionPayload.state(Array(#"{"occupancy":tru"#.utf8), words: nil) == nil)
        // zigbee2mqtt/<name>/availability: JSON, or the legacy plain word.
        #expect(MotionPayload.availability(Array(#"{"state":"offline"}"#.utf8)) == .unavailable)
        #expect(MotionPayload.availability(Array(#"{"state":"online"}"#.utf8)) == .available)
        #expect(MotionPayload.availability(Array("offline".utf8)) == .unavailable)
        #expect(MotionPayload.availability(Array("maybe".utf8)) == nil)
    }

    @Test func espresenseAndPlainPayloads() {
        // ESPresense src/Motion.cpp: "ON"/"OFF" on <channel>/rooms/<id>/motion.
        #expect(MotionPayload.state(Array("ON".utf8), words: nil) == .motion(true))
        #expect(MotionPayload.state(Array("OFF".utf8), words: nil) == .motion(false))
        for word in ["on", "true", "1", "TRUE"] { #expect(MotionPayload.state(Array(word.utf8), words: nil) == .motion(true)) }
        for word in ["off", "false", "0"] { #expect(MotionPayload.state(Array(word.utf8), words: nil) == .motion(false)) }
        let words = MotionSensorSettings.Words(on: "Bewegung", off: "Ruhe")
        #expect(MotionPayload.state(Array("Bewegung".utf8), words: words) == .motion(true))
        #expect(MotionPayload.state(Array("Ruhe".utf8), words: words) == .motion(false))
        #expect(MotionPayload.state([0xFF, 0xFE], words: nil) == nil)
        #expect(MotionPayload.state(Array("42".utf8), words: nil) == nil)
    }

    @Test func availabilityTopicsFollowTheSource() {
        #expect(MotionSensorSettings(topic: "zigbee2mqtt/hall-pir", room: "hall").availabilityTopic == "zigbee2mqtt/hall-pir/availability")
        #expect(MotionSensorSettings(topic: "espresense/rooms/office/motion", room: "office").availabilityTopic == "espresense/rooms/office/status")
    }

    // MARK: - Sources

    @Test func aRoomIsOccupiedWhileAnySensorCountsMotionAndStopsCountingWhenUnavailableOrSilent() {
        var sources = MotionSources(settings: [
            MotionSensorSettings(topic: "zigbee2mqtt/hall-pir", room: "hall", staleAfter: 600),
            MotionSensorSettings(topic: "espresense/rooms/hall/motion", room: "hall"),
        ])
        #expect(Set(sources.subscriptions) == ["zigbee2mqtt/hall-pir", "zigbee2mqtt/hall-pir/availability",
                                               "espresense/rooms/hall/motion", "espresense/rooms/hall/status"])
        let t0 = Instant(seconds: 100)
        #expect(sources.receive(topic: "zigbee2mqtt/hall-pir", payload: Array(#"{"occupancy":true}"#.utf8), at: t0)
            == .changed(room: "hall", occupied: true))
        #expect(sources.receive(topic: "espresense/rooms/hall/motion", payload: Array("OFF".utf8), at: t0) == .unchanged)
        #expect(sources.receive(topic: "zigbee2mqtt/hall-pir", payload: Array("garbage".utf8), at: t0)
            == .unreadable(sensor: "zigbee2mqtt/hall-pir"))
        #expect(sources.unreadable == 1)
        // The Zigbee sensor goes offline: only the ESPresense one counts, and it says no motion.
        #expect(sources.receive(topic: "zigbee2mqtt/hall-pir/availability", payload: Array(#"{"state":"offline"}"#.utf8), at: t0)
            == .changed(room: "hall", occupied: false))
        // Its node's last will: no sensor of the hall counts.
        #expect(sources.receive(topic: "espresense/rooms/hall/status", payload: Array("offline".utf8), at: t0)
            == .changed(room: "hall", occupied: nil))
        #expect(sources.receive(topic: "zigbee2mqtt/hall-pir/availability", payload: Array(#"{"state":"online"}"#.utf8), at: t0) == .unchanged)
        #expect(sources.receive(topic: "zigbee2mqtt/hall-pir", payload: Array(#"{"occupancy":true}"#.utf8), at: t0.advanced(by: 1))
            == .changed(room: "hall", occupied: true))
        // Then silence beyond its staleAfter: it stops counting.
        #expect(sources.tick(at: t0.advanced(by: 300)).isEmpty)
        let stale = sources.tick(at: t0.advanced(by: 602))
        #expect(stale.count == 1 && stale[0].room == "hall" && stale[0].occupied == nil)
        #expect(sources.receive(topic: "elsewhere", payload: [], at: t0) == .ignored)
    }

    // MARK: - watch

    @Test func watchShowsEachRoomsMotion() {
        var state = WatchState(topics: .default, motion: [
            MotionSensorSettings(topic: "zigbee2mqtt/hall-pir", room: "hall"),
            MotionSensorSettings(topic: "espresense/rooms/office/motion", room: "office"),
        ])
        let t = Instant(seconds: 1_700_000_000)
        let hall = state.receive(topic: "zigbee2mqtt/hall-pir", payload: Array(#"{"occupancy":true}"#.utf8), at: t)
        let office = state.receive(topic: "espresense/rooms/office/motion", payload: Array("OFF".utf8), at: t)
        #expect(hall && office)
        let lines = WatchRenderer(title: "presence").lines(for: state, at: t, width: 100)
        #expect(lines.contains { $0.hasPrefix("  hall") && $0.hasSuffix("motion") && !$0.hasSuffix("no motion") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  office") && $0.hasSuffix("no motion") }, "\(lines)")
        let unreadable = state.receive(topic: "zigbee2mqtt/hall-pir", payload: Array("?".utf8), at: t)
        #expect(unreadable && state.malformedMessages == 1)
    }
}
