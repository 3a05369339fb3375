import BeaconCore

/// Least squares reweighted with Huber's weight: a few rows that do not fit (a shadowed path) pull
/// the solution little, and their weights say how much they counted. Small and dense: a site's
/// nodes are tens, not thousands.
struct RobustFit {
    var solution: [Double]
    /// Each row's residual, target − fitted.
    var residuals: [Double]
    /// Each row's final weight, 0…1.
    var weights: [Double]
    /// The residuals' robust scale (1.4826 × their median absolute value), at least `floor`.
    var scale: Double

    /// Huber's constant in scales: rows within it count fully.
    static let huber = 1.5
    /// The smallest scale, dB: levels are whole dB, averaged.
    static let floor = 0.25

    /// Solves `rows` (indices and coefficients of the unknowns, and the target) for `unknowns`
    /// unknowns; the first `gauge` of them are held to sum to zero (the solution's free level).
    static func solve(_ rows: [(indices: [Int], values: [Double], target: Double)], unknowns: Int, gauge: Int) -> RobustFit {
        var weights = [Double](repeating: 1, count: rows.count)
        var solution = [Double](repeating: 0, count: unknowns)
        var residuals = rows.map(\.target)
        func fit() {
            solution = weightedLeastSquares(rows, weights: weights, unknowns: unknowns, gauge: gauge) ?? solution
            residuals = rows.map { row in row.target - zip(row.indices, row.values).reduce(0) { $0 + solution[$1.0] * $1.1 } }
        }
        // Start from least absolute deviations (weights 1/|r|): from least squares, one row that
        // does not fit spreads its residual over its neighbours' (half of it in a site of four
        // nodes), the scale taken from them grows to cover it, and Huber's weight never sees it.
        for _ in 0..<20 {
            fit()
            weights = residuals.map { 1 / max(abs($0), floor) }
        }
        var scale = floor
        for _ in 0..<12 {
            scale = max(floor, 1.4826 * (residuals.map { abs($0) }.median ?? 0))
            let next = residuals.map { residual in
                let size = abs(residual) / (huber * scale)
                return size <= 1 ? 1 : 1 / size
            }
            let settled = zip(next, weights).allSatisfy { abs($0 - $1) < 1e-4 }
            weights = next
            if settled { break }
            fit()
        }
        return RobustFit(solution: solution, residuals: residuals, weights: weights, scale: scale)
    }

    /// The normal equations solved by elimination with partial pivoting; nil when singular.
    static func weightedLeastSquares(_ rows: [(indices: [Int], values: [Double], target: Double)], weights: [Double],
                                     unknowns n: Int, gauge: Int) -> [Double]? {
        var a = [[Double]](repeating: [Double](repeating: 0, count: n + 1), count: n)
        for (row, weight) in zip(rows, weights) {
            for (i, vi) in zip(row.indices, row.values) {
                for (j, vj) in zip(row.indices, row.values) { a[i][j] += weight * vi * vj }
                a[i][n] += weight * vi * row.target
            }
        }
        // The gauge: (Σ x_i)² with unit weight over the first `gauge` unknowns.
        for i in 0..<gauge { for j in 0..<gauge { a[i][j] += 1 } }
        for column in 0..<n {
            guard let pivot = (column..<n).max(by: { abs(a[$0][column]) < abs(a[$1][column]) }), abs(a[pivot][column]) > 1e-12 else {
                return nil
            }
            a.swapAt(column, pivot)
            for row in 0..<n where row != column {
                let factor = a[row][column] / a[column][column]
                if factor != 0 { for k in column...n { a[row][k] -= factor * a[column][k] } }
            }
        }
        return (0..<n).map { a[$0][n] / a[$0][$0] }
    }
}
