#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BeaconCore

/// A proximity class chosen from the probability mass of each class (tried beside the node's
/// class and not kept): the steady Kalman filter's estimate and variance, optionally widened by the
/// calibration's own residual, give a normal belief over ln d; a prior density ∝ d^(k−1) (k 0:
/// uniform in ln d, no prior; 1: uniform in distance; 2: uniform on a floor around the receiver),
/// cut at `maxDistance`, turns it into a posterior N(ln d̂ + k·s², s²); the class with the largest
/// mass wins. Hysteresis is in probability: the class changes only when another one's mass
/// exceeds the current one's by `margin`, and the new class must hold `settle` seconds.
public struct ClassMassCandidate: Sendable, Hashable {
    /// The steady filter's noise model.
    public var filter: RSSIKalmanFilter.Parameters
    /// Whether the calibration's residual (dB, the path-loss fit's) widens the filter's σ.
    public var withCalibrationResidual: Bool
    /// k of the prior density ∝ d^(k−1).
    public var priorExponent: Double
    /// Probability by which another class must beat the current one.
    public var margin: Double
    /// Seconds a new class must hold before it is taken.
    public var settle: Double
    /// The prior is cut here, metres.
    public var maxDistance = 30.0

    /// Creates a candidate.
    public init(filter: RSSIKalmanFilter.Parameters, withCalibrationResidual: Bool, priorExponent: Double, margin: Double, settle: Double) {
        self.filter = filter
        self.withCalibrationResidual = withCalibrationResidual
        self.priorExponent = priorExponent
        self.margin = margin
        self.settle = settle
    }

    /// Immediate, near and far masses of a posterior N(`mean`, `sd`²) over ln d cut at `maxDistance`.
    static func masses(mean: Double, sd: Double, maxDistance: Double, thresholds: ProximityClassifier.Parameters) -> [Double] {
        func cdf(_ x: Double) -> Double { 0.5 * erfc(-(x - mean) / (sd * 2.0.squareRoot())) }
        let top = cdf(log(maxDistance))
        guard top > 0 else { return [0, 0, 1] }
        let a = min(cdf(log(thresholds.immediateBelow)), top), b = min(cdf(log(thresholds.nearBelow)), top)
        return [a / top, (b - a) / top, (top - b) / top]
    }

    func classes(_ series: ProximitySeries, thresholds: ProximityClassifier.Parameters) -> [Proximity] {
        var filter = RSSIKalmanFilter(parameters: filter)
        var hold = SettledClass(settle: settle, unknownAfter: thresholds.unknownAfter)
        let model = series.distanceModel
        let classes: [Proximity] = [.immediate, .near, .far]
        let residual = withCalibrationResidual && series.calibrationResidual.isFinite ? series.calibrationResidual : 0
        return (0..<series.count).map { i in
            let estimate = filter.update(rssi: series.rssi[i].rounded(), at: Instant(seconds: series.times[i]))
            let sigma = (estimate.sigma * estimate.sigma + residual * residual).squareRoot()
            let s = max(sigma * log(10) / (10 * series.exponent), 1e-6)
            let mean = log(model.distance(rssi: estimate.rssi, measuredPower: nil)) + priorExponent * s * s
            let mass = Self.masses(mean: mean, sd: s, maxDistance: maxDistance, thresholds: thresholds)
            let best = mass.indices.max { mass[$0] < mass[$1] } ?? 2
            return hold.update(at: series.times[i]) { current in
                guard let index = classes.firstIndex(of: current) else { return classes[best] }
                return mass[best] > mass[index] + margin ? classes[best] : current
            }
        }
    }
}

/// The class from a window statistic of the raw samples (tried and not kept): the
/// median, the Android Beacon Library's trimmed mean, an IQR-fenced mean or median, a mean in distance
/// or in linear power, an upper quantile of the last `window` seconds, read through the node's thresholds with a
/// hysteresis and settle time.
public struct WindowCandidate: Sendable, Hashable {
    /// Which statistic of the window.
    public enum Statistic: Sendable, Hashable {
        /// The median.
        case median
        /// `count/10 + 1` dropped from each end, the rest averaged (`TrimmedMeanRSSI`).
        case trimmedMean
        /// The mean within Tukey's 1.5 IQR fences (`IQRFencedMeanRSSI.medianIQR`) of the whole window.
        case iqrFencedMean
        /// The median of the samples within Tukey's 1.5 IQR fences.
        case iqrFencedMedian
        /// The mean of the samples' distances, not of their dB: a far sample weighs more.
        case meanDistance
        /// The mean of the samples' linear power (mW), read back in dBm: a strong sample weighs more.
        case meanLinearPower
        /// This quantile (0…1) of the window in dB, interpolated between samples: an upper one
        /// reads past fades, which only ever lower RSSI.
        case quantile(Double)
    }

    /// Which statistic of the window.
    public var statistic: Statistic
    /// Seconds of samples.
    public var window: Double
    /// As ``ProximityClassifier/Parameters-swift.struct/hysteresis``.
    public var hysteresis: Double
    /// Seconds a new class must hold before it is taken.
    public var settle: Double

    /// Creates a candidate.
    public init(statistic: Statistic, window: Double, hysteresis: Double, settle: Double) {
        self.statistic = statistic
        self.window = window
        self.hysteresis = hysteresis
        self.settle = settle
    }

    func classes(_ series: ProximitySeries, thresholds: ProximityClassifier.Parameters) -> [Proximity] {
        var trimmed = TrimmedMeanRSSI(window: window)
        var start = 0
        var hold = SettledClass(settle: settle, unknownAfter: thresholds.unknownAfter)
        var rule = thresholds
        rule.hysteresis = hysteresis
        let model = series.distanceModel
        return (0..<series.count).map { i in
            while series.times[i] - series.times[start] >= window { start += 1 }
            let samples = series.rssi[start...i]
            let distance: Double
            switch statistic {
            case .trimmedMean:
                distance = model.distance(rssi: trimmed.update(rssi: series.rssi[i], at: series.times[i]), measuredPower: nil)
            case .median:
                distance = model.distance(rssi: TrackingCalibration.median(Array(samples)), measuredPower: nil)
            case .iqrFencedMean:
                distance = model.distance(rssi: IQRFencedMeanRSSI.medianIQR(Array(samples)), measuredPower: nil)
            case .iqrFencedMedian:
                let kept = IQRFencedMeanRSSI.fenced(Array(samples)).kept
                distance = model.distance(rssi: TrackingCalibration.median(kept.isEmpty ? Array(samples) : kept), measuredPower: nil)
            case .meanDistance:
                distance = TrackingCalibration.mean(samples.map { model.distance(rssi: $0, measuredPower: nil) })
            case .meanLinearPower:
                let milliwatts = TrackingCalibration.mean(samples.map { pow(10, $0 / 10) })
                distance = model.distance(rssi: 10 * log10(milliwatts), measuredPower: nil)
            case .quantile(let p):
                distance = model.distance(rssi: TrackingCalibration.quantile(Array(samples), p), measuredPower: nil)
            }
            return hold.update(at: series.times[i]) { ProximityClassifier.next(from: $0, distance: distance, parameters: rule) }
        }
    }
}

/// The class from the share of the last `window` seconds' samples that read beyond each boundary
/// (tried and not kept): `far` when more than `share` of them read 3 m or more,
/// `immediate` when more than `share` read under 0.5 m, else `near`. Hysteresis is in share: the
/// current class is left when its share falls under `share − hysteresis`, another taken when its
/// share passes `share + hysteresis`; the new class must hold `settle` seconds. A share of 0.5 is
/// the window's median; below it leans to the outer classes.
public struct ShareCandidate: Sendable, Hashable {
    /// Seconds of samples.
    public var window: Double
    /// The share of samples beyond a boundary that calls the class beyond it.
    public var share: Double
    /// Share by which the call must pass `share` to change the class.
    public var hysteresis: Double
    /// Seconds a new class must hold before it is taken.
    public var settle: Double

    /// Creates a candidate.
    public init(window: Double, share: Double, hysteresis: Double, settle: Double) {
        self.window = window
        self.share = share
        self.hysteresis = hysteresis
        self.settle = settle
    }

    func classes(_ series: ProximitySeries, thresholds: ProximityClassifier.Parameters) -> [Proximity] {
        let model = series.distanceModel
        var hold = SettledClass(settle: settle, unknownAfter: thresholds.unknownAfter)
        var start = 0, far = 0, immediate = 0
        func counts(_ i: Int) -> (far: Int, immediate: Int) {
            let d = model.distance(rssi: series.rssi[i], measuredPower: nil)
            return (d >= thresholds.nearBelow ? 1 : 0, d < thresholds.immediateBelow ? 1 : 0)
        }
        return (0..<series.count).map { i in
            (far, immediate) = (far + counts(i).far, immediate + counts(i).immediate)
            while series.times[i] - series.times[start] >= window {
                (far, immediate) = (far - counts(start).far, immediate - counts(start).immediate)
                start += 1
            }
            let n = Double(i - start + 1)
            let farShare = Double(far) / n, immediateShare = Double(immediate) / n
            return hold.update(at: series.times[i]) { current in
                let farNeeds = current == .far ? share - hysteresis : current == .unknown ? share : share + hysteresis
                let immediateNeeds = current == .immediate ? share - hysteresis : current == .unknown ? share : share + hysteresis
                return farShare > farNeeds ? .far : immediateShare > immediateNeeds ? .immediate : .near
            }
        }
    }
}

/// The former steady estimate with its hysteresis in dB instead of a fraction of the distance
/// (tried and not kept): a class changes when the filtered RSSI crosses the RSSI of a
/// boundary by `hysteresis` dB, the same margin at 0.5 m and at 3 m and whatever the exponent;
/// the new class must hold `settle` seconds.
public struct DecibelHysteresisCandidate: Sendable, Hashable {
    /// The steady filter's noise model.
    public var filter: RSSIKalmanFilter.Parameters
    /// dB beyond a boundary's RSSI needed to leave a class.
    public var hysteresis: Double
    /// Seconds a new class must hold before it is taken.
    public var settle: Double

    /// Creates a candidate.
    public init(filter: RSSIKalmanFilter.Parameters, hysteresis: Double, settle: Double) {
        self.filter = filter
        self.hysteresis = hysteresis
        self.settle = settle
    }

    func classes(_ series: ProximitySeries, thresholds: ProximityClassifier.Parameters) -> [Proximity] {
        var filter = RSSIKalmanFilter(parameters: filter)
        var hold = SettledClass(settle: settle, unknownAfter: thresholds.unknownAfter)
        func rssi(at distance: Double) -> Double { series.measuredPower - 10 * series.exponent * log10(distance) }
        let immediate = rssi(at: thresholds.immediateBelow), near = rssi(at: thresholds.nearBelow), h = hysteresis
        return (0..<series.count).map { i in
            let x = filter.update(rssi: series.rssi[i].rounded(), at: Instant(seconds: series.times[i])).rssi
            return hold.update(at: series.times[i]) { current in
                switch current {
                case .unknown: return x > immediate ? .immediate : x > near ? .near : .far
                case .immediate: return x >= immediate - h ? .immediate : x >= near - h ? .near : .far
                case .near: return x > immediate + h ? .immediate : x >= near - h ? .near : .far
                case .far: return x <= near + h ? .far : x > immediate + h ? .immediate : .near
                }
            }
        }
    }
}

/// The hold every candidate shares with the former steady estimate (no longer the node's): the
/// first class (and the first after `unknownAfter` seconds of silence) is taken at once; a new
/// class only once it has been proposed for `settle` seconds.
struct SettledClass {
    let settle: Double
    let unknownAfter: Double
    private var current = Proximity.unknown
    private var pending = Proximity.unknown
    private var pendingSince = 0.0
    private var last: Double?

    init(settle: Double, unknownAfter: Double) {
        self.settle = settle
        self.unknownAfter = unknownAfter
    }

    /// The class at `time` given `propose`, which maps the current class (`unknown` at a fresh
    /// start) to the one the estimate asks for.
    mutating func update(at time: Double, propose: (Proximity) -> Proximity) -> Proximity {
        if let last, time - last > unknownAfter { current = .unknown }
        last = time
        let candidate = propose(current)
        if current == .unknown || candidate == current {
            current = current == .unknown ? candidate : current
            pending = .unknown
            return current
        }
        if candidate != pending {
            pending = candidate
            pendingSince = time
        }
        if time - pendingSince >= settle {
            current = candidate
            pending = .unknown
        }
        return current
    }
}
