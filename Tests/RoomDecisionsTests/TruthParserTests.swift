import BeaconCore
import RoomDecisions
import Testing

@Suite("Truth parsing")
struct TruthParserTests {
    @Test("truth rows parse and errors name the line")
    func truth() throws {
        var parser = TruthParser()
        #expect(try parser.parse(line: "time,beacon,room") == nil)
        #expect(try parser.parse(line: "0.5,beacon1,zone4") == TruthSample(time: Instant(seconds: 0.5), beacon: "beacon1", room: "zone4"))
        #expect(throws: TraceError(line: 3, problem: "time 'x' is not a number")) { try parser.parse(line: "x,beacon1,zone4") }
    }
}
