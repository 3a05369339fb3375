import Foundation

/// `value` to `places` decimals, as the bench's JSON prints its figures.
func rounded(_ value: Double, _ places: Int) -> Double {
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    return (value * scale).rounded() / scale
}

/// A figure for JSON: rounded, or null when it is not a number (nothing measured).
func figure(_ value: Double, _ places: Int) -> Any {
    value.isFinite ? rounded(value, places) : NSNull()
}
