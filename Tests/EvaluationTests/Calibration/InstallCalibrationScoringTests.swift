import BeaconCore
import Foundation
@testable import Evaluation
import Testing

/// Issue 55's proximity row: each receiver's offset found as `presence-agent calibrate` finds it,
/// from its own series nearest to 1 m, the scored position left out.
struct InstallCalibrationScoringTests {
    /// Receiver "b" hears everything 5 dB stronger than "a"; n 2; positions at 1, 4 and 10 m; a
    /// minute at one sample a second each. "a"'s first 30 s at 1 m swing ±15 dB around its level.
    func site() -> [ProximitySeries] {
        var all: [ProximitySeries] = []
        for (position, d) in [("p1", 1.0), ("p2", 4.0), ("p3", 10.0)] {
            for (receiver, p1) in [("a", -60.0), ("b", -55.0)] {
                let level = p1 - 20 * log10(d)
                let rssi = (0..<60).map { k in
                    receiver == "a" && position == "p1" && k < 30 ? level + (k % 2 == 0 ? 15 : -15) : level + (k % 2 == 0 ? 0.5 : -0.5)
                }
                all.append(ProximitySeries(name: "\(receiver)_\(position)", group: position, receiver: receiver,
                                           times: (0..<60).map(Double.init), rssi: rssi, trueDistances: Array(repeating: d, count: 60)))
            }
        }
        return all
    }

    @Test func eachReceiverGetsItsOwnLevelFromItsNearestOtherPosition() {
        let (series, runs) = ProximityScoring.leaveOneGroupOutInstallCalibrated(site())
        #expect(series.count == 6)
        for s in series {
            #expect(abs(s.exponent - 2) < 1e-9)
            #expect(abs(s.measuredPower - (s.receiver == "a" ? -60 : -55)) < 1e-9, "\(s.name)")
        }
        // Held out at 1 m, each receiver calibrates at 4 m; otherwise at 1 m.
        #expect(runs.filter { $0.heldOut == "p1" }.map(\.calibratedOn) == ["a_p2", "b_p2"])
        #expect(runs.filter { $0.heldOut == "p3" }.map(\.calibratedOn) == ["a_p1", "b_p1"])
        // "a" at 1 m: the first 30 s are refused as too noisy and the next 30 s taken.
        #expect(runs.filter { $0.calibratedOn == "a_p1" }.map(\.refusedRuns) == [1, 1])
        #expect(runs.filter { $0.calibratedOn != "a_p1" }.allSatisfy { $0.refusedRuns == 0 })
    }
}
