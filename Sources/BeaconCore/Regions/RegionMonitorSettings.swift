/// Timing of the region monitor, in seconds.
public struct RegionMonitorSettings: Hashable, Sendable {
    /// No matching beacon for this long leaves a region; also how long a new region stays `unknown`.
    public var exitDelay: Double
    /// A ranged beacon not heard for this long shows proximity `unknown` and no distance.
    public var rangingUnknownAfter: Double
    /// A ranged beacon not heard for this long leaves the ranging list and is forgotten.
    public var rangingForgetAfter: Double

    /// Defaults: exit after 30 s, ranging `unknown` after 2 s, forgotten after 10 s.
    public init(exitDelay: Double = 30, rangingUnknownAfter: Double = 2, rangingForgetAfter: Double = 10) {
        self.exitDelay = exitDelay
        self.rangingUnknownAfter = rangingUnknownAfter
        self.rangingForgetAfter = max(rangingForgetAfter, rangingUnknownAfter)
    }
}
