import BeaconCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Body fades added to a recording's advertisements, to see how a decision holds up where the tag
/// is worn: a body between a worn tag and a receiver takes 10–20 dB for a few seconds whenever the
/// wearer turns, sits or lies down, and no shared recording has a worn tag
/// (`presence-bench evaluate --body-fades`).
///
/// Fades come as a Poisson process, on average one every `meanInterval` seconds of a recording;
/// each lowers every advertisement one node (chosen at random among the recording's nodes) hears
/// during the fade by the same depth. They are seeded by the recording's name, so a run repeats
/// exactly. A recorded trace's rows (what nodes published, already filtered) are left as they are:
/// a fade belongs before the node's filter.
public struct SimulatedBodyFades: Sendable, Hashable {
    /// One fade: `node` hears every advertisement `depth` dB lower from `start` (inclusive) to `end`.
    public struct Fade: Sendable, Hashable {
        public var start: Double
        public var end: Double
        public var node: String
        public var depth: Int
    }

    /// The shortest mean interval used, seconds.
    public static let minimumInterval = 1.0

    /// Mean time between two fades in a recording, seconds.
    public var meanInterval: Double
    /// How deep a fade is, dB (uniform in the range, rounded to whole dB as RSSI is).
    public var depth: ClosedRange<Double>
    /// How long a fade lasts, seconds (uniform in the range).
    public var duration: ClosedRange<Double>

    /// Fades every `meanInterval` seconds on average, 10–20 dB deep for 2–6 s (the body's toll
    /// the issue describes for a tag on a wrist or in a pocket).
    public init(meanInterval: Double, depth: ClosedRange<Double> = 10...20, duration: ClosedRange<Double> = 2...6) {
        self.meanInterval = meanInterval
        self.depth = depth
        self.duration = duration
    }

    /// The fades of a recording of `samples` named `name`, in time order; none when
    /// `meanInterval` is not a positive finite number or the recording has no advertisement. An
    /// interval under `minimumInterval` counts as that (fades last seconds; a shorter one would only
    /// pile up fades without end).
    public func fades(in samples: [TraceSample], name: String) -> [Fade] {
        let heard = samples.filter { $0.publication == nil }
        guard meanInterval.isFinite, meanInterval > 0, let first = heard.first, let last = heard.last else { return [] }
        let nodes = Set(heard.map(\.node)).sorted()
        var random = Draws(seed: Self.seed(name))
        var fades: [Fade] = []
        let mean = max(meanInterval, Self.minimumInterval)
        var time = first.time.seconds + random.exponential(mean: mean)
        while time < last.time.seconds {
            let length = random.uniform(in: duration)
            let node = nodes[Int(random.next() % UInt64(nodes.count))]
            fades.append(Fade(start: time, end: time + length, node: node,
                              depth: Int(random.uniform(in: depth).rounded())))
            time += random.exponential(mean: mean)
        }
        return fades
    }

    /// `samples` with the fades of `fades(in:name:)` applied (RSSI floored at −127 dBm, the lowest
    /// a controller reports), and the fades themselves.
    public func apply(to samples: [TraceSample], name: String) -> (samples: [TraceSample], fades: [Fade]) {
        let fades = fades(in: samples, name: name)
        let byNode = Dictionary(grouping: fades, by: \.node)
        let faded = samples.map { sample -> TraceSample in
            guard sample.publication == nil, let own = byNode[sample.node] else { return sample }
            let time = sample.time.seconds
            let loss = own.reduce(0) { $0 + ($1.start <= time && time < $1.end ? $1.depth : 0) }
            guard loss > 0 else { return sample }
            var copy = sample
            copy.rssi = max(-127, sample.rssi - loss)
            return copy
        }
        return (faded, fades)
    }

    /// FNV-1a of the name: a seed that is the same on every machine and run (Swift's `hashValue` is not).
    static func seed(_ name: String) -> UInt64 {
        name.utf8.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    /// The fades' draws, seeded as above.
    struct Draws {
        var generator: SplitMix64
        init(seed: UInt64) { generator = SplitMix64(seed: seed) }
        mutating func next() -> UInt64 { generator.next() }
        mutating func uniform(in range: ClosedRange<Double>) -> Double {
            range.lowerBound + generator.unit() * (range.upperBound - range.lowerBound)
        }
        /// Exponential with this mean (unit() < 1, so 1 − unit() stays positive).
        mutating func exponential(mean: Double) -> Double { -mean * log(1 - generator.unit()) }
    }
}
