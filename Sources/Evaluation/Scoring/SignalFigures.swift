import BeaconCore
import RoomDecisions

/// What a beacon's signal looks like to the receivers while its wearer stays in a room: the
/// figures issue 40 measured on a held-back house with a worn tag, beside the shared sites, so
/// that a simulated worn tag (`WornTagSignal`) can be checked against them
/// (`presence-bench signal-figures`).
///
/// Only **in-room seconds** count: whole seconds of the recording (from its first advertisement)
/// whose true room has not changed in the 8 s up to their end. In each such second a room's
/// **level** is the loudest of its receivers' mean RSSI (dBm) over the adverts they heard in that
/// second; the second is **inverted** when a room other than the true one has the highest level (a
/// second no receiver heard is not). An **episode** is a run of inverted in-room seconds. The same
/// with **3-s means**: each receiver's mean over the adverts of that second and the two before. The
/// room's own receivers are **silent** when none of them hears an advert for 1.5 s or more inside
/// a run of in-room seconds. The **packet rate** is, per recording and receiver, the adverts it heard
/// in in-room seconds over their number; the figure is the median over every (recording,
/// receiver). Percentiles interpolate linearly between ranks.
public struct SignalFigures: Sendable, Hashable, Codable {
    /// The median of every (recording, receiver)'s adverts heard per in-room second.
    public var packetsPerSecondPerReceiver: Double
    /// In-room seconds, summed over the recordings.
    public var inRoomSeconds: Int
    /// Share of in-room seconds when another room is the loudest.
    public var invertedShare: Double
    /// Figures of the runs of inverted seconds, per-second levels.
    public var episodes: Episodes
    /// The same with 3-s means.
    public var episodesOf3sMeans: Episodes
    /// The true room's receivers silent for 1.5 s or more: per hour, and the gaps' lengths.
    public var ownRoomSilentPerHour: Double
    public var ownRoomSilentLength: [Double]

    public struct Episodes: Sendable, Hashable, Codable {
        public var perHour: Double
        /// Median, p90 and p99 of the episodes' lengths, seconds (empty without episodes).
        public var length: [Double]
        /// Episodes lasting at least 3, 6 and 10 s, per hour.
        public var atLeast3s6s10sPerHour: [Double]
    }

    /// One recording of one beacon: its advertisements (any order; published rows are skipped)
    /// and its truth rows in time order.
    public struct Recording: Sendable {
        public var samples: [TraceSample]
        public var truth: [TruthSample]
        public init(samples: [TraceSample], truth: [TruthSample]) {
            self.samples = samples
            self.truth = truth
        }
    }

    /// How long the true room must have held, seconds.
    public static let settled = 8.0
    /// The shortest silence counted, seconds.
    public static let silence = 1.5

    /// The figures of a set of recordings pooled (each beacon of each recording with its own truth).
    public init(_ recordings: [Recording]) {
        var rates: [Double] = []
        var seconds = 0, inverted = 0
        var episodes: [Double] = [], episodes3: [Double] = [], gaps: [Double] = []
        for recording in recordings {
            let figures = Self.measure(recording)
            rates += figures.rates
            seconds += figures.seconds
            inverted += figures.inverted
            episodes += figures.episodes
            episodes3 += figures.episodes3
            gaps += figures.gaps
        }
        let hours = Double(seconds) / 3600
        func perHour(_ count: Int) -> Double { hours > 0 ? Double(count) / hours : 0 }
        func summary(_ lengths: [Double]) -> Episodes {
            Episodes(perHour: perHour(lengths.count), length: Self.percentiles(lengths, [0.5, 0.9, 0.99]),
                     atLeast3s6s10sPerHour: [3.0, 6, 10].map { floor in perHour(lengths.filter { $0 >= floor }.count) })
        }
        packetsPerSecondPerReceiver = Self.percentiles(rates, [0.5]).first ?? 0
        inRoomSeconds = seconds
        invertedShare = seconds > 0 ? Double(inverted) / Double(seconds) : 0
        self.episodes = summary(episodes)
        episodesOf3sMeans = summary(episodes3)
        ownRoomSilentPerHour = perHour(gaps.count)
        ownRoomSilentLength = Self.percentiles(gaps, [0.5, 0.9])
    }

    /// Linear-interpolated percentiles (numpy's default) of `values`; empty when there are none.
    static func percentiles(_ values: [Double], _ ranks: [Double]) -> [Double] {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return [] }
        return ranks.map { rank in
            let position = rank * Double(sorted.count - 1)
            let low = Int(position)
            let high = min(low + 1, sorted.count - 1)
            return sorted[low] + (sorted[high] - sorted[low]) * (position - Double(low))
        }
    }

    private struct Measured {
        var rates: [Double] = []
        var seconds = 0
        var inverted = 0
        var episodes: [Double] = []
        var episodes3: [Double] = []
        var gaps: [Double] = []
    }

    /// The truth room of every whole second that is an in-room second, by second index from `start`.
    static func inRoomSeconds(truth: [TruthSample], start: Double, count: Int) -> [String?] {
        var rooms = [String?](repeating: nil, count: count)
        guard !truth.isEmpty else { return rooms }
        var next = 0
        var lastChange = -Double.infinity
        var room: String?
        for second in 0..<count {
            let end = start + Double(second + 1)
            while next < truth.count, truth[next].time.seconds <= end {
                if let room, truth[next].room != room { lastChange = truth[next].time.seconds }
                room = truth[next].room
                next += 1
            }
            // Past the truth's end the room is not known.
            guard next < truth.count || end <= truth[truth.count - 1].time.seconds + 1, let room,
                truth[0].time.seconds <= end - settled, end - lastChange >= settled
            else { continue }
            rooms[second] = room
        }
        return rooms
    }

    private static func measure(_ recording: Recording) -> Measured {
        var result = Measured()
        let heard = recording.samples.filter { $0.publication == nil }.sorted { $0.time < $1.time }
        guard let first = heard.first, let last = heard.last else { return result }
        let start = first.time.seconds.rounded(.down)
        let count = Int(last.time.seconds - start) + 1
        let rooms = inRoomSeconds(truth: recording.truth, start: start, count: count)
        var nodeIndex: [String: Int] = [:]
        var roomOfNode: [String] = []
        for sample in heard where nodeIndex[sample.node] == nil {
            nodeIndex[sample.node] = roomOfNode.count
            roomOfNode.append(sample.room)
        }
        let nodes = roomOfNode.count
        // Per second and node: RSSI sum and count.
        var sums = [Double](repeating: 0, count: count * nodes)
        var counts = [Int](repeating: 0, count: count * nodes)
        for sample in heard {
            let second = Int(sample.time.seconds - start)
            let node = nodeIndex[sample.node]!
            sums[second * nodes + node] += Double(sample.rssi)
            counts[second * nodes + node] += 1
        }
        let inRoom = rooms.indices.filter { rooms[$0] != nil }
        result.seconds = inRoom.count
        guard !inRoom.isEmpty else { return result }
        for node in 0..<nodes {
            let packets = inRoom.reduce(0) { $0 + counts[$1 * nodes + node] }
            result.rates.append(Double(packets) / Double(inRoom.count))
        }
        // The loudest room of a second from per-node means over `window` seconds ending there.
        func loudest(_ second: Int, window: Int) -> String? {
            var best: (room: String, level: Double)?
            for node in 0..<nodes {
                var sum = 0.0, heardCount = 0
                for back in 0..<window where second - back >= 0 {
                    sum += sums[(second - back) * nodes + node]
                    heardCount += counts[(second - back) * nodes + node]
                }
                guard heardCount > 0 else { continue }
                let level = sum / Double(heardCount)
                if best.map({ level > $0.level }) ?? true { best = (roomOfNode[node], level) }
            }
            return best?.room
        }
        func runs(window: Int) -> (inverted: Int, lengths: [Double]) {
            var inverted = 0, run = 0
            var lengths: [Double] = []
            for second in 0..<count {
                let isInverted: Bool
                if let room = rooms[second], let top = loudest(second, window: window) {
                    isInverted = top != room
                } else {
                    isInverted = false
                }
                if isInverted {
                    inverted += 1
                    run += 1
                } else if run > 0 {
                    lengths.append(Double(run))
                    run = 0
                }
            }
            if run > 0 { lengths.append(Double(run)) }
            return (inverted, lengths)
        }
        let perSecond = runs(window: 1)
        result.inverted = perSecond.inverted
        result.episodes = perSecond.lengths
        result.episodes3 = runs(window: 3).lengths
        // Silences of the true room's receivers inside runs of in-room seconds.
        var second = 0
        while second < count {
            guard let room = rooms[second] else {
                second += 1
                continue
            }
            var end = second
            while end + 1 < count, rooms[end + 1] == room { end += 1 }
            let from = start + Double(second), to = start + Double(end + 1)
            var previous = from
            for sample in heard where sample.room == room && sample.time.seconds >= from && sample.time.seconds < to {
                if sample.time.seconds - previous >= silence { result.gaps.append(sample.time.seconds - previous) }
                previous = sample.time.seconds
            }
            if to - previous >= silence { result.gaps.append(to - previous) }
            second = end + 1
        }
        return result
    }
}
