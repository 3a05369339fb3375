import Testing
import TestSupport
@testable import BeaconCore

/// `JSONBytes` writes what the String-based writers write, byte for byte: the MQTT payloads do not
/// change with the faster path.
@Suite struct JSONBytesTests {
    func bytes(_ body: (inout [UInt8]) -> Void) -> String {
        var out: [UInt8] = []
        body(&out)
        return String(decoding: out, as: UTF8.self)
    }

    @Test func numbersMatchTheStringWriterOnSeededRandomValues() {
        var random = SeededRandom(seed: 61)
        var values: [Double] = [0, -0.0, 0.004, -0.004, 0.05, -0.05, 1, -1, 10.5, 2.3149, -69.42, 1e15, -9.1e15, .nan, .infinity, -.infinity]
        for _ in 0..<20_000 {
            let magnitude = [1.0, 10, 100, 1e4, 1e9][Int(random.next() % 5)]
            values.append((Double(random.next() % 2_000_001) / 1_000_000 - 1) * magnitude)
        }
        for value in values {
            for decimals in [0, 1, 2, 3] {
                #expect(bytes { JSONBytes.append(value, decimals: decimals, to: &$0) } == JSONObjectWriter.number(value, decimals: decimals),
                        "\(value) to \(decimals) places")
            }
        }
        for value in [0, 7, -7, 1234567, Int.max, Int.min + 1] {
            #expect(bytes { JSONBytes.append(value, to: &$0) } == String(value))
        }
    }

    @Test func timestampsStringsAndIdsMatch() {
        var random = SeededRandom(seed: 62)
        for _ in 0..<2_000 {
            let instant = Instant(seconds: Double(random.next() % 4_000_000_000_000) / 1000 - 100_000_000)
            #expect(bytes { JSONBytes.appendQuotedTimestamp(instant, to: &$0) } == "\"" + ISO8601Timestamp.string(from: instant) + "\"")
        }
        for text in ["kitchen-1", "Alice's keys", "quote \" back \\ slash", "line\nfeed\t\u{01}", "ünïcödé ✓"] {
            #expect(bytes { JSONBytes.appendQuoted(text, to: &$0) } == JSONText.quoted(text))
        }
        let address = BluetoothAddress(rawValue: 0xC4A1_B2C3_D4E5)
        #expect(bytes { JSONBytes.appendQuoted(address, to: &$0) } == "\"\(address.description)\"")
        let uuid = BeaconUUID("fda50693-a4e2-4fb1-afcf-c6eb07647825")!
        #expect(bytes { JSONBytes.appendQuoted(uuid, to: &$0) } == "\"fda50693-a4e2-4fb1-afcf-c6eb07647825\"")
        let components = BeaconID.Components.iBeacon(uuid: uuid, major: 0, minor: 65535)
        #expect(bytes { JSONBytes.appendQuoted(components, to: &$0) } == "\"" + BeaconID(components).rawValue + "\"")
        #expect(bytes { JSONBytes.appendQuoted(BeaconID.Components.mac(address), to: &$0) } == "\"mac-c4a1b2c3d4e5\"")
    }

    /// An entry written through a cursor quotes as `JSONText` does, and the room `quotedCapacity`
    /// gives holds the worst case (six bytes per control character).
    @Test func cursorQuotesAsTheStringWriterWithinItsCapacity() {
        let texts = ["", "kitchen-1", "quote \" back \\ slash", "line\nfeed\t\u{01}", String(repeating: "\u{01}", count: 40), "ünïcödé ✓"]
        var scratch: [UInt8] = []
        for text in texts {
            var out: [UInt8] = Array("[".utf8)
            JSONBytes.append(to: &out, capacity: JSONBytes.quotedCapacity(text), scratch: &scratch) { $0.appendQuoted(text) }
            #expect(String(decoding: out, as: UTF8.self) == "[" + JSONText.quoted(text))
        }
    }
}
