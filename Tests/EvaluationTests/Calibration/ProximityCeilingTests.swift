import BeaconCore
import Foundation
@testable import Evaluation
import Testing

/// The fourth round on issue 39: an upper quantile, per-receiver offsets, and the ceilings.
struct ProximityCeilingTests {
    /// P1 -60, n 2, one sample a second: -60 dBm reads 1 m, -69.5 dBm 3 m, -80 dBm 10 m.
    func series(_ rssi: [Double], at distance: Double, receiver: String = "", group: String = "g",
                measuredPower: Double = -60) -> ProximitySeries {
        ProximitySeries(name: "s", group: group, receiver: receiver, times: rssi.indices.map(Double.init), rssi: rssi,
                        trueDistances: Array(repeating: distance, count: rssi.count), measuredPower: measuredPower, exponent: 2)
    }

    @Test func anUpperQuantileReadsPastFadesThatPullTheMeanAndTheMedianFar() {
        // A beacon 1.3 m away, half its samples faded by 18 dB: the mean (-71) and the median read
        // 3.5 m, far; the 75th percentile (-62) reads 1.26 m, near.
        let faded = series((0..<20).map { $0 % 2 == 0 ? -62 : -80 }, at: 1.3)
        func last(_ statistic: WindowCandidate.Statistic) -> Proximity? {
            ProximityMethod.window(.init(statistic: statistic, window: 20, hysteresis: 0, settle: 0)).classes(faded).last
        }
        #expect(last(.median) == .far)
        #expect(last(.trimmedMean) == .far)
        #expect(last(.quantile(0.75)) == .near)
    }

    @Test func theCeilingsReadTheTrueDistanceButOnlyWhatTheSamplesAllow() {
        // Every sample reads 0.40 m at a true 1.3 m: no value within the window reads near, so the
        // window-range ceiling is immediate too, as is the long-run mean.
        let close = series(Array(repeating: -52, count: 20), at: 1.3)
        #expect(ProximityMethod.oracle(.windowRange(window: 20)).classes(close).last == .immediate)
        #expect(ProximityMethod.oracle(.longRunMean).classes(close).last == .immediate)
        // Half the samples read 1.26 m: once one is in the window its range reaches near; the
        // long-run mean (-57, 0.71 m) is near from the start.
        let mixed = series((0..<20).map { $0 % 2 == 0 ? -52 : -62 }, at: 1.3)
        #expect(ProximityMethod.oracle(.windowRange(window: 20)).classes(mixed).first == .immediate)
        #expect(ProximityMethod.oracle(.windowRange(window: 20)).classes(mixed).dropFirst().allSatisfy { $0 == .near })
        #expect(ProximityMethod.oracle(.longRunMean).classes(mixed).allSatisfy { $0 == .near })
        // The oracle's pick per series is at least as right as every method it picks from.
        let far = series(Array(repeating: -80, count: 20) + [-55], at: 10)
        let methods: [ProximityMethod] = [.sample, .runningMean]
        let best = ProximityScoring.score(ProximityScoring.bestPerSeries([mixed, far], methods: methods), name: "best")
        for method in methods {
            #expect(best.accuracy >= ProximityScoring.score([mixed, far], method: method, name: "m").accuracy)
        }
    }

    @Test func perReceiverOffsetsAreFittedWithoutTheHeldOutPositionAndAddedToP1() {
        // Receiver "b" hears everything 5 dB stronger than "a"; n 2 at three positions.
        var all: [ProximitySeries] = []
        for (position, d) in [("p1", 1.0), ("p2", 4.0), ("p3", 10.0)] {
            for (receiver, p1) in [("a", -60.0), ("b", -55.0)] {
                let rssi = p1 - 20 * log10(d)
                all.append(series(Array(repeating: rssi, count: 10), at: d, receiver: receiver, group: position, measuredPower: .nan))
            }
        }
        let pooled = ProximityScoring.leaveOneGroupOut(all)
        let offsets = ProximityScoring.leaveOneGroupOut(all, perReceiverOffsets: true)
        for s in pooled { #expect(abs(s.measuredPower - -57.5) < 1e-9) }
        for s in offsets {
            #expect(abs(s.exponent - 2) < 1e-9)
            #expect(abs(s.measuredPower - (s.receiver == "a" ? -60 : -55)) < 1e-9)
        }
    }
}
