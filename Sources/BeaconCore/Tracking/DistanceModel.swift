#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Log-distance path-loss model: `d = 10^((P₁ + offset − RSSI) / (10·n))` metres.
///
/// P₁ is the RSSI expected at 1 m: the beacon's configured measured power if the operator set one,
/// else the advertised one, else `defaultMeasuredPower`. `rssiOffset` is the node's calibration
/// (a receiver that hears everything 3 dB weaker than the reference gets −3). The result is an
/// estimate, like Core Location's `accuracy`, not a promise.
public struct DistanceModel: Sendable, Hashable, Codable {
    /// n, the path-loss exponent: 2 in free space, more indoors.
    public var pathLossExponent: Double
    /// Per-node calibration in dB, added to P₁.
    public var rssiOffset: Double
    /// P₁ in dBm when the beacon neither advertises nor is configured with one.
    public var defaultMeasuredPower: Double

    /// Largest distance reported, metres: beyond this the model is meaningless, and capping keeps
    /// every output finite.
    public static let maximumDistance: Double = 1_000

    /// Creates a model from its exponent n, the node's offset and the default P₁.
    public init(pathLossExponent: Double, rssiOffset: Double = 0, defaultMeasuredPower: Double) {
        self.pathLossExponent = pathLossExponent
        self.rssiOffset = rssiOffset
        self.defaultMeasuredPower = defaultMeasuredPower
    }

    /// Fitted by `presence-bench calibrate` on the 60 static-rssi series (mean RSSI vs log
    /// distance, 0.77–20 m, one offset per receiver): n = 1.5, P₁ = −60 dBm. That hall is open
    /// (no walls); rooms separated by walls usually need a larger n (2–3), set per node.
    public static let `default` = DistanceModel(pathLossExponent: 1.5, rssiOffset: 0, defaultMeasuredPower: -60)

    /// Distance in metres for a (filtered) RSSI, using `measuredPower` as P₁ when given.
    ///
    /// Never traps and never returns NaN: a non-finite RSSI gives `maximumDistance`, a
    /// non-positive or non-finite exponent falls back to the default one, a non-finite
    /// measured power to `defaultMeasuredPower`; the result lies in 0...`maximumDistance`.
    public func distance(rssi: Double, measuredPower: Double?) -> Double {
        guard rssi.isFinite else { return Self.maximumDistance }
        let d = pow(10, log10Distance(rssi: rssi, measuredPower: measuredPower))
        guard d.isFinite else { return Self.maximumDistance }
        return min(max(d, 0), Self.maximumDistance)
    }

    /// log₁₀ of the distance before capping, `(P₁ + offset − RSSI) / (10·n)`, with the same fallbacks
    /// as `distance(rssi:measuredPower:)`: a caller that only compares the distance with fixed
    /// thresholds compares this with their `log10` and saves the `pow`.
    @inline(__always)
    func log10Distance(rssi: Double, measuredPower: Double?) -> Double {
        let n = pathLossExponent.isFinite && pathLossExponent > 0 ? pathLossExponent : Self.default.pathLossExponent
        var p1 = defaultMeasuredPower.isFinite ? defaultMeasuredPower : Self.default.defaultMeasuredPower
        if let measuredPower, measuredPower.isFinite { p1 = measuredPower }
        let offset = rssiOffset.isFinite ? rssiOffset : 0
        return (p1 + offset - rssi) / (10 * n)
    }
}
