import BeaconCore
import RoomDecisions

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Bermuda 0.8's area rule (the Home Assistant integration), re-implemented from its description
/// and its published behaviour so that `presence-bench evaluate` scores it beside ours on the
/// same input: the peer the issues measure homes against.
///
/// Every `cycle` (1.05 s) each receiver's latest advertisement since the last cycle becomes a raw
/// distance (`10^((refPower − rssi)/(10·attenuation))`). Its distance takes a nearer reading at
/// once and otherwise averages the running minima of its last `samples` (20) cycles' readings, so
/// a drop barely moves it; a reading that would move the tag away faster than `maxVelocity`
/// (3 m/s) repeats the previous one; a receiver silent for `timeout` (30 s) has no distance. Each
/// cycle every receiver whose latest advert is at most `maxAdvertAge` (10 s) old challenges the
/// current one: it must be nearer, and wins outright when the two distances differ by `outright`
/// (30 %) of their mean, or by `historical` (15 %) with every one of its last `historyCycles` (5)
/// readings nearer than every one of the incumbent's; a receiver of the same room wins when its
/// advert is newer by a second and it is no farther. No dwell: it decides every cycle. The room is
/// the winning receiver's. Distance ratios are dB differences (30 % of the mean is 3.9 dB at
/// attenuation 3), so `refPower` only sets the `maxRadius` cut.
///
/// The contest follows Bermuda's source (agittins/bermuda, `coordinator.py`,
/// `_refresh_area_by_min_distance`, and `const.py`; docs/research/2026-12-07-real-house-worn.md):
/// `if challenger.stamp < nowstamp - AREA_MAX_AD_AGE: continue` with
/// `AREA_MAX_AD_AGE = max(DISTANCE_TIMEOUT / 3, UPDATE_INTERVAL * 2)` ("Adverts older than this can
/// not win an area contest"), and `pcnt_diff = abs(_pda - _pdb) / ((_pda + _pdb) / 2)`.
public struct BermudaRuleBaseline: Sendable {
    /// The rule's settings, Bermuda 0.8's defaults.
    public struct Parameters: Sendable, Hashable {
        public var cycle = 1.05
        public var samples = 20
        public var refPower = -55.0
        public var attenuation = 3.0
        public var maxVelocity = 3.0
        public var maxRadius = 20.0
        public var timeout = 30.0
        /// The oldest advert that may win a contest, seconds (Bermuda's `AREA_MAX_AD_AGE`).
        public var maxAdvertAge = 10.0
        /// How much the distances must differ (a share of their mean) to win outright.
        public var outright = 0.30
        /// How much nearer wins when the recent readings agree.
        public var historical = 0.15
        public var historyCycles = 5
        public init() {}
    }

    /// One receiver's state, as Bermuda keeps it per device and scanner.
    struct Receiver {
        var node: String
        var room: String
        /// The latest advert not yet taken by a cycle.
        var pending: (time: Double, rssi: Int)?
        /// Stamp of the latest advert taken.
        var stamp = -Double.infinity
        var raw: Double?
        /// Raw distances and stamps of the taken adverts, newest first.
        var history: [(distance: Double, time: Double)] = []
        /// One distance per cycle, newest first.
        var byCycle: [Double] = []
        var distance: Double?
    }

    public let parameters: Parameters
    private var receivers: [Receiver] = []
    private var indexOfNode: [String: Int] = [:]
    private var current: Int?
    /// The room last decided.
    private var room: String?
    private var nextCycle: Double?

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// Folds in one advertisement of the beacon; returns the rooms decided by the cycles that
    /// ended before it, with their times, when the room changed.
    public mutating func step(_ sample: TraceSample) -> [(time: Instant, room: String)] {
        let time = sample.time.seconds
        let changes = advance(to: time)
        if nextCycle == nil { nextCycle = time + parameters.cycle }
        let index: Int
        if let known = indexOfNode[sample.node] {
            index = known
        } else {
            index = receivers.count
            indexOfNode[sample.node] = index
            receivers.append(Receiver(node: sample.node, room: sample.room))
        }
        receivers[index].pending = (time, sample.rssi)
        return changes
    }

    /// Runs every cycle due before `time`.
    public mutating func advance(to time: Double) -> [(time: Instant, room: String)] {
        var changes: [(time: Instant, room: String)] = []
        while let cycleTime = nextCycle, cycleTime <= time {
            if let room = cycle(at: cycleTime) { changes.append((Instant(seconds: cycleTime), room)) }
            nextCycle = cycleTime + parameters.cycle
        }
        return changes
    }

    private func distance(rssi: Int) -> Double {
        pow(10, (parameters.refPower - Double(rssi)) / (10 * parameters.attenuation))
    }

    /// One cycle: every receiver's distance, then the area contest. Returns the new room on a change.
    private mutating func cycle(at now: Double) -> String? {
        for index in receivers.indices { updateDistance(index, now: now) }
        var closest = current
        for index in receivers.indices where index != closest {
            let challenger = receivers[index]
            guard challenger.stamp >= now - parameters.maxAdvertAge else { continue }
            guard let incumbent = closest, let incumbentDistance = receivers[incumbent].distance else {
                closest = index
                continue
            }
            guard let challengerDistance = challenger.distance, challengerDistance <= parameters.maxRadius,
                challengerDistance <= incumbentDistance
            else { continue }
            let nearer = (incumbentDistance - challengerDistance) / ((incumbentDistance + challengerDistance) / 2)
            if challenger.room == receivers[incumbent].room,
                now - receivers[incumbent].stamp > now - challenger.stamp + 1
            {
                closest = index
                continue
            }
            if challenger.byCycle.count > 3 {
                let incumbentBest = receivers[incumbent].byCycle.prefix(parameters.historyCycles).min() ?? .infinity
                let challengerWorst = challenger.byCycle.prefix(parameters.historyCycles).max() ?? .infinity
                if challengerWorst < incumbentBest, nearer > parameters.historical {
                    closest = index
                    continue
                }
            }
            if nearer >= parameters.outright { closest = index }
        }
        current = closest
        guard let closest, receivers[closest].distance != nil, receivers[closest].room != room else { return nil }
        room = receivers[closest].room
        return room
    }

    /// Bermuda's per-cycle distance of one receiver: the raw reading, the velocity guard and the
    /// bottom-hugging average.
    private mutating func updateDistance(_ index: Int, now: Double) {
        var receiver = receivers[index]
        defer { receivers[index] = receiver }
        let fresh = receiver.pending
        receiver.pending = nil
        if let fresh {
            let raw = distance(rssi: fresh.rssi)
            receiver.raw = raw
            receiver.stamp = fresh.time
            receiver.history.insert((raw, fresh.time), at: 0)
            if receiver.history.count > 10 { receiver.history.removeLast() }
        }
        if receiver.distance == nil, fresh != nil, let raw = receiver.raw {
            receiver.distance = raw
            receiver.byCycle = [raw]
            return
        }
        if fresh == nil, receiver.stamp < now - parameters.timeout {
            receiver.distance = nil
            receiver.byCycle.removeAll()
            return
        }
        guard let raw = receiver.raw else { return }
        // The fastest the newest reading moves away from any earlier one.
        var velocity = 0.0
        if receiver.history.count > 1 {
            let newest = receiver.history[0]
            let span = newest.time - receiver.history[1].time
            var peak = span > 0 ? (newest.distance - receiver.history[1].distance) / span : 0
            if peak >= 0 {
                for older in receiver.history.dropFirst(2) {
                    let span = newest.time - older.time
                    guard span > 0 else { continue }
                    peak = max(peak, (newest.distance - older.distance) / span)
                }
            }
            velocity = peak
        }
        if velocity > parameters.maxVelocity {
            receiver.byCycle.insert(receiver.byCycle.first ?? raw, at: 0)
        } else {
            receiver.byCycle.insert(raw, at: 0)
        }
        if receiver.byCycle.count > parameters.samples { receiver.byCycle.removeLast(receiver.byCycle.count - parameters.samples) }
        var total = 0.0
        var localMinimum = raw
        for reading in receiver.byCycle {
            localMinimum = min(localMinimum, reading)
            total += localMinimum
        }
        let average = receiver.byCycle.isEmpty ? localMinimum : total / Double(receiver.byCycle.count)
        receiver.distance = min(average, raw)
    }

    /// Decision rows of the rule over one beacon's advertisements (a recorded trace's published
    /// rows are skipped: the rule reads adverts).
    public static func decisions(of samples: [TraceSample], parameters: Parameters = Parameters())
        -> [(time: Instant, room: String)]
    {
        var rule = BermudaRuleBaseline(parameters: parameters)
        var rows: [(time: Instant, room: String)] = []
        for sample in samples where sample.publication == nil { rows += rule.step(sample) }
        if let last = samples.last { rows += rule.advance(to: last.time.seconds) }
        return rows
    }
}
