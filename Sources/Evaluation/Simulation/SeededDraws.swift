import BeaconCore
import RoomDecisions

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The random draws of the bench's simulations (motion sensors), seeded by a
/// recording's name so that every run on every machine repeats exactly.
struct SeededDraws {
    var generator: SplitMix64

    init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    /// FNV-1a of the name: a seed that is the same on every machine and run (Swift's `hashValue` is not).
    static func seed(_ name: String) -> UInt64 {
        name.utf8.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    mutating func uniform(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + generator.unit() * (range.upperBound - range.lowerBound)
    }
}
