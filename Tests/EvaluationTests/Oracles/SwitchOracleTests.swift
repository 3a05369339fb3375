import BeaconCore
import Evaluation
import RoomDecisions
import Testing

/// The signal's own oracles (`SwitchOracle`): on a clean 20-dB swap between two rooms, the raw
/// advert shows it at the first advert, the 1-s mean half a second later, and the held mean one
/// second after that.
@Suite struct SwitchOracleTests {
    /// Rooms `a` and `b`, one receiver each, an advert every 0.5 s from each (b's 10 ms after
    /// a's); `a` is the louder until 10 s, `b` from then on.
    private var swap: [TraceSample] {
        (0..<40).flatMap { step -> [TraceSample] in
            let time = Double(step) * 0.5
            let aLoud = time < 10
            return [
                TraceSample(time: Instant(seconds: time), node: "a-1", room: "a", beacon: "tag", rssi: aLoud ? -50 : -70, measuredPower: nil),
                TraceSample(time: Instant(seconds: time + 0.01), node: "b-1", room: "b", beacon: "tag", rssi: aLoud ? -70 : -50, measuredPower: nil),
            ]
        }
    }

    private func rows(_ oracle: SwitchOracle) -> [String] {
        oracle.decisions(of: swap.reversed()).map { "\(ReplayTime.text($0.time.seconds)) \($0.room)" }
    }

    @Test func eachOracleFollowsTheSwapAsSoonAsItsWindowShowsIt() {
        // 10.00: a falls to −70, b's latest is still −70: a tie stays with a (first by name).
        #expect(rows(.raw) == ["0.00 a", "10.01 b"])
        // 10.50: a's second is −70, b's is the mean of −70 and −50.
        #expect(rows(.mean1s) == ["0.00 a", "10.50 b"])
        // b has led since 10.50; it is taken at the first advert a second later.
        #expect(rows(.held1s) == ["0.00 a", "11.50 b"])
        // Two adverts 4 dB above every other room's of the last second: a at 0.50 (its first two),
        // b at 10.51 (a's −50 of 9.50 has left the second by then).
        #expect(rows(.pair) == ["0.50 a", "10.51 b"])
    }
}

/// Times as the assertions spell them.
private enum ReplayTime {
    static func text(_ seconds: Double) -> String {
        let hundredths = Int((seconds * 100).rounded())
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    }
}
