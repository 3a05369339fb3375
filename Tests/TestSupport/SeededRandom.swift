import BeaconCore

/// BeaconCore's SplitMix64 with what tests draw from it, so every random-input test is repeatable
/// and a failing case can be replayed from its seed.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var generator: SplitMix64

    public init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
    }

    public mutating func next() -> UInt64 { generator.next() }

    /// `count` random bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count + 8)
        while out.count < count {
            let word = next()
            for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return Array(out.prefix(count))
    }

    /// Roughly standard normal: the sum of 12 uniforms minus 6.
    public mutating func gaussian() -> Double {
        var sum = 0.0
        for _ in 0..<12 { sum += Double.random(in: 0..<1, using: &self) }
        return sum - 6
    }
}
