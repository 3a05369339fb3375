import BeaconCore

/// When a beacon's location is published again in the same room because its distance changed
/// (docs/MQTT.md, `<root>/locations/<beacon>`). A change of node, proximity, candidate rooms or
/// name publishes at once whatever this says; a room change always publishes.
///
/// **Ratio**: the distance is published again when it moved by `distanceRatio` or more from the
/// published one (`max/min ≥ 1.25` by default) and by at least 0.1 m (the payload's old rule, now
/// the floor). A ratio, like the agent's RSSI step: a dB step is a distance ratio
/// (`d₂/d₁ = 10^(ΔdB/(10·n))`; 1.25 is about 2 dB at a path-loss exponent of 2, 3 dB at 3), so the rule is the same
/// at 1 m (0.25 m) and at 8 m (2 m), where the same RSSI noise moves the distance more metres.
/// **Refresh**: a distance that moved by 0.1 m but less than the ratio is published once the
/// published location is `refreshInterval` old (60 s by default), at the next measurement: a
/// Home Assistant distance sensor is never more than about a minute behind.
///
/// Issue 38: the distance printed to 0.1 m changed on about half the measurements (RSSI noise),
/// and each change cost a location publication, its acknowledgement and the broker's work.
public struct LocationRefreshRule: Sendable, Hashable {
    /// The ratio of distances (larger over smaller) that publishes at once, at least 1.
    public var distanceRatio: Double
    /// Seconds after which any change of 0.1 m publishes, at least 0.
    public var refreshInterval: Double

    public init(distanceRatio: Double = 1.25, refreshInterval: Double = 60) {
        self.distanceRatio = distanceRatio
        self.refreshInterval = refreshInterval
    }

    /// The documented defaults: 25 %, 60 s.
    public static let `default` = LocationRefreshRule()

    /// Whether a location whose distance is `current` is worth publishing when `published` was
    /// published `age` seconds ago (nil: not published by this run, such as a restored location).
    public func distanceWorthPublishing(published: Double?, current: Double?, age: Double?) -> Bool {
        guard let published, let current else { return (published == nil) != (current == nil) }
        guard Self.tenthsDiffer(published, current) else { return false }
        guard let age, age < refreshInterval else { return true }
        let larger = max(published, current)
        let smaller = min(published, current)
        // `smaller * ratio` is finite for any distance a measurement carries; 0 against anything larger publishes.
        return larger >= smaller * distanceRatio
    }

    /// Whether the distances differ to 0.1 m, as the payload showed them before the ratio
    /// (`(d * 10).rounded() / 10`). Below 2^49 distinct whole tenths stay distinct after the
    /// division, so it is skipped there (two divisions were 1.5 % of an update); beyond, and for
    /// NaN, the division decides.
    static func tenthsDiffer(_ a: Double, _ b: Double) -> Bool {
        let tenthsA = (a * 10).rounded()
        let tenthsB = (b * 10).rounded()
        if tenthsA == tenthsB { return false }
        if abs(tenthsA) < 0x1p49, abs(tenthsB) < 0x1p49 { return true }
        return tenthsA / 10 != tenthsB / 10
    }
}
