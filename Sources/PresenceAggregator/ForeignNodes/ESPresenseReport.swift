import BeaconCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One message an ESPresense node publishes on `<prefix>/devices/<device id>/<node>` (not
/// retained), as `BleFingerprint::fill` in src/BleFingerprint.cpp of github.com/ESPresense/ESPresense
/// writes it: `{"mac","id","name","rssi@1m","rssi","rxAdj","rssiVar","distance","var","close","int",…}`.
///
/// Only what a room decision needs is read. `rssi` is the node's own filtered RSSI (since 2025 the
/// 75th percentile of a window, `AdaptivePercentileRSSI`; a one-euro filter before), already
/// corrected by the node's `rxAdj`; `distance` comes from its own model
/// `10^((rssi@1m − rssi) / (10 · absorption))`. Older firmware sent `raw` and no `rssiVar`; a
/// message lacking `rssi@1m` or `rssi` still counts while the other fields give a value. Fields
/// this type does not read (battery, temperature, a discovered `irk`) are ignored, never kept.
public struct ESPresenseReport: Sendable, Hashable {
    /// The device id the payload names (`iBeacon:…`, `irk:…`, an alias). May carry a key: never log it.
    public var deviceID: String
    /// The node's filtered RSSI, dBm.
    public var rssi: Double?
    /// The device's RSSI at 1 m as the node assumes it (advertised, configured or its default).
    public var rssiAt1m: Double?
    /// Metres, from the node's own model.
    public var distance: Double?
    /// Variance of the filtered RSSI, dB², when the firmware sends it.
    public var rssiVariance: Double?
    /// The device's name, when the node knows one.
    public var name: String?

    /// The longest message accepted; a real one is about 250 bytes.
    public static let maximumBytes = 4096

    public init(deviceID: String, rssi: Double?, rssiAt1m: Double?, distance: Double?, rssiVariance: Double? = nil, name: String? = nil) {
        self.deviceID = deviceID
        self.rssi = rssi
        self.rssiAt1m = rssiAt1m
        self.distance = distance
        self.rssiVariance = rssiVariance
        self.name = name
    }

    /// Parses a device message. Never traps; an error names the field that is wrong.
    public init(payload: [UInt8]) throws(ForeignMessageError) {
        let object = try ForeignMessageError.jsonObject(payload, maximumBytes: Self.maximumBytes)
        func number(_ key: String, _ range: ClosedRange<Double>) throws(ForeignMessageError) -> Double? {
            switch object[key] {
            case nil, .null?: return nil
            case .number(let number)?:
                guard number.double.isFinite, range.contains(number.double) else {
                    throw ForeignMessageError("\(key): \(number.literal.prefix(20)) is out of range \(range.lowerBound)…\(range.upperBound)")
                }
                return number.double
            case let other?: throw ForeignMessageError("\(key): expected a number, got \(other.kindDescription)")
            }
        }
        guard case .string(let id)? = object["id"], !id.isEmpty, id.utf8.count <= 256 else {
            throw ForeignMessageError("id: required, a string of 1–256 characters")
        }
        deviceID = id
        // ESPresense writes NO_RSSI (−128) as no value at all; −128 is refused as nonsense.
        rssi = try number("rssi", -127...20)
        rssiAt1m = try number("rssi@1m", -127...20)
        distance = try number("distance", 0...1_000)
        rssiVariance = try number("rssiVar", 0...10_000)
        if case .string(let text)? = object["name"], !text.isEmpty, text.count <= KnownBeacon.maximumNameLength { name = text }
        guard rssi != nil || distance != nil else { throw ForeignMessageError("rssi: required unless distance is given") }
    }
}

/// An ESPresense report on the scale of our own agents' evidence.
///
/// The room decision scores a node's word as `−10·n·log₁₀(distance)` dB with n the decision's
/// path-loss exponent (`RoomDecisionParameters.pathLossExponent`), which for our agents is exactly
/// their filtered RSSI relative to the beacon's RSSI at 1 m. ESPresense's distance uses its own
/// `absorption` (default 2.7), so it is not fed as it is: the distance handed on is
/// `10^((rssi@1m − rssi) / (10·n))`, whose score is `rssi − rssi@1m`, the same quantity our agents'
/// distances carry. Without `rssi` (firmware that sent only a distance) the node's RSSI is
/// recovered from its distance with its absorption; without `rssi@1m` the agents' default
/// measured power stands in.
public struct ESPresenseEvidence: Sendable, Hashable {
    public var rssi: Double
    public var distance: Double
    public var proximity: Proximity
    public var sigma: Double?

    /// ESPresense's default absorption (`DEFAULT_ABSORPTION`, include/defaults.h).
    public static let defaultAbsorption = 2.7

    public init(_ report: ESPresenseReport, pathLossExponent: Double, absorption: Double = Self.defaultAbsorption,
                proximity thresholds: ProximityClassifier.Parameters = .default) {
        let atOneMetre = report.rssiAt1m ?? DistanceModel.default.defaultMeasuredPower
        let rssi = report.rssi ?? (atOneMetre - 10 * absorption * log10(max(report.distance ?? 1, 0.01)))
        let n = pathLossExponent > 0 ? pathLossExponent : DistanceModel.default.pathLossExponent
        let distance = min(pow(10, (atOneMetre - rssi) / (10 * n)), DistanceModel.maximumDistance)
        self.rssi = rssi
        self.distance = distance
        self.proximity = distance < thresholds.immediateBelow ? .immediate : distance < thresholds.nearBelow ? .near : .far
        self.sigma = report.rssiVariance.map { $0.squareRoot() }
    }
}
