import Foundation
import TestSupport
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
    typealias SeededGenerator = SeededRandom
}
