import Foundation
import TestSupport
import BeaconCore

/// Helpers for the tracking tests: a seeded random generator.
enum TrackingTestSupport {
    /// SplitMix64: deterministic, so a failing fuzz case can be replayed.
    typealias SeededRandom = TestSupport.SeededRandom
}
