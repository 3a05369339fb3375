import BeaconCore
import RoomDecisions
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Motion sensors simulated from a recording's truth, one PIR per room, to see what motion does
/// to a decision on walks that had none (`presence-bench evaluate --motion`; issue 37).
///
/// Each person (a beacon of the truth) triggers the sensor of the room they are in: on entry (seen
/// with `entryDetection`, after `entryDelay`), and while there as a Poisson process whose rate is
/// drawn per visit — `movingRate` while moving, `stillRate` for a visit spent still (share
/// `stillShare`): a PIR sees movement, not presence. The sensor of a room the truth moves to or
/// from directly (a neighbour, through a doorway) triggers at `doorwayRate` while someone is next
/// door; any sensor at `falseRate`. A trigger holds the sensor on for `hold` seconds, and a new one
/// extends it (a PIR's retrigger). Seeded by the recording's name, so runs repeat.
///
/// The defaults were set so that on the shared walks the figures the issue measured on a real
/// house come out about the same (`Figures`): the true room's sensor active within the last
/// 10 s 58 % of the labelled seconds and within 30 s 79 %, another room's within 10 s 23 %.
public struct SimulatedMotion: Sendable, Hashable {
    public var entryDetection: Double
    public var entryDelay: ClosedRange<Double>
    public var movingRate: Double
    public var stillRate: Double
    public var stillShare: Double
    public var doorwayRate: Double
    public var falseRate: Double
    public var hold: Double
    /// Simulation step, seconds.
    public var step: Double

    public init(entryDetection: Double = 0.8, entryDelay: ClosedRange<Double> = 0.3...2.5, movingRate: Double = 0.05,
                stillRate: Double = 0.005, stillShare: Double = 0.3, doorwayRate: Double = 0.01, falseRate: Double = 0.0005,
                hold: Double = 5, step: Double = 0.25) {
        self.entryDetection = entryDetection
        self.entryDelay = entryDelay
        self.movingRate = movingRate
        self.stillRate = stillRate
        self.stillShare = stillShare
        self.doorwayRate = doorwayRate
        self.falseRate = falseRate
        self.hold = hold
        self.step = step
    }

    /// The motion file rows of a recording: changes of each of `rooms`' sensors (every room of the
    /// truth besides), in time order, over the truth's time span.
    public func motion(truth: [TruthSample], rooms: Set<String>, name: String) -> [MotionSample] {
        let labelled = truth.filter { $0.room != RoomDecision.notHome }
        guard let start = truth.first?.time.seconds, let end = truth.last?.time.seconds, end > start else { return [] }
        let allRooms = rooms.union(labelled.map(\.room)).subtracting([RoomDecision.notHome]).sorted()
        let neighbours = Self.neighbours(truth)
        var draws = SeededDraws(seed: SeededDraws.seed("motion:" + name))
        let byBeacon = Dictionary(grouping: truth, by: \.beacon).sorted { $0.key < $1.key }
        var triggers: [String: [Double]] = [:]
        for (_, rows) in byBeacon {
            var index = 0
            var room: String?
            var rate = movingRate
            var time = rows[0].time.seconds
            while time <= end {
                while index + 1 < rows.count, rows[index + 1].time.seconds <= time { index += 1 }
                let now = rows[index].room == RoomDecision.notHome ? nil : rows[index].room
                if now != room {
                    room = now
                    rate = draws.generator.unit() < stillShare ? stillRate : movingRate
                    if let now, draws.generator.unit() < entryDetection {
                        triggers[now, default: []].append(time + draws.uniform(in: entryDelay))
                    }
                }
                if let room {
                    if draws.generator.unit() < rate * step { triggers[room, default: []].append(time) }
                    // In name order: a Set's order differs between instances, and the draws must repeat.
                    for other in (neighbours[room] ?? []).sorted() where draws.generator.unit() < doorwayRate * step {
                        triggers[other, default: []].append(time)
                    }
                }
                time += step
            }
        }
        var time = start
        while time <= end {
            for room in allRooms where draws.generator.unit() < falseRate * step { triggers[room, default: []].append(time) }
            time += step
        }
        var samples: [MotionSample] = []
        for room in allRooms {
            let times = (triggers[room] ?? []).sorted()
            var on: (start: Double, end: Double)?
            for trigger in times {
                if let current = on, trigger <= current.end {
                    on = (current.start, trigger + hold)
                } else {
                    if let current = on { samples += Self.rows(room, current) }
                    on = (trigger, trigger + hold)
                }
            }
            if let current = on { samples += Self.rows(room, current) }
        }
        // Stable: equal times keep room order, and a clear before a start at the same time.
        return samples.enumerated().sorted {
            ($0.element.time.seconds, $0.element.occupied ? 1 : 0, $0.offset) < ($1.element.time.seconds, $1.element.occupied ? 1 : 0, $1.offset)
        }.map(\.element)
    }

    private static func rows(_ room: String, _ on: (start: Double, end: Double)) -> [MotionSample] {
        [MotionSample(time: Instant(seconds: Self.millis(on.start)), room: room, occupied: true),
         MotionSample(time: Instant(seconds: Self.millis(on.end)), room: room, occupied: false)]
    }

    /// On the millisecond, as a motion file writes time.
    static func millis(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    /// Rooms the truth moves between directly: next door to each other.
    static func neighbours(_ truth: [TruthSample]) -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        for (_, rows) in Dictionary(grouping: truth, by: \.beacon) {
            for (before, after) in zip(rows, rows.dropFirst()) where before.room != after.room {
                guard before.room != RoomDecision.notHome, after.room != RoomDecision.notHome else { continue }
                result[before.room, default: []].insert(after.room)
                result[after.room, default: []].insert(before.room)
            }
        }
        return result
    }

    /// The figures measured on a recording's truth and motion, per labelled second: how
    /// often the true room's sensor was active within the last 10 s and 30 s, and another room's within 10 s.
    public struct Figures: Sendable, Hashable {
        public var seconds = 0
        public var trueWithin10 = 0
        public var trueWithin30 = 0
        public var otherWithin10 = 0

        public init() {}

        public mutating func add(_ other: Figures) {
            seconds += other.seconds
            trueWithin10 += other.trueWithin10
            trueWithin30 += other.trueWithin30
            otherWithin10 += other.otherWithin10
        }

        public func share(_ count: Int) -> Double { seconds > 0 ? Double(count) / Double(seconds) : 0 }
    }

    public static func figures(truth: [TruthSample], motion: [MotionSample]) -> Figures {
        // Per room, its on-intervals.
        var intervals: [String: [(Double, Double)]] = [:]
        var onSince: [String: Double] = [:]
        for row in motion {
            if row.occupied { onSince[row.room] = onSince[row.room] ?? row.time.seconds } else if let start = onSince.removeValue(forKey: row.room) {
                intervals[row.room, default: []].append((start, row.time.seconds))
            }
        }
        for (room, start) in onSince { intervals[room, default: []].append((start, .infinity)) }
        func active(_ room: String, from: Double, to: Double) -> Bool {
            intervals[room]?.contains { $0.0 <= to && $0.1 >= from } ?? false
        }
        var figures = Figures()
        for (_, rows) in Dictionary(grouping: truth, by: \.beacon) {
            guard let first = rows.first?.time.seconds, let last = rows.last?.time.seconds else { continue }
            var index = 0
            var time = first.rounded(.up)
            while time <= last {
                while index + 1 < rows.count, rows[index + 1].time.seconds <= time { index += 1 }
                let room = rows[index].room
                if room != RoomDecision.notHome {
                    figures.seconds += 1
                    if active(room, from: time - 10, to: time) { figures.trueWithin10 += 1 }
                    if active(room, from: time - 30, to: time) { figures.trueWithin30 += 1 }
                    if intervals.keys.contains(where: { $0 != room && active($0, from: time - 10, to: time) }) { figures.otherWithin10 += 1 }
                }
                time += 1
            }
        }
        return figures
    }
}
