import BeaconCore
import RoomDecisions

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A recording's advertisements as a tag worn on a body would have made them
/// (`presence-bench evaluate --worn-tag`, `signal-figures --worn-tag`): no shared recording has a
/// worn tag, and at home every tag is on a person (issue 40).
///
/// - **The wristband's packets.** The tag advertises every `interval` (0.2 s, 5 a second, with a
///   little jitter); a receiver hears each with probability `heard`, and none within `reportGap`
///   of the last it heard (the house's receivers heard 2.1 of 5 a second).
/// - **Where the signal comes from.** Each receiver's level at a packet is the recording's own: the
///   mean of that receiver's adverts within `levelWindow` of it (dBm; none within it, none heard),
///   plus a fresh draw of per-packet noise, `noise` dB (SD). The recording decides where the tag is;
///   the model decides how the body and the radio treat it.
/// - **The body.** The wearer faces one way. Still, they keep that heading for a spell of
///   exponential length (mean `stillSpell`), then turn to a new one (or, with `newHeading` below
///   one, shift in their seat by a little). Walking — from `walkBefore` before a true room change
///   to `walkAfter` after it — their heading and where each receiver lies around them change every
///   second. A receiver within `cone` of the wearer's back (the share `cone/π` of the directions)
///   is shadowed by the spell's depth (uniform in `depth`): fully in the inner part of the cone,
///   less over its outer share `taper`.
/// - **Deaf receivers.** A receiver is now and then deaf for a spell (mean `deafSpell`, every
///   `hearingSpell` on average): an ESP32 receiver shares its antenna with Wi-Fi, and the house's
///   own-room receivers fell silent for 1.5 s or more 24 times an hour.
/// - **Walls.** The house this is calibrated to has a wall between each receiver and the rooms it
///   does not serve, and the shared walks have few or none (an open hall, a kitchen open to the
///   living room): a receiver of another room than the wearer's is `wall` dB lower, easing in and
///   out over the walk through a door (from `walkBefore` before the true change to `walkAfter`
///   after it).
/// - **Weak packets are lost.** A packet whose RSSI falls below the recording's floor (the
///   `floorQuantile` of its adverts, the weakest its receivers reported) is not heard; within
///   `floorBand` above it, it is heard with a chance rising linearly to one.
///
/// Seeded by the recording's name (FNV-1a, SplitMix64), so a run repeats exactly. A recorded
/// trace's published rows are kept as they are: they come after a node's filter.
public struct WornTagSignal: Sendable, Hashable {
    /// The model's settings. The defaults are calibrated on the flat's and the hall's walks to the
    /// house's figures (the Room decisions article has the table, `presence-bench signal-figures
    /// --worn-tag` prints it).
    public struct Parameters: Sendable, Hashable {
        /// Seconds between the tag's advertisements.
        public var interval = 0.2
        /// Chance a receiver hears a packet at all.
        public var heard = 0.8
        /// A receiver hears no packet within this long of the last it heard, seconds.
        public var reportGap = 0.2
        /// How far from a packet a receiver's recorded adverts make its level, seconds.
        public var levelWindow = 4.0
        /// Per-packet noise, dB (SD).
        public var noise = 0.5
        /// A still spell's mean length, seconds.
        public var stillSpell = 90.0
        /// Walking spans a true room change from this long before it…
        public var walkBefore = 2.0
        /// …to this long after it.
        public var walkAfter = 2.0
        /// The body's shadow on a receiver right behind the wearer, dB (drawn per spell).
        public var depth: ClosedRange<Double> = 14...24
        /// Half-angle of the shadow behind the wearer, radians: full depth at the back, none at
        /// `cone` from it and beyond.
        public var cone = 40 * Double.pi / 180
        /// Of the cone, the outer share over which the shadow eases from full depth to none.
        public var taper = 0.5
        /// When a still spell ends, the wearer turns to a new heading with this chance; otherwise
        /// they shift in their seat, turning by a normal draw of SD `shift` (radians) and keeping
        /// the shadow's depth.
        public var newHeading = 1.0
        public var shift = 0.0
        /// A receiver's deaf spells (its radio busy elsewhere, as an ESP32's Wi-Fi shares its
        /// antenna), mean length, seconds; 0: never deaf.
        public var deafSpell = 2.0
        /// The mean time a receiver hears between two deaf spells, seconds.
        public var hearingSpell = 150.0
        /// A wall's loss to a receiver of another room than the wearer's, dB.
        public var wall = 8.0
        /// The recording's floor: this quantile of its adverts' RSSI.
        public var floorQuantile = 0.01
        /// Above the floor, a packet is heard with a chance rising over this many dB.
        public var floorBand = 6.0
        public init() {}
    }

    public var parameters: Parameters

    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// `samples` of a recording named `name` with truth `truth`, as the worn tag makes them, in
    /// time order. Every beacon of the recording is worn; rows of a recorded trace pass through.
    public func apply(to samples: [TraceSample], truth: [TruthSample], name: String) -> [TraceSample] {
        let published = samples.filter { $0.publication != nil }
        let heard = samples.filter { $0.publication == nil }.sorted { $0.time < $1.time }
        guard heard.count > 1 else { return samples }
        var random = SeededDraws(seed: SeededDraws.seed(name))
        let sortedRSSI = heard.map(\.rssi).sorted()
        let floor = Double(sortedRSSI[min(sortedRSSI.count - 1, Int(parameters.floorQuantile * Double(sortedRSSI.count)))])
        var output: [TraceSample] = []
        for beacon in Set(heard.map(\.beacon)).sorted() {
            let own = heard.filter { $0.beacon == beacon }
            let ownTruth = truth.filter { $0.beacon == beacon }
            output += wear(own, changes: Self.changes(in: ownTruth), firstRoom: ownTruth.first?.room, floor: floor,
                           random: &random)
        }
        output += published
        output.sort { $0.time < $1.time }
        return output
    }

    /// A true room change: when, from which room to which.
    struct Change {
        var time: Double
        var from: String
        var to: String
    }

    /// The true room changes of one beacon's truth.
    static func changes(in truth: [TruthSample]) -> [Change] {
        var changes: [Change] = []
        for index in truth.indices.dropFirst() where truth[index].room != truth[index - 1].room {
            changes.append(Change(time: truth[index].time.seconds, from: truth[index - 1].room, to: truth[index].room))
        }
        return changes
    }

    private func wear(_ samples: [TraceSample], changes: [Change], firstRoom: String?, floor: Double,
                      random: inout SeededDraws) -> [TraceSample] {
        guard let first = samples.first, let last = samples.last else { return [] }
        let p = parameters
        // Receivers in order of first appearance, with their adverts' times and RSSI.
        var order: [String] = []
        var byNode: [String: (room: String, times: [Double], rssi: [Double], prefix: [Double])] = [:]
        for sample in samples {
            if byNode[sample.node] == nil {
                order.append(sample.node)
                byNode[sample.node] = (sample.room, [], [], [0])
            }
            byNode[sample.node]!.times.append(sample.time.seconds)
            byNode[sample.node]!.rssi.append(Double(sample.rssi))
            byNode[sample.node]!.prefix.append(byNode[sample.node]!.prefix.last! + Double(sample.rssi))
        }
        let template = samples[0]
        // Where each receiver lies around the wearer: one bearing per room, as a room's receivers
        // stand together (the hall's clusters of three).
        let rooms = Array(Set(order.map { byNode[$0]!.room })).sorted()
        let roomOfNode = order.map { node in rooms.firstIndex(of: byNode[node]!.room)! }
        var bearings = rooms.map { _ in random.angle() }
        var heading = random.angle()
        var depth = random.uniform(in: p.depth)
        var spellEnd = first.time.seconds + random.exponential(mean: p.stillSpell)
        var nextWalkStep = -Double.infinity
        var lastHeard = [Double](repeating: -Double.infinity, count: order.count)
        // Each receiver's next deaf spell: from, until.
        var deaf = order.map { _ in
            p.deafSpell > 0 ? (first.time.seconds + random.exponential(mean: p.hearingSpell), -Double.infinity)
                : (Double.infinity, -Double.infinity)
        }
        var changeIndex = 0
        var output: [TraceSample] = []
        var time = first.time.seconds
        while time <= last.time.seconds {
            while changeIndex < changes.count, changes[changeIndex].time + p.walkAfter < time { changeIndex += 1 }
            let walking = changeIndex < changes.count && changes[changeIndex].time - p.walkBefore <= time
            // How much the wearer is in each room: in one, or passing from one to the next.
            var here: (from: String?, to: String?, share: Double)
            if walking {
                let change = changes[changeIndex]
                let share = (time - (change.time - p.walkBefore)) / max(p.walkBefore + p.walkAfter, 1e-9)
                here = (change.from, change.to, min(1, max(0, share)))
            } else {
                here = (changeIndex > 0 ? changes[changeIndex - 1].to : firstRoom, nil, 0)
            }
            if walking {
                if time >= nextWalkStep {
                    heading = random.angle()
                    bearings = rooms.map { _ in random.angle() }
                    depth = random.uniform(in: p.depth)
                    nextWalkStep = time + 1
                    spellEnd = time + 1 + random.exponential(mean: p.stillSpell)
                }
            } else if time >= spellEnd {
                if p.newHeading < 1, random.unit() >= p.newHeading {
                    heading += p.shift * random.gaussian()
                } else {
                    heading = random.angle()
                    depth = random.uniform(in: p.depth)
                }
                spellEnd = time + random.exponential(mean: p.stillSpell)
            }
            for (index, node) in order.enumerated() {
                let record = byNode[node]!
                // The receiver's recorded level around this packet.
                let low = Self.firstIndex(in: record.times, atLeast: time - p.levelWindow)
                let high = Self.firstIndex(in: record.times, atLeast: time + p.levelWindow)
                let heardDraw = random.unit()
                let noise = random.gaussian()
                let lossDraw = random.unit()
                if time >= deaf[index].0 {
                    deaf[index].1 = time + random.exponential(mean: p.deafSpell)
                    deaf[index].0 = deaf[index].1 + random.exponential(mean: p.hearingSpell)
                }
                guard time >= deaf[index].1, high > low, heardDraw < p.heard, time - lastHeard[index] >= p.reportGap else { continue }
                let level = (record.prefix[high] - record.prefix[low]) / Double(high - low)
                // Behind the wearer: the receiver's bearing seen from their back.
                var off = abs(remainder(bearings[roomOfNode[index]] - heading - Double.pi, 2 * Double.pi))
                off = min(off, 2 * Double.pi - off)
                let shadow = depth * min(1, max(0, (1 - off / p.cone) / max(p.taper, 1e-9)))
                let inRoom = record.room == here.from ? 1 - here.share : record.room == here.to ? here.share : 0
                let rssi = level + p.noise * noise - shadow - p.wall * (1 - inRoom)
                guard rssi >= floor, lossDraw < min(1, (rssi - floor) / max(p.floorBand, 1e-9)) else { continue }
                lastHeard[index] = time
                var sample = template
                sample.time = Instant(seconds: time)
                sample.node = node
                sample.room = record.room
                sample.rssi = max(-127, Int(rssi.rounded()))
                output.append(sample)
            }
            time += p.interval * (0.95 + 0.1 * random.unit())
        }
        return output
    }

    /// The first index of `times` (ascending) at or after `time`.
    static func firstIndex(in times: [Double], atLeast time: Double) -> Int {
        var low = 0, high = times.count
        while low < high {
            let middle = (low + high) / 2
            if times[middle] < time { low = middle + 1 } else { high = middle }
        }
        return low
    }

}
