import BeaconCore
@testable import PresenceAggregator
import TestSupport
import Testing

/// A measurement is read member by member, without a JSON tree (issue 38). It must accept and
/// reject what the tree did (`JSONParser.parse`, then `JSONFieldReader`), with the same values,
/// and name what is wrong.
struct ReceivedMeasurementTests {
    static let beacon = BeaconID(rawValue: "ibeacon-fda50693-a4e2-4fb1-afcf-c6eb07647825-1-2")

    /// The tree's reading of the fields the aggregator uses: nil when it rejects the payload.
    static func readThroughTheTree(_ payload: [UInt8], topicNode: String) -> ReceivedMeasurement? {
        guard case .object(let object)? = try? JSONParser.parse(payload, maximumBytes: 4096, maximumDepth: 4) else { return nil }
        let fields = JSONFieldReader(object: object, at: .root)
        // nil when the field is of the wrong type; .some(nil) when it is absent or null.
        func string(_ key: String) -> String?? { do { return .some(try fields.optionalString(key)) } catch { return nil } }
        func number(_ key: String) -> Double?? { do { return .some(try fields.optionalNumber(key)) } catch { return nil } }
        guard let beacon = string("beacon") ?? nil, BeaconIDSyntax.canonical(beacon) == beacon,
            let node = string("node") ?? nil, TopicLevelID.isValid(node), node == topicNode,
            let room = string("room") ?? nil, TopicLevelID.isValid(room), room != "not_home",
            let proximityText = string("proximity") ?? nil, let proximity = Proximity(rawValue: proximityText),
            let distance = number("distance"), let name = string("name"),
            let rssiFiltered = number("rssiFiltered"), let rssi = number("rssi"), let sigma = number("sigma")
        else { return nil }
        if let distance, !(distance >= 0) { return nil }
        guard distance != nil || proximity == .unknown else { return nil }
        var measurement = ReceivedMeasurement(
            beacon: BeaconID(rawValue: beacon), name: name.flatMap { $0.isEmpty || $0.count > KnownBeacon.maximumNameLength ? nil : $0 },
            node: node, room: room, rssiFiltered: rssiFiltered, sigma: sigma, distance: distance, proximity: proximity, rssi: rssi)
        // Read for a node beacon's stated power; of another type, left out.
        measurement.measuredPower = number("measuredPower") ?? nil
        if beacon.hasPrefix("irk-") {
            guard let id = string("id") else { return nil }
            if let id, id != beacon { measurement.alias = TopicLevelID(id) }
        }
        return measurement
    }

    @Test func readsWhatTheTreeReadsOnValidAndDamagedPayloads() {
        var generator = SeededRandom(seed: 0x38)
        let valid = Array(measurementJSON(Self.beacon, node: "kitchen-1", room: "kitchen", distance: 1.5).utf8)
        let silence = Array(measurementJSON(Self.beacon, node: "kitchen-1", room: "kitchen", distance: nil).utf8)
        var accepted = 0
        for round in 0..<20_000 {
            var bytes = round % 2 == 0 ? valid : silence
            switch round % 5 {
            case 0: bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator)))
            case 1, 2:
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    // Mostly JSON's own characters, so that many damaged payloads still parse.
                    let pick = Array(#"{}[]",:\0123456789.-enull"#.utf8) + [UInt8.random(in: 0...255, using: &generator)]
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = pick.randomElement(using: &generator)!
                }
            case 3: break
            default:
                let at = Int.random(in: 1..<bytes.count, using: &generator)
                bytes.insert(contentsOf: Array(#""extra":{"a":[1,2,{"b":null}]},"#.utf8), at: at)
            }
            let expected = Self.readThroughTheTree(bytes, topicNode: "kitchen-1")
            let read = try? ReceivedMeasurement(payload: bytes, topicNode: "kitchen-1")
            #expect(read == expected, "round \(round): \(String(decoding: bytes, as: UTF8.self))")
            if read != nil { accepted += 1 }
        }
        #expect(accepted > 4_000)
    }

    /// A short number is computed from its digits, not by `Double(String)`: the same double for
    /// every text of up to 15 digits and more (round-to-nearest ties, negative zero, 15 and 16 digits).
    @Test func numbersReadAsDoubleReadsTheirText() throws {
        var generator = SeededRandom(seed: 0x3806)
        var texts = ["0", "-0", "-0.0", "0.1", "0.3", "9007199254740993", "123456789012345", "1234567890123456",
                     "0.000000000000001", "999999999999999", "-69.5", "1.15", "2.675", "1e2", "1.5E-3"]
        for _ in 0..<5_000 {
            let digits = (0..<Int.random(in: 1...17, using: &generator)).map { _ in String(Int.random(in: 0...9, using: &generator)) }
            var text = digits.joined().drop { $0 == "0" }.description
            if text.isEmpty { text = "0" }
            let point = Int.random(in: 0...text.count, using: &generator)
            if point > 0, point < text.count { text.insert(".", at: text.index(text.startIndex, offsetBy: point)) }
            if point == 0 { text = "0." + text }
            if Bool.random(using: &generator) { text = "-" + text }
            texts.append(text)
        }
        for text in texts {
            let expected = try #require(Double(text))
            var read: Double?
            try JSONParser.readObject(Array(#"{"d":\#(text)}"#.utf8)) { _, value throws(ConfigError) in read = try value.memberNumber() }
            #expect(read?.bitPattern == expected.bitPattern, "\(text)")
        }
    }

    @Test func escapedKeysAndValuesAndUnknownMembers() throws {
        let payload = #"{"b\u0065acon":"\#(Self.beacon.rawValue)","node":"kitchen-1","room":"kitch\u0065n","proximity":"near","#
            + #""distance":1.25e0,"name":"Alice \"A\" \u00e9","extra":[{"x":[true,false,null]}],"sigma":null}"#
        let read = try ReceivedMeasurement(payload: Array(payload.utf8), topicNode: "kitchen-1")
        #expect(read.beacon == Self.beacon)
        #expect(read.room == "kitchen")
        #expect(read.distance == 1.25)
        #expect(read.name == "Alice \"A\" é")
        #expect(read.sigma == nil)
    }

    @Test(arguments: [
        (#"{"beacon":5}"#, #"beacon: expected a string, got an integer"#),
        (#"{"distance":"far","beacon":"x"}"#, #"distance: expected a number, got a string"#),
        (#"{"node":"a","node":"a"}"#, #"node: invalid JSON at byte 12: key appears twice"#),
        (#"{"node":"a"} x"#, #"payload: invalid JSON at byte 13: unexpected data after the JSON value"#),
        (#"[1,2]"#, "expected a JSON object"),
        (#"{"node":nul}"#, #"node: invalid JSON at byte 8: unexpected character 'n', expected a value"#),
    ])
    func errorsNameTheField(payload: String, message: String) {
        #expect(throws: ReceivedMeasurementError(message)) {
            try ReceivedMeasurement(payload: Array(payload.utf8), topicNode: "kitchen-1")
        }
    }
}
