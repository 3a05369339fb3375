/// The whole calibration: each figure is chosen by a fixed rule from the data, in this order
/// (later steps use earlier choices). Deterministic: fixed grids, no randomness.
extension TrackingCalibration {
    /// The recorded data the calibration reads, already parsed.
    public struct Inputs: Sendable {
        /// static-rssi series with their receiver and true distance.
        public var staticSeries: [(series: RSSISeries, receiver: String, distance: Double)]
        /// One series per (node, beacon) of the walking traces.
        public var walkingSeries: [RSSISeries]
        /// Herald phone-to-phone files (name, times, rssi, true distances in metres).
        public var herald: [(name: String, times: [Double], rssi: [Double], distances: [Double])]

        public init(staticSeries: [(series: RSSISeries, receiver: String, distance: Double)], walkingSeries: [RSSISeries],
                    herald: [(name: String, times: [Double], rssi: [Double], distances: [Double])]) {
            self.staticSeries = staticSeries
            self.walkingSeries = walkingSeries
            self.herald = herald
        }
    }

    /// q candidates, dB²/s.
    public static let processNoiseGrid: [Double] = [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5]
    /// Hysteresis candidates: 0, 0.05, …, 0.6.
    public static let hysteresisGrid: [Double] = (0...12).map { Double($0) * 0.05 }
    /// Distance-step candidates: 0.05, 0.1, …, 1.
    public static let distanceStepGrid: [Double] = (1...20).map { Double($0) * 0.05 }
    /// A beacon parked on a boundary may change class this often per hour (median series).
    public static let boundaryFlapBudgetPerHour = 4.0
    /// A still beacon may publish this many times per minute beyond its heartbeat (median series).
    public static let stillPublishBudgetPerMinute = 1.0
    /// Heartbeat: not measurable from data; ESPresense's 5 s, so `mqtt_room`'s 5 s timeout holds.
    public static let chosenHeartbeat = 5.0

    public static func run(_ inputs: Inputs) -> CalibrationReport {
        let statics = inputs.staticSeries.map(\.series)

        // 1. r: the spread of a beacon that does not move.
        let staticVariance = measurementNoise(statics)
        let r = staticVariance.rounded()

        // 2. Silence: longer than any gap a still, heard beacon showed; the filter restarts after twice that.
        let staticGaps = gaps(statics)
        let maxGap = staticGaps.max() ?? 0
        let unknownAfter = max(1, maxGap.rounded(.up))
        let restartAfter = 2 * unknownAfter

        // 3. q: best one-step-ahead prediction of a moving beacon (static data alone prefers q → 0).
        func grid(_ series: [RSSISeries]) -> [CalibrationReport.GridPoint] {
            processNoiseGrid.map { q in
                .init(value: q, figure: oneStepRMSE(series, filter: .init(processNoise: q, measurementNoise: r, restartAfter: restartAfter)))
            }
        }
        let walkingGrid = grid(inputs.walkingSeries)
        let staticGrid = grid(statics)
        let q = walkingGrid.min { $0.figure < $1.figure }?.value ?? RSSIKalmanFilter.Parameters.default.processNoise
        let filter = RSSIKalmanFilter.Parameters(processNoise: q, measurementNoise: r, restartAfter: restartAfter)
        let staticFigures = staticFilterFigures(statics, filter: filter)

        // 4. Path loss: fit over the static series' means, one offset per receiver.
        let points = inputs.staticSeries.map {
            PathLossPoint(receiver: $0.receiver, distance: $0.distance, meanRSSI: mean(Array($0.series.rssi.prefix($0.series.count))))
        }
        let plain = fitPathLoss(points, perReceiverOffsets: false)
        let withOffsets = fitPathLoss(points, perReceiverOffsets: true)
        let n = (withOffsets.exponent * 10).rounded() / 10
        let p1 = withOffsets.measuredPower.rounded()
        let distance = DistanceModel(pathLossExponent: n, rssiOffset: 0, defaultMeasuredPower: p1)

        // 5. Hysteresis: smallest h that keeps a beacon parked on a boundary within the flap budget.
        var parameters = TrackingParameters(filter: filter, distance: distance)
        let distances = statics.map { filteredDistances($0, parameters: parameters) }
        let hGrid: [CalibrationReport.GridPoint] = hysteresisGrid.map { h in
            .init(value: h, figure: median(statics.indices.map {
                boundaryFlapsPerHour(statics[$0], distances: distances[$0], hysteresis: h)
            }))
        }
        let h = hGrid.first { $0.figure <= boundaryFlapBudgetPerHour }?.value ?? hysteresisGrid.last!
        parameters.proximity = .init(immediateBelow: 0.5, nearBelow: 3, hysteresis: round2(h), unknownAfter: unknownAfter)

        // 6. Distance step: smallest step that keeps a still beacon near its heartbeat rate.
        let stepGrid: [CalibrationReport.GridPoint] = distanceStepGrid.map { step in
            let publish = MeasurementPublishPolicy.Parameters(distanceStep: step, heartbeat: chosenHeartbeat, minimumInterval: 1)
            return .init(value: step, figure: median(statics.indices.map {
                stillPublishesPerMinute(statics[$0], distances: distances[$0], publish: publish)
            }))
        }
        let budget = 60 / chosenHeartbeat + stillPublishBudgetPerMinute
        let step = stepGrid.first { $0.figure <= budget }?.value ?? distanceStepGrid.last!
        parameters.publish = .init(distanceStep: round2(step), heartbeat: chosenHeartbeat, minimumInterval: 1)

        // 7. Check: immediate/near/far on the Herald rail with the chosen parameters.
        let herald = evaluateHerald(inputs.herald, parameters: parameters)

        return CalibrationReport(
            filter: .init(
                staticSeries: statics.count, staticSamples: statics.reduce(0) { $0 + $1.count },
                staticMedianVariance: staticVariance, measurementNoise: r,
                walkingSeries: inputs.walkingSeries.count, walkingSamples: inputs.walkingSeries.reduce(0) { $0 + $1.count },
                processNoiseGridWalking: walkingGrid, processNoiseGridStatic: staticGrid, processNoise: q,
                staticGapMedian: median(staticGaps), staticGapP999: quantile(staticGaps, 0.999), staticGapMax: maxGap,
                walkingGapMax: gaps(inputs.walkingSeries).max() ?? 0,
                unknownAfter: unknownAfter, restartAfter: restartAfter,
                staticMedianSigma: median(staticFigures.map(\.sigma)),
                staticMedianRMSErrorVsMean: median(staticFigures.map(\.rmsError)),
                staticMedianRawStd: median(staticFigures.map(\.rawStd))),
            distance: .init(
                series: points.count,
                plainExponent: plain.exponent, plainMeasuredPower: plain.measuredPower, plainResidualStd: plain.residualStd,
                offsetsExponent: withOffsets.exponent, offsetsMeasuredPower: withOffsets.measuredPower,
                offsetsResidualStd: withOffsets.residualStd, receiverOffsets: withOffsets.offsets,
                pathLossExponent: n, defaultMeasuredPower: p1),
            proximity: .init(hysteresisGrid: hGrid, hysteresis: parameters.proximity.hysteresis,
                             distanceStepGrid: stepGrid, distanceStep: parameters.publish.distanceStep,
                             heartbeat: chosenHeartbeat),
            herald: herald,
            recommended: parameters)
    }

    static func round2(_ x: Double) -> Double { (x * 100).rounded() / 100 }

    static func evaluateHerald(
        _ files: [(name: String, times: [Double], rssi: [Double], distances: [Double])], parameters chosen: TrackingParameters
    ) -> CalibrationReport.Herald {
        // The phones advertise every 2–5 s, so silence would score as `unknown`; this check is
        // about the distance thresholds, so silence is switched off here.
        var parameters = chosen
        parameters.proximity.unknownAfter = .infinity
        var exponent27 = parameters
        exponent27.distance.pathLossExponent = 2.7
        var pooled: [Proximity: [Proximity: Int]] = [:]
        var pooled27Confusion: [Proximity: [Proximity: Int]] = [:]
        var pooledRaw = (0, 0), pooled27 = (0, 0)
        var reports: [CalibrationReport.HeraldFile] = []
        func hits(_ c: [Proximity: [Proximity: Int]]) -> (Int, Int) {
            let total = c.values.reduce(0) { $0 + $1.values.reduce(0, +) }
            return (c.reduce(0) { $0 + ($1.value[$1.key] ?? 0) }, total)
        }
        for file in files {
            let oneMetre = zip(file.rssi, file.distances).filter { $0.1 >= 0.9 && $0.1 <= 1.1 }.map(\.0)
            let p1 = Int(mean(oneMetre).rounded())
            let c = proximityConfusion(times: file.times, rssi: file.rssi, trueDistances: file.distances,
                                       measuredPower: p1, parameters: parameters)
            let raw = proximityConfusion(times: file.times, rssi: file.rssi, trueDistances: file.distances,
                                         measuredPower: p1, parameters: parameters, filtered: false)
            let c27 = proximityConfusion(times: file.times, rssi: file.rssi, trueDistances: file.distances,
                                         measuredPower: p1, parameters: exponent27)
            for (truth, row) in c { for (estimate, k) in row { pooled[truth, default: [:]][estimate, default: 0] += k } }
            for (truth, row) in c27 { for (estimate, k) in row { pooled27Confusion[truth, default: [:]][estimate, default: 0] += k } }
            let (a, t) = hits(c), (ar, tr) = hits(raw), (a27, t27) = hits(c27)
            pooledRaw = (pooledRaw.0 + ar, pooledRaw.1 + tr)
            pooled27 = (pooled27.0 + a27, pooled27.1 + t27)
            reports.append(.init(name: file.name, samples: t, measuredPower: p1, accuracy: ratio(a, t),
                                 accuracyUnfiltered: ratio(ar, tr), accuracyExponent27: ratio(a27, t27)))
        }
        let (a, t) = hits(pooled)
        func recall(_ p: Proximity, in confusion: [Proximity: [Proximity: Int]]) -> Double {
            let row = confusion[p] ?? [:]
            return ratio(row[p] ?? 0, row.values.reduce(0, +))
        }
        func balanced(_ confusion: [Proximity: [Proximity: Int]]) -> Double {
            let classes = [Proximity.immediate, .near, .far].filter { confusion[$0] != nil }
            return mean(classes.map { recall($0, in: confusion) })
        }
        var confusion: [String: [String: Int]] = [:]
        for (truth, row) in pooled { for (estimate, k) in row { confusion[truth.rawValue, default: [:]][estimate.rawValue] = k } }
        return .init(files: reports, pooledAccuracy: ratio(a, t), pooledAccuracyUnfiltered: ratio(pooledRaw.0, pooledRaw.1),
                     pooledAccuracyExponent27: ratio(pooled27.0, pooled27.1),
                     pooledBalancedAccuracy: balanced(pooled), pooledBalancedAccuracyExponent27: balanced(pooled27Confusion),
                     confusion: confusion,
                     immediateRecall: recall(.immediate, in: pooled), nearRecall: recall(.near, in: pooled))
    }

    static func ratio(_ a: Int, _ b: Int) -> Double { b > 0 ? Double(a) / Double(b) : .nan }
}
