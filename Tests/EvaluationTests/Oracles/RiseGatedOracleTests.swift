import BeaconCore
import Evaluation
import RoomDecisions
import Testing

/// The rise-gated oracle (issue 40, fifth round): a move raises the new room's receiver, a body's
/// shadow only lowers the held room's.
@Suite struct RiseGatedOracleTests {
    /// Rooms `a` and `b`, one receiver each, an advert every 0.5 s from each (b's 10 ms after a's),
    /// for 30 s; each receiver's level before and from 10 s.
    private func walk(a: (Int, Int), b: (Int, Int)) -> [TraceSample] {
        (0..<60).flatMap { step -> [TraceSample] in
            let time = Double(step) * 0.5
            let early = time < 10
            return [
                TraceSample(time: Instant(seconds: time), node: "a-1", room: "a", beacon: "tag", rssi: early ? a.0 : a.1, measuredPower: nil),
                TraceSample(time: Instant(seconds: time + 0.01), node: "b-1", room: "b", beacon: "tag", rssi: early ? b.0 : b.1, measuredPower: nil),
            ]
        }
    }

    private func rows(_ spec: String, _ samples: [TraceSample]) throws -> [String] {
        try RiseGatedOracle(spec: spec).decisions(of: samples.reversed()).map { "\(Int(($0.time.seconds * 100).rounded())) \($0.room)" }
    }

    @Test func aMoveRaisesTheNewRoomAndSwitchesAtItsSecondLoudAdvert() throws {
        // b rises from −70 to −50 while a falls: b's second loud advert (10.51) leads by 20 dB
        // (a's −50 of 9.50 has left the second) and stands 20 dB above b's own earlier mean.
        let move = walk(a: (-50, -70), b: (-70, -50))
        #expect(try rows("lead=4,adverts=2,rise=6,over=5", move) == ["50 a", "1051 b"])
        #expect(try rows("lead=4,adverts=2,rise=6,over=5,fall=6", move) == ["50 a", "1051 b"])
    }

    @Test func aShadowOnTheHeldRoomRaisesNoOtherAndDoesNotSwitch() throws {
        // a falls from −50 to −70 (the wearer's back to it); b stays at its usual −60.
        let shadow = walk(a: (-50, -70), b: (-60, -60))
        // The lead alone switches at b's second advert clear of a's last loud one…
        #expect(try rows("lead=4,adverts=2", shadow) == ["50 a", "1051 b"])
        // …asking b to have risen does not…
        #expect(try rows("lead=4,adverts=2,rise=6,over=5", shadow) == ["50 a"])
        // …and the slow path takes b only once it has led by 2 dB for 8 s (from 10.50 to 18.50).
        #expect(try rows("lead=4,adverts=2,rise=6,over=5,slowLead=2,slowFor=8", shadow) == ["50 a", "1850 b"])
    }

    @Test func aLeadThatGrowsWithTheStayAsksMoreOfALaterChallenger() throws {
        // b leads by 10 dB from 10 s: 4 dB + 1 dB a second since a was taken (0.50 s) is 14 dB by then.
        let shadow = walk(a: (-50, -70), b: (-60, -60))
        #expect(try rows("lead=4,adverts=2,grow=1,growFor=30", shadow) == ["50 a"])
        // Capped at 5 s of growth: 9 dB, which 10 dB clears.
        #expect(try rows("lead=4,adverts=2,grow=1,growFor=5", shadow) == ["50 a", "1051 b"])
    }

    @Test func aSpecThatIsNotOneIsRefusedByName() {
        #expect(throws: RiseGatedOracle.SpecError.self) { try RiseGatedOracle(spec: "lead=4,width=2") }
        #expect(throws: RiseGatedOracle.SpecError.self) { try RiseGatedOracle(spec: "adverts=1.5") }
    }
}
