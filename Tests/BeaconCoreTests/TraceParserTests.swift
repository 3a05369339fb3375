import BeaconCore
import TestSupport
import Testing

/// Parses a whole CSV text through `LineSplitter` and `TraceParser`, as `TraceFile` does.
private func parse(_ text: String, chunk: Int = 7) throws(TraceError) -> [TraceSample] {
    var splitter = LineSplitter()
    var parser = TraceParser()
    var samples: [TraceSample] = []
    let bytes = Array(text.utf8)
    var start = 0
    let body: (Int, Substring) throws(TraceError) -> Void = { (_, line) throws(TraceError) in
        if let sample = try parser.parse(line: line) { samples.append(sample) }
    }
    while start < bytes.count {
        let end = min(start + chunk, bytes.count)
        try splitter.feed(bytes[start..<end], body)
        start = end
    }
    try splitter.finish(body)
    return samples
}

private func error(of text: String) -> String? {
    do {
        _ = try parse(text)
        return nil
    } catch {
        return error.description
    }
}

@Suite("Trace parsing")
struct TraceParserTests {
    @Test("the docs/Files.md example parses; empty measuredPower means unknown")
    func example() throws {
        let samples = try parse("time,node,room,beacon,rssi,measuredPower\n0.000,sensor10,zone1,beacon1,-87,\n0.105,sensor40,zone4,beacon1,-77,-59\n")
        #expect(samples == [
            TraceSample(time: Instant(seconds: 0), node: "sensor10", room: "zone1", beacon: "beacon1", rssi: -87, measuredPower: nil),
            TraceSample(time: Instant(seconds: 0.105), node: "sensor40", room: "zone4", beacon: "beacon1", rssi: -77, measuredPower: -59),
        ])
    }

    @Test("columns are found by name, others ignored, measuredPower optional, CRLF and no final newline accepted")
    func columnsByName() throws {
        let samples = try parse("rssi,extra,beacon,time,room,node\r\n-70,x,b,1.5,kitchen,k1\r\n-71,y,b,2,kitchen,k1")
        #expect(samples.map(\.rssi) == [-70, -71])
        #expect(samples.map(\.time) == [Instant(seconds: 1.5), Instant(seconds: 2)])
        #expect(samples.allSatisfy { $0.node == "k1" && $0.room == "kitchen" && $0.measuredPower == nil })
    }

    @Test("a missing header column is named")
    func missingColumns() {
        #expect(error(of: "time,node,room\n1,a,b\n") == "line 1: header lacks columns beacon, rssi (found 'time,node,room')")
        #expect(error(of: "time,node,room,beacon\n") == "line 1: header lacks column rssi (found 'time,node,room,beacon')")
    }

    @Test("malformed lines name the line and the problem")
    func malformedLines() {
        let header = "time,node,room,beacon,rssi,measuredPower\n"
        let good = "0.5,n1,r1,b1,-70,\n"
        #expect(error(of: header + good + "1.0,n1,r1,b1,abc,\n") == "line 3: rssi 'abc' is not a number")
        #expect(error(of: header + "3.5,n1,r1,b1,-70,\n3.2,n1,r1,b1,-70,\n") == "line 3: time goes backwards (3.2 < 3.5)")
        #expect(error(of: header + "x,n1,r1,b1,-70,\n") == "line 2: time 'x' is not a number")
        #expect(error(of: header + "inf,n1,r1,b1,-70,\n") == "line 2: time 'inf' is not a number")
        #expect(error(of: header + good + good + "1.0,n1,r1\n") == "line 4: beacon missing (3 fields, header has 6)")
        #expect(error(of: header + "1.0,,r1,b1,-70,\n") == "line 2: node is empty")
        #expect(error(of: header + "1.0,n1,r1,b1,-70.5,\n") == "line 2: rssi '-70.5' is not a whole dBm value in -1000...1000")
        #expect(error(of: header + "1.0,n1,r1,b1,-70,x\n") == "line 2: measuredPower 'x' is not a number")
    }

    @Test("a time up to 10 ms backwards (receiver clock jitter) is taken at the previous time")
    func smallReorderTolerated() throws {
        var parser = TraceParser()
        _ = try parser.parse(line: "time,node,room,beacon,rssi")
        _ = try parser.parse(line: "30.030,a,r,b,-70")
        let late = try parser.parse(line: "30.029,c,r,b,-71")
        #expect(late?.time == Instant(seconds: 30.030))
        #expect(parser.reorderedLines == 1)
    }

    @Test("blank lines are skipped, line numbers still count them")
    func blankLines() {
        #expect(error(of: "time,node,room,beacon,rssi\n\n1,a,r,b,-70\n\n1,a,r,b,zz\n") == "line 5: rssi 'zz' is not a number")
        #expect(error(of: "time,node,room,beacon,rssi\n1,a,r,b,-70\n2,a,Living Room,b,-70\n")
            == "line 3: room 'Living Room' is not a room name (1–64 characters of a-z, 0-9, '_' and '-')")
    }

    @Test("an overlong line is an error naming it, not unbounded memory")
    func overlongLine() {
        let long = String(repeating: "x", count: 5000)
        #expect(error(of: "time,node,room,beacon,rssi\n1,a,r,b,-70\n" + long + "\n") == "line 3: longer than 4096 bytes")
    }

    @Test("random and truncated input never crashes the parser")
    func randomInputNeverCrashes() {
        var generator = SplitMix(seed: 7)
        let alphabet = Array("0123456789.,-\n\r abcxyz".utf8)
        let valid = Array("time,node,room,beacon,rssi,measuredPower\n0.000,sensor10,zone1,beacon1,-87,\n0.105,sensor40,zone4,beacon1,-77,-59\n".utf8)
        var outcomes = 0
        for round in 0..<3000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = Array(valid.prefix(Int.random(in: 0...valid.count, using: &generator)))
                if !bytes.isEmpty { bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            } else {
                bytes = (0..<Int.random(in: 0...200, using: &generator)).map { _ in alphabet.randomElement(using: &generator) ?? 0 }
            }
            if (try? parse(String(decoding: bytes, as: UTF8.self), chunk: 1 + round % 13)) != nil { outcomes += 1 }
        }
        #expect(outcomes > 0)
    }
}

private typealias SplitMix = SeededRandom
