/// Timing of the region monitor, in seconds.
public struct RegionMonitorSettings: Hashable, Sendable {
    /// No matching beacon for this long leaves a region; also how long a new region stays `unknown`.
    public var exitDelay: Double
    /// A ranged beacon not heard for this long shows proximity `unknown` and no distance.
    public var rangingUnknownAfter: Double
    /// A ranged beacon not heard for this long leaves the ranging list and is forgotten.
    public var rangingForgetAfter: Double
    /// A ranged beacon's distance counts as changed (its regions' lists are due again) only once it
    /// is this many times larger or smaller than when it last counted: noise that merely reorders
    /// two beacons at similar distances is not a change. Proximity changes always count.
    public var rangingDistanceFactor: Double

    /// Defaults: exit after 30 s, ranging `unknown` after 2 s, forgotten after 10 s; a distance
    /// change counts beyond a factor of 1.5 (about 4.5 dB of filtered RSSI at n = 2.7: beyond the
    /// noise of a still beacon, well within a walk across a room).
    public init(
        exitDelay: Double = 30, rangingUnknownAfter: Double = 2, rangingForgetAfter: Double = 10,
        rangingDistanceFactor: Double = 1.5
    ) {
        self.exitDelay = exitDelay
        self.rangingUnknownAfter = rangingUnknownAfter
        self.rangingForgetAfter = max(rangingForgetAfter, rangingUnknownAfter)
        self.rangingDistanceFactor = rangingDistanceFactor.isFinite ? max(1, rangingDistanceFactor) : 1.5
    }
}
