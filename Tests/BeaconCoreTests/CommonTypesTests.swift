import Testing
@testable import BeaconCore

@Suite struct CommonTypesTests {
    @Test func addressRoundTripsThroughWireOrder() {
        let wire: [UInt8] = [0xE5, 0xD4, 0xC3, 0xB2, 0xA1, 0xC4]
        let address = BluetoothAddress(littleEndian: wire)
        #expect(address?.description == "c4:a1:b2:c3:d4:e5")
        #expect(address?.compactHex == "c4a1b2c3d4e5")
        #expect(BluetoothAddress("C4:A1:B2:C3:D4:E5") == address)
        #expect(BluetoothAddress("c4:a1:b2") == nil)
        #expect(BluetoothAddress(littleEndian: wire.prefix(5)) == nil)
    }

    @Test func uuidParsesAndFormatsLowercase() {
        let uuid = BeaconUUID("FDA50693-A4E2-4FB1-AFCF-C6EB07647825")
        #expect(uuid?.description == "fda50693-a4e2-4fb1-afcf-c6eb07647825")
        #expect(BeaconUUID("fda50693a4e24fb1afcfc6eb07647825") == uuid)
        #expect(BeaconUUID(bytes: uuid!.bytes) == uuid)
        #expect(BeaconUUID("abc") == nil)
        #expect(BeaconUUID("fda50693-a4e2-4fb1-afcf-c6eb0764782") == nil)
        #expect(BeaconUUID("fda5-0693a4e2-4fb1-afcf-c6eb07647825") == nil)
    }

    @Test func byteReaderReturnsNilInsteadOfTrapping() {
        var reader = ByteReader([0x01, 0x02, 0x03])
        #expect(reader.readUInt16LE() == 0x0201)
        #expect(reader.readUInt16LE() == nil)
        #expect(reader.readBytes(2) == nil)
        #expect(reader.readUInt8() == 0x03)
        #expect(reader.readUInt8() == nil)
        #expect(reader.readBytes(-1) == nil)
    }
}

@Suite struct JSONObjectWriterTests {
    @Test func writesKeysInOrderWithEscaping() {
        var writer = JSONObjectWriter()
        writer.add("id", "alice \"keys\"\n")
        writer.add("rssi", -71)
        writer.add("distance", 2.305, decimals: 2)
        writer.add("ok", true)
        writer.addNull("x")
        #expect(writer.json == #"{"id":"alice \"keys\"\n","rssi":-71,"distance":2.31,"ok":true,"x":null}"#)
    }

    /// `json` and `finish()` give the same text; non-ASCII, nested objects, large integers and a
    /// writer grown past its reserve come out as written.
    @Test func finishedAndReadTextAgree() {
        var nested = JSONObjectWriter()
        nested.add("küche", 1.5, decimals: 2)
        var writer = JSONObjectWriter(reservingCapacity: 4)
        writer.add("name", "Küche \u{1F600} \\")
        writer.add("min", Int.min)
        writer.add("max", Int.max)
        writer.add("off", false)
        writer.addRaw("candidates", nested.finish())
        writer.add("long", String(repeating: "x", count: 300))
        let expected = #"{"name":"Küche 😀 \\","min":-9223372036854775808,"max":9223372036854775807,"off":false,"candidates":{"küche":1.5},"long":""#
            + String(repeating: "x", count: 300) + #""}"#
        #expect(writer.json == expected)
        #expect(writer.finish() == expected)
        #expect(JSONObjectWriter().json == "{}")
    }

    @Test func roundsNumbersWithoutTrailingZeros() {
        #expect(JSONObjectWriter.number(-69.40, decimals: 1) == "-69.4")
        #expect(JSONObjectWriter.number(-0.04, decimals: 1) == "0")
        #expect(JSONObjectWriter.number(-0.06, decimals: 1) == "-0.1")
        #expect(JSONObjectWriter.number(3.0, decimals: 2) == "3")
        #expect(JSONObjectWriter.number(0.05, decimals: 2) == "0.05")
        #expect(JSONObjectWriter.number(.nan, decimals: 2) == "null")
        #expect(JSONObjectWriter.number(-.infinity, decimals: 2) == "null")
    }

    @Test func escapesControlCharacters() {
        var out = ""
        JSONText.appendQuoted("a\u{01}b", to: &out)
        #expect(out == #""a\u0001b""#)
    }

    /// Strings that need no escape are appended whole; the others still escape every character.
    @Test func quotesWithAndWithoutEscapes() {
        #expect(JSONText.quoted("kitchen-1") == #""kitchen-1""#)
        #expect(JSONText.quoted("") == "\"\"")
        #expect(JSONText.quoted("Café ☕️ 🔑") == "\"Café ☕️ 🔑\"")
        #expect(JSONText.quoted(#"say "hi" \ é"#) == #""say \"hi\" \\ é""#)
        #expect(JSONText.quoted("tab\tend\n") == #""tab\tend\n""#)
        #expect(JSONText.quoted("\u{08}\u{0C}\r\u{1F}é") == #""\b\f\r\u001fé""#)
        var out = "{"
        JSONText.appendQuoted("id", to: &out)
        #expect(out == #"{"id""#)
    }

    @Test func uuidTextUsesEveryHexDigit() {
        let uuid = BeaconUUID(high: 0x0011_2233_4455_6677, low: 0x8899_AABB_CCDD_EEFF)
        #expect(uuid.description == "00112233-4455-6677-8899-aabbccddeeff")
        #expect(BeaconUUID(uuid.description) == uuid)
        #expect(BeaconUUID(high: 0, low: 0).description == "00000000-0000-0000-0000-000000000000")
    }

    /// A line that would repeat per message goes out at once, then once a minute, each saying how
    /// many occurrences it stands for; nothing is lost from the count.
    @Test func repeatedLogGateLogsTheFirstAtOnceThenOneLineAMinuteWithTheCount() {
        var gate = RepeatedLogGate(interval: 60)
        #expect(gate.note(at: Instant(seconds: 1000)) == 1)
        #expect(gate.note(at: Instant(seconds: 1000.5)) == nil)
        #expect(gate.note(3, at: Instant(seconds: 1030)) == nil)
        #expect(gate.note(at: Instant(seconds: 1059.9)) == nil)
        #expect(gate.note(at: Instant(seconds: 1060)) == 6)
        #expect(gate.note(at: Instant(seconds: 1061)) == nil)
        // A quiet hour: the next occurrence is logged at once.
        #expect(gate.note(at: Instant(seconds: 5000)) == 2)
    }

    /// A flood summarised every 10 s: each line says how many and over how long; the flood's tail
    /// is reported at the next tick after the interval even when nothing more comes, and a gate
    /// with nothing held back says nothing.
    @Test func repeatedLogGateSummarisesAFloodAndItsTailOnAnInjectedClock() {
        var gate = RepeatedLogGate(interval: 10)
        #expect(gate.summary(at: Instant(seconds: 100)) == .init(count: 1, seconds: 0))
        var lines: [RepeatedLogGate.Summary] = []
        // 1,000 occurrences a second for 25 s: at most one line per 10 s.
        for step in 1...25_000 {
            if let line = gate.summary(at: Instant(seconds: 100 + Double(step) / 1_000)) { lines.append(line) }
        }
        #expect(lines == [.init(count: 10_000, seconds: 10), .init(count: 10_000, seconds: 10)])
        #expect(gate.flush(at: Instant(seconds: 125.5)) == nil)  // 5.5 s since the last line
        #expect(gate.flush(at: Instant(seconds: 130)) == .init(count: 5_000, seconds: 10))
        #expect(gate.flush(at: Instant(seconds: 200)) == nil)  // nothing held back
        #expect(RepeatedLogGate.Summary(count: 12_345, seconds: 10).description == "12,345 in the last 10 s")
        #expect(RepeatedLogGate.Summary(count: 1, seconds: 0).description == "1")
    }
}
