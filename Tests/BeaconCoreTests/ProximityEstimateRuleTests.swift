import Foundation
import Testing
@testable import BeaconCore

/// The steady estimate compares `log10` of its distance with the boundaries' (no `pow`): it must
/// give the class the rule in metres gives, on every side of every boundary, down to the last bit.
@Suite struct ProximityEstimateRuleTests {
    static let models = [
        DistanceModel.default,
        DistanceModel(pathLossExponent: 2.7, rssiOffset: -3, defaultMeasuredPower: -59),
        DistanceModel(pathLossExponent: 2, rssiOffset: 0.5, defaultMeasuredPower: -77),
    ]
    static let powers: [Double?] = [nil, -59, -72, -80.5]
    static let previous: [Proximity] = [.unknown, .immediate, .near, .far]

    func check(_ thresholds: ProximityClassifier.Parameters, hysteresis: Double) {
        let rule = ProximityEstimate.Rule(thresholds: thresholds, hysteresis: hysteresis)
        var inMetres = thresholds
        inMetres.hysteresis = hysteresis
        let b = rule.metres
        for model in Self.models {
            for power in Self.powers {
                // A sweep, and each boundary's own RSSI with its neighbours a few bits away.
                var rssis = stride(from: -140.0, through: 10, by: 0.01).map { $0 }
                for boundary in [b.immediate, b.near, b.immediateOut, b.nearOut, b.immediateIn, b.nearIn, 1000] {
                    let p1 = (power ?? model.defaultMeasuredPower) + model.rssiOffset
                    var r = p1 - 10 * model.pathLossExponent * log10(boundary)
                    for _ in 0..<4 { r = r.nextDown }
                    for _ in 0..<9 { rssis.append(r); r = r.nextUp }
                }
                for rssi in rssis {
                    let d = model.distance(rssi: rssi, measuredPower: power)
                    let position = rule.position(rssi: rssi, measuredPower: power, model)
                    for from in Self.previous {
                        let expected = ProximityClassifier.next(from: from, distance: d, parameters: inMetres)
                        let got = position.map { rule.next(from: from, at: $0) }
                        if got != expected {
                            Issue.record("rssi \(rssi) P₁ \(String(describing: power)) from \(from): \(String(describing: got)), metres say \(expected)")
                            return
                        }
                    }
                }
            }
        }
    }

    @Test func sameClassAsTheRuleInMetres() {
        check(.default, hysteresis: ProximityEstimate.Parameters.default.hysteresis)
        check(.default, hysteresis: 0)
        check(ProximityClassifier.Parameters(immediateBelow: 0.7, nearBelow: 4.5, hysteresis: 0.3, unknownAfter: 5), hysteresis: 0.9)
    }

    @Test func thresholdsWithoutALogFallBackToMetres() {
        let zero = ProximityEstimate.Rule(thresholds: .init(immediateBelow: 0, nearBelow: 3, hysteresis: 0, unknownAfter: 5), hysteresis: 0)
        #expect(zero.log10Metres == nil)
        check(.init(immediateBelow: 0, nearBelow: 3, hysteresis: 0, unknownAfter: 5), hysteresis: 0.2)
        check(.init(immediateBelow: 0.5, nearBelow: 2_000, hysteresis: 0, unknownAfter: 5), hysteresis: 0.2)
    }
}
