import BeaconCore
import Foundation
import PresenceAggregator
import TestSupport
import Testing

/// Ids the aggregator turns into topic levels: aliases from its `beacons` list, and the node and
/// room names of the measurements it reads (`<root>/locations/<id>`, `<root>/rooms/<room>`). `/`,
/// `+`, `#`, NUL and 65-character ids are rejected before they reach a topic, naming the field.
@Suite struct AggregatorUnsafeIDTests {
    /// As YAML double-quoted scalars (`\0` is YAML's NUL) and as plain text.
    static let unsafe: [(yaml: String, text: String)] = [
        ("\"a/b\"", "a/b"), ("\"a+b\"", "a+b"), ("\"a#b\"", "a#b"), ("\"#\"", "#"), ("\"+\"", "+"),
        ("\"a\\0b\"", "a\u{0}b"), (String(repeating: "x", count: 65), String(repeating: "x", count: 65)),
    ]

    @Test(arguments: 0..<unsafe.count)
    func configuredAliases(index: Int) throws {
        let path = try TestBroker.makeTemporaryDirectory() + "/aggregator.yaml"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "beacons:\n  - beacon: mac-c4a1b2c3d4e5\n    id: \(Self.unsafe[index].yaml)\n".write(toFile: path, atomically: true, encoding: .utf8)
        let error = #expect(throws: (any Error).self) { try AggregatorConfiguration.load(file: path, environment: [:], flags: [:]) }
        let message = (error as? AggregatorConfigurationProblems)?.errors.first.map { "\($0.field): \($0.message)" } ?? "accepted"
        #expect(message.hasPrefix("beacons[0].id: "), "\(message)")
        #expect(message.hasSuffix("is not a valid id (1–64 characters of a-z, 0-9, '_' and '-')"), "\(message)")
        #expect(!message.utf8.contains(0))
    }

    @Test(arguments: 0..<unsafe.count)
    func measuredRooms(index: Int) {
        let bad = Self.unsafe[index].text
        let payload = Array(measurementJSON(beaconID, node: "kitchen-1", room: bad, distance: 1).utf8)
        let error = #expect(throws: ReceivedMeasurementError.self) { try ReceivedMeasurement(payload: payload, topicNode: "kitchen-1") }
        #expect(error?.message == "room: missing or not a valid room id")
    }

    @Test(arguments: 0..<unsafe.count)
    func measuringNodes(index: Int) {
        let bad = Self.unsafe[index].text
        let payload = Array(measurementJSON(beaconID, node: bad, room: "kitchen", distance: 1).utf8)
        let error = #expect(throws: ReceivedMeasurementError.self) { try ReceivedMeasurement(payload: payload, topicNode: bad) }
        #expect(error?.message == "node: missing or not a valid id")
    }

    /// A measurement over 4096 bytes is refused before it is parsed (a real one is about 400).
    @Test func anOversizedMeasurementIsRefused() {
        let valid = measurementJSON(beaconID, node: "kitchen-1", room: "kitchen", distance: 1)
        let padded = String(valid.dropLast()) + #","pad":""# + String(repeating: "x", count: 4097 - valid.count - 9) + #""}"#
        #expect(padded.utf8.count == 4097)
        let error = #expect(throws: ReceivedMeasurementError.self) {
            try ReceivedMeasurement(payload: Array(padded.utf8), topicNode: "kitchen-1")
        }
        #expect(error?.message == "payload: payload is 4097 bytes; the limit is 4096 bytes")
        let fits = String(valid.dropLast()) + #","pad":""# + String(repeating: "x", count: 4096 - valid.count - 9) + #""}"#
        #expect(fits.utf8.count == 4096)
        #expect(throws: Never.self) { try ReceivedMeasurement(payload: Array(fits.utf8), topicNode: "kitchen-1") }
    }
}
