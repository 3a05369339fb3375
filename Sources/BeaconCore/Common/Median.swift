extension Array where Element == Double {
    /// The median (the mean of the middle two for an even count); nil when empty. One definition
    /// for the scores, the site model's verdict and the node calibration, so they cannot drift.
    public var median: Double? {
        guard !isEmpty else { return nil }
        let sorted = self.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
