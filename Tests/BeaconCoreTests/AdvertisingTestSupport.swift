import Foundation
@testable import BeaconCore

/// Helpers for the advertising and beacon tests, namespaced so they cannot clash with other suites'.
enum AdvertisingFixtures {
    /// Bytes from a hex string with optional spaces; traps on bad test input only.
    static func hex(_ text: String) -> [UInt8] {
        let compact = text.filter { !$0.isWhitespace }
        guard let bytes = HexDigits.bytes(compact) else { fatalError("bad hex in test: \(text)") }
        return bytes
    }

    /// A small deterministic generator (SplitMix64) so random-input tests are reproducible.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
