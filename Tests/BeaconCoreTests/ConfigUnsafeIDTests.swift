import Testing
import TestSupport
@testable import BeaconCore

/// Every operator-chosen id that becomes a topic level (docs/MQTT.md): a `/` would move a message to
/// another topic, `+`/`#` are wildcards a broker refuses in a publish, NUL ends a C string early, and
/// an over-long id makes topics no broker limit expects. Each is rejected before it can reach a
/// topic, with an error naming the field.
@Suite struct ConfigUnsafeIDTests {
    /// The unsafe ids, as text and as a JSON string literal's body.
    static let unsafe: [(text: String, json: String)] = [
        ("a/b", "a/b"), ("a+b", "a+b"), ("a#b", "a#b"), ("#", "#"), ("+", "+"), ("a\u{0}b", "a\\u0000b"),
        (String(repeating: "x", count: 65), String(repeating: "x", count: 65)),
    ]

    @Test(arguments: 0..<unsafe.count)
    func regionIDs(index: Int) {
        let bad = Self.unsafe[index]
        #expect(TopicLevelID(bad.text) == nil)
        let error = regionsError(regionsMessage(#"{"id":"\#(bad.json)","uuid":"\#(officeUUID)"}"#))
        #expect(error?.hasPrefix("regions[0].id: ") == true, "\(error ?? "accepted")")
        #expect(error?.hasSuffix("is not a valid id (\(TopicLevelID.rule))") == true)
    }

    @Test(arguments: 0..<unsafe.count)
    func knownBeaconAliases(index: Int) {
        let bad = Self.unsafe[index]
        let message = #"{"revision":1,"beacons":[{"beacon":"ibeacon-\#(officeUUID)-1-2","id":"\#(bad.json)","name":"Keys"}]}"#
        let error = #expect(throws: ConfigError.self) { try KnownBeaconsConfig.parse(payload(message)) }
        #expect(error?.description.hasPrefix("beacons[0].id: ") == true, "\(error.map(String.init(describing:)) ?? "accepted")")
    }

    @Test(arguments: 0..<unsafe.count)
    func nodeSettingsRoom(index: Int) {
        let bad = Self.unsafe[index]
        let error = #expect(throws: ConfigError.self) { try NodeSettings.parse(payload(#"{"revision":1,"room":"\#(bad.json)"}"#)) }
        #expect(error?.description.hasPrefix("room: ") == true, "\(error.map(String.init(describing:)) ?? "accepted")")
    }

    /// The NUL is shown escaped in the error, so a log line or status payload never carries one.
    @Test func aNULInAnIDIsShownEscaped() throws {
        let error = try #require(regionsError(regionsMessage(#"{"id":"a\u0000b","uuid":"\#(officeUUID)"}"#)))
        #expect(!error.utf8.contains(0))
    }

    /// Beacon ids decoded from the air are safe by construction: every canonical form is a valid
    /// topic level, whatever bytes the advertisement held.
    @Test func canonicalBeaconIDsAreTopicLevels() {
        var random = SeededRandom(seed: 7)
        for _ in 0..<1000 {
            guard let uuid = BeaconUUID(bytes: random.bytes(16)) else { Issue.record("16 bytes are a UUID"); return }
            let id = BeaconID.iBeacon(uuid: uuid, major: .random(in: 0...65535, using: &random), minor: .random(in: 0...65535, using: &random))
            #expect(TopicLevelID.isValid(id.rawValue), "\(id)")
        }
        #expect(TopicLevelID.isValid(BeaconID.iBeacon(uuid: BeaconUUID(high: .max, low: .max), major: 65535, minor: 65535).rawValue))
    }
}
