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
        // The room named before it that it was probably meant to be (issue 36).
        #expect(throws: TraceError(line: 4, problem: "room 'Zone 4' is not a room name (1–64 characters of a-z, 0-9, '_' and '-'); "
            + "did you mean 'zone4'?")) {
            try parser.parse(line: "1,beacon1,Zone 4")
        }
        #expect(throws: TraceError(line: 5, problem: "room 'Attic!' is not a room name (1–64 characters of a-z, 0-9, '_' and '-')")) {
            try parser.parse(line: "1,beacon1,Attic!")
        }
    }

    @Test("an optional floor column gives each room its floor, one per room")
    func floors() throws {
        var parser = TruthParser()
        #expect(try parser.parse(line: "time,beacon,room,floor") == nil)
        #expect(try parser.parse(line: "0,b,lounge,ground")?.floor == "ground")
        #expect(try parser.parse(line: "1,b,hall,")?.floor == nil)
        #expect(try parser.parse(line: "2,b,bedroom,upstairs")?.floor == "upstairs")
        #expect(try parser.parse(line: "3,b,lounge,ground")?.floor == "ground")
        #expect(throws: TraceError(line: 6, problem: "room 'lounge' is on floor 'upstairs' here but on 'ground' on line 2")) {
            try parser.parse(line: "4,b,lounge,upstairs")
        }
        #expect(throws: TraceError(line: 7, problem: "floor 'Up' is not a floor name (1–64 characters of a-z, 0-9, '_' and '-'; not not_home)")) {
            try parser.parse(line: "5,b,landing,Up")
        }
        #expect(throws: TraceError(line: 8, problem: "not_home has no floor (floor 'ground')")) {
            try parser.parse(line: "6,b,not_home,ground")
        }
    }
}
