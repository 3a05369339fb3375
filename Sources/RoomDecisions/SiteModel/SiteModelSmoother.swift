import BeaconCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A fixed-lag smoother for `SiteModelFilter` (`SiteModelParameters.smoothingLag`): the posterior
/// over the rooms at `lag` seconds ago, from the forward filter's posterior then and every step's
/// transition and evidence since (forward-backward over the last `lag` seconds). A brief wrong
/// stretch that the evidence after it contradicts is then never decided, at the price of deciding
/// `lag` seconds late. Pure value type; the filter feeds it each step it takes.
struct SiteModelSmoother: Sendable {
    /// One step of the forward filter: over the `dt` seconds ending at `time` the prior left each
    /// room at its rate (moving by the transition prior), then `logEvidence` per room was added;
    /// `forward` is the normalized log-posterior after it.
    struct Step: Sendable {
        var time: Instant
        var dt: Double
        var logEvidence: [Double]
        var forward: [Double]
    }

    /// How far back the smoothed posterior is, seconds.
    let lag: Double
    /// The filter's transition prior `[from][to]`, nil for an even spread.
    let transitions: [[Double]]?
    /// Per room, the rate the prior leaves it at (`SiteModel.leavingRates`).
    let rates: [Double]
    private var steps: [Step] = []
    private var head = 0

    init(lag: Double, transitions: [[Double]]?, rates: [Double]) {
        self.lag = lag
        self.transitions = transitions
        self.rates = rates
    }

    /// Takes one forward step in and drops the steps no longer needed: everything before the
    /// latest step at or before `time − lag` (the one smoothed).
    mutating func append(_ step: Step) {
        steps.append(step)
        let horizon = step.time.seconds - lag
        while head + 1 < steps.count, steps[head + 1].time.seconds <= horizon { head += 1 }
        if head > 64, head * 2 > steps.count {
            steps.removeFirst(head)
            head = 0
        }
    }

    /// The normalized log-posterior at the step `lag` seconds back (the oldest kept while less
    /// than `lag` has passed), given every step after it; nil before the first step.
    func smoothed() -> [Double]? {
        guard head < steps.count else { return nil }
        let rooms = steps[head].forward.count
        guard rooms > 0 else { return nil }
        var beta = [Double](repeating: 0, count: rooms)
        var weighted = [Double](repeating: 0, count: rooms)
        var step = steps.count - 1
        // β(k−1)[from] = Σ_to M_k[from][to] · E_k[to] · β(k)[to], in logs, scaled to stay finite.
        while step > head {
            let current = steps[step]
            var top = -Double.infinity
            for room in 0..<rooms {
                weighted[room] = current.logEvidence[room] + beta[room]
                top = max(top, weighted[room])
            }
            guard top.isFinite else { break }
            var total = 0.0
            for room in 0..<rooms {
                weighted[room] = exp(weighted[room] - top)
                total += weighted[room]
            }
            for from in 0..<rooms {
                let stay = exp(-rates[from] * current.dt)
                var moved: Double
                if let transitions {
                    moved = 0
                    for to in 0..<rooms { moved += transitions[from][to] * weighted[to] }
                } else {
                    moved = total / Double(rooms)
                }
                beta[from] = log(max(stay * weighted[from] + (1 - stay) * moved, .leastNormalMagnitude))
            }
            step -= 1
        }
        var posterior = steps[head].forward
        for room in 0..<rooms { posterior[room] += beta[room] }
        let total = SiteModelFilter.logSumExp(posterior)
        for room in 0..<rooms { posterior[room] -= total }
        return posterior
    }
}
