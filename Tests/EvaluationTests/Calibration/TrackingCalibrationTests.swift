import Foundation
import Testing
import TestSupport
import BeaconCore
@testable import Evaluation

/// Tests on the recordings in data/: they fail (not skip) when it is missing.
@Suite struct TrackingCalibrationTests {
    @Test func filterOnARealStaticSeriesIsFarCalmerThanTheRawSignal() throws {
        // Receiver sensor10, beacon 9.65 m away for 30 minutes: raw std 4.11 dB (DISTANCES.csv).
        let series = TrackingCalibration.parseStaticSeries(try RecordedData.text("static-rssi/sensor10_0.19_0.28_1.85.mbd"))
        #expect(series.count == 3424)
        let figures = try #require(TrackingCalibration.staticFilterFigures([series], filter: .default).first)
        #expect(abs(figures.rawStd - 4.11) < 0.01)
        #expect(figures.sigma < figures.rawStd / 2, "σ \(figures.sigma) vs raw std \(figures.rawStd)")
        #expect(figures.rmsError < figures.rawStd / 2, "error vs mean \(figures.rmsError) vs raw std \(figures.rawStd)")
    }

    @Test func parsersReadTheRecordedFormats() throws {
        let distances = TrackingCalibration.parseStaticDistances(try RecordedData.text("static-rssi/DISTANCES.csv"))
        #expect(distances.count == 60)
        #expect(distances.first?.file == "sensor10_0.19_0.28_1.85.mbd")
        #expect(distances.first?.receiver == "sensor10")
        #expect(distances.first?.distance == 9.651)
        #expect(TrackingCalibration.parseDateTime("2021-01-07 11:23:40") == 1_610_018_620)
        #expect(TrackingCalibration.parseDateTime("2021-13-07 11:23:40") == nil)
        #expect(TrackingCalibration.parseDateTime("garbage") == nil)
        let herald = TrackingCalibration.parseHerald("time,rssi,distance\n2021-01-07 11:23:40,-63.0,10\nbad line\n")
        #expect(herald.times == [1_610_018_620] && herald.rssi == [-63] && herald.distances == [0.1])
        let trace = TrackingCalibration.parseTraceSeries(
            "time,node,room,beacon,rssi,measuredPower\n0.0,a,r,b,-80,\n0.5,c,r,b,-70,\n1.0,a,r,b,-81,-59\n")
        #expect(trace == [RSSISeries(times: [0, 1], rssi: [-80, -81]), RSSISeries(times: [0.5], rssi: [-70])])
    }

    @Test func pathLossFitRecoversAKnownModel() {
        // Two receivers, 6 dB apart, n = 2.5, P₁ = −60.
        let points = [1.0, 2, 4, 8].flatMap { d in
            [PathLossPoint(receiver: "a", distance: d, meanRSSI: -57 - 25 * log10(d)),
             PathLossPoint(receiver: "b", distance: d * 1.5, meanRSSI: -63 - 25 * log10(d * 1.5))]
        }
        let fit = TrackingCalibration.fitPathLoss(points, perReceiverOffsets: true)
        #expect(abs(fit.exponent - 2.5) < 1e-9)
        #expect(abs(fit.measuredPower + 60) < 1e-9)
        #expect(abs(fit.offsets["a"]! - 3) < 1e-9 && abs(fit.offsets["b"]! + 3) < 1e-9)
        #expect(fit.residualStd < 1e-9)
    }

    /// The defaults in code are exactly what the calibration measures on the recorded data.
    @Test func defaultsAreWhatTheDataSays() async throws {
        let distances = TrackingCalibration.parseStaticDistances(try RecordedData.text("static-rssi/DISTANCES.csv"))
        let statics = try distances.map {
            (series: TrackingCalibration.parseStaticSeries(try RecordedData.text("static-rssi/" + $0.file)),
             receiver: $0.receiver, distance: $0.distance)
        }
        let traces = try FileManager.default.contentsOfDirectory(atPath: try RecordedData.path("traces"))
            .filter { $0.hasSuffix(".trace.csv") }.sorted()
        let walking = try traces.flatMap { TrackingCalibration.parseTraceSeries(try RecordedData.text("traces/" + $0)) }
        #expect(statics.count == 60 && walking.count == 108)
        // Herald is only the check of step 7; it does not move the recommended parameters.
        // Seconds of computation: on a thread of its own, so the suite's waiting tests keep running.
        let report = try await onOwnThread { TrackingCalibration.run(.init(staticSeries: statics, walkingSeries: walking, herald: [])) }
        #expect(report.recommended == TrackingParameters.default)
        // Issue 6: a still beacon publishes at most 2 measurements per minute (median placement),
        // heartbeat included; ESPresense's 5 s heartbeat alone would be 12.
        let atRest = try #require(report.publish.atRest)
        #expect(atRest.medianPerMinute <= 2)
        #expect(atRest.medianPerMinute >= 60 / report.publish.heartbeat)
        #expect(report.filter.staticMedianSigma < report.filter.staticMedianRawStd / 2)
        #expect(report.filter.staticMedianRMSErrorVsMean < report.filter.staticMedianRawStd / 2)
        // Issue 14: at rest the node's classes are at least as right as the Android Beacon
        // Library's 20 s trimmed mean, each receiver judged with a calibration fitted on the others.
        let rest = report.proximityAtRest
        #expect(rest.heldOutReceivers == 12 && rest.series == 60)
        #expect(rest.node.balancedAccuracy >= rest.trimmedMean20s.balancedAccuracy,
                "node \(rest.node) vs trimmed mean \(rest.trimmedMean20s)")
        #expect(rest.node.farRecall >= rest.trimmedMean20s.farRecall)
        #expect(rest.node.nearRecall >= rest.trimmedMean20s.nearRecall)
    }

    @Test func trimmedMeanDropsTheExtremesOfTheLastWindowAsTheAndroidBeaconLibrary() {
        var mean = TrimmedMeanRSSI(window: 20)
        #expect(mean.update(rssi: .nan, at: 0).isNaN)
        // Two samples: nothing is dropped.
        #expect(mean.update(rssi: -70, at: 0) == -70)
        #expect(mean.update(rssi: -80, at: 1) == -75)
        // Three to nine: count/10 + 1 = 1 off each end, so of three only the middle one counts.
        #expect(mean.update(rssi: -60, at: 2) == -70)
        // Ten samples, a deep fade and a spike among them: 10/10 + 1 = 2 off each end.
        var window = TrimmedMeanRSSI(window: 20)
        var last = 0.0
        for (i, rssi) in [-70.0, -71, -95, -70, -70, -50, -70, -69, -70, -70].enumerated() {
            last = window.update(rssi: rssi, at: Double(i))
        }
        #expect(last == -70)
        // A sample leaves the window when it is 20 s old: at 29 s only those from 10 s on count.
        #expect(window.update(rssi: -60, at: 29) == -60)
        // A non-finite sample changes nothing.
        #expect(window.update(rssi: .infinity, at: 30) == -60)
    }

    @Test func iqrFencedMeanDropsWhatLiesBeyondTukeysFences() {
        var filter = IQRFencedMeanRSSI()
        #expect(filter.update(rssi: .nan, at: 0).isNaN)
        // Quartiles -71 and -69.75: -95 lies far beyond q1 - 1.5 IQR and is left out.
        var last = 0.0
        for (i, rssi) in [-70.0, -71, -69, -70, -95, -71, -69, -70].enumerated() {
            last = filter.update(rssi: rssi, at: Double(i) * 1000)
        }
        #expect(last == -70)
        // Readings older than 15 s leave.
        #expect(filter.update(rssi: -50, at: 30_000) == -50)
    }

    @Test func proximityIsScoredByBalancedAccuracyOutsideTheBoundariesAndTheFirstSeconds() {
        // Rows near a boundary (within 15 %) and in the first 5 s are not scored.
        #expect(!ProximityScoring.isScored(distance: 1, elapsed: 4.9))
        #expect(ProximityScoring.isScored(distance: 1, elapsed: 5))
        #expect(!ProximityScoring.isScored(distance: 3.4, elapsed: 60))
        #expect(!ProximityScoring.isScored(distance: 0.55, elapsed: 60))
        #expect(ProximityScoring.isScored(distance: 3.5, elapsed: 60))
        // P1 -60, n 2: -60 dBm reads 1 m (near), -80 dBm 10 m (far). One sample a second.
        func series(_ rssi: [Double], at distance: Double) -> ProximitySeries {
            ProximitySeries(name: "s", group: "g", times: rssi.indices.map(Double.init), rssi: rssi,
                            trueDistances: Array(repeating: distance, count: rssi.count), measuredPower: -60, exponent: 2)
        }
        let near = series(Array(repeating: -60, count: 20), at: 1)
        // Far for 20 s, then one deep fade that reads near to a sample alone.
        let far = series(Array(repeating: -80, count: 20) + [-55], at: 10)
        let alone = ProximityScoring.score([near, far], method: .sample, name: "sample")
        // 15 near rows all right; 16 far rows, one wrong: recalls 1 and 15/16, balanced their mean.
        #expect(alone.scored == 31)
        let farRecall = 15.0 / 16
        #expect(alone.nearRecall == 1)
        #expect(alone.farRecall == farRecall)
        #expect(alone.immediateRecall == nil)
        #expect(alone.balancedAccuracy == (1 + farRecall) / 2)
        // The running mean and the node ride the fade out.
        for method in [ProximityMethod.runningMean, .iqrFencedMean, .node(.default)] {
            #expect(ProximityScoring.score([near, far], method: method, name: "m").balancedAccuracy == 1)
        }
    }

    @Test func proximityCandidatesRideOutAFadeAndAPriorMovesTheClassOutward() {
        // P1 -60, n 2, one sample a second: -60 dBm reads 1 m, -80 dBm 10 m, then one deep fade.
        func series(_ rssi: [Double], at distance: Double, residual: Double = .nan) -> ProximitySeries {
            ProximitySeries(name: "s", group: "g", times: rssi.indices.map(Double.init), rssi: rssi,
                            trueDistances: Array(repeating: distance, count: rssi.count), measuredPower: -60, exponent: 2,
                            calibrationResidual: residual)
        }
        let near = series(Array(repeating: -60, count: 20), at: 1)
        let far = series(Array(repeating: -80, count: 20) + [-55], at: 10)
        let filter = RSSIKalmanFilter.Parameters(processNoise: 0.1, measurementNoise: 8, restartAfter: 10)
        let candidates: [ProximityMethod] = [
            .classMass(.init(filter: filter, withCalibrationResidual: false, priorExponent: 0, margin: 0.2, settle: 10)),
            .window(.init(statistic: .median, window: 20, hysteresis: 0.2, settle: 10)),
            .window(.init(statistic: .trimmedMean, window: 20, hysteresis: 0.2, settle: 10)),
            .window(.init(statistic: .iqrFencedMean, window: 20, hysteresis: 0.2, settle: 10)),
            .window(.init(statistic: .iqrFencedMedian, window: 20, hysteresis: 0.2, settle: 10)),
            .window(.init(statistic: .meanDistance, window: 20, hysteresis: 0.2, settle: 10)),
            .window(.init(statistic: .meanLinearPower, window: 20, hysteresis: 0.2, settle: 10)),
            .share(.init(window: 20, share: 0.5, hysteresis: 0.1, settle: 10)),
            .decibelHysteresis(.init(filter: filter, hysteresis: 1, settle: 10)),
        ]
        for method in candidates {
            #expect(ProximityScoring.score([near, far], method: method, name: "m").balancedAccuracy == 1)
        }
        // -52 dBm reads 0.40 m: immediate without a prior, however wide the belief (σ 5 dB).
        let close = series(Array(repeating: -52, count: 20), at: 1.3, residual: 5)
        func last(_ k: Double) -> Proximity? {
            ProximityMethod.classMass(.init(filter: filter, withCalibrationResidual: true, priorExponent: k, margin: 0, settle: 0))
                .classes(close).last
        }
        #expect(last(0) == .immediate)
        // A prior uniform in distance shifts ln d by s² (s = 5 ln10 / 20 = 0.58, ×1.4): 0.56 m, near.
        #expect(last(1) == .near)
        // The means weigh the window differently: 19 samples at -60 dBm (1 m) and one at -40 dBm
        // (0.1 m). In dB the mean reads 0.89 m, in distance 0.96 m, in linear power 0.41 m.
        let spike = series(Array(repeating: -60, count: 19) + [-40], at: 1)
        func lastOf(_ statistic: WindowCandidate.Statistic) -> Proximity? {
            ProximityMethod.window(.init(statistic: statistic, window: 20, hysteresis: 0, settle: 0)).classes(spike).last
        }
        #expect(lastOf(.meanDistance) == .near)
        #expect(lastOf(.meanLinearPower) == .immediate)
        // A share of 0.3 calls far once a third of the window reads beyond 3 m; 0.5 (the median) does not.
        let split = series(Array(repeating: -60, count: 13) + Array(repeating: -80, count: 7), at: 1)
        func lastShare(_ share: Double) -> Proximity? {
            ProximityMethod.share(.init(window: 20, share: share, hysteresis: 0, settle: 0)).classes(split).last
        }
        #expect(lastShare(0.3) == .far)
        #expect(lastShare(0.5) == .near)
        // Hysteresis in dB: 3 m reads -69.5 dBm; after 1 m the steady filter settles at about
        // -69.9 dBm: far without a margin, still near with 1 dB.
        let edge = series(Array(repeating: -60, count: 10) + Array(repeating: -70, count: 40), at: 3.2)
        func lastDecibel(_ h: Double) -> Proximity? {
            ProximityMethod.decibelHysteresis(.init(filter: filter, hysteresis: h, settle: 0)).classes(edge).last
        }
        #expect(lastDecibel(0) == .far)
        #expect(lastDecibel(1) == .near)
        // The calibration's lean: -69 dBm reads 2.8 m (near); taken 1 dB weaker, 3.2 m (far). With
        // no shift it is the node itself.
        let lean = series(Array(repeating: -69, count: 20), at: 2.8)
        #expect(ProximityMethod.nodeReadingWeaker(.default, decibels: 0).classes(lean) == ProximityMethod.node(.default).classes(lean))
        #expect(ProximityMethod.nodeReadingWeaker(.default, decibels: 0).classes(lean).last == .near)
        #expect(ProximityMethod.nodeReadingWeaker(.default, decibels: 1).classes(lean).last == .far)
        // Masses are a distribution, cut at the prior's end.
        let mass = ClassMassCandidate.masses(mean: log(1.0), sd: 0.5, maxDistance: 30, thresholds: .default)
        #expect(abs(mass.reduce(0, +) - 1) < 1e-12)
        #expect(mass[1] > mass[0] && mass[1] > mass[2])
    }
}
