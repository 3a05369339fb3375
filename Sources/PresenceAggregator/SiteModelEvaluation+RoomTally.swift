import BeaconCore
import RoomDecisions

extension SiteModelEvaluation {
    /// Truth rows counted per true room (and per true floor, where the truth gives floors): how many,
    /// and how many the decision had right (for a floor: a decided room on that floor). What `learn`
    /// judges the model by room and by floor with, and how it finds the rooms that need more walking.
    public struct RoomTally: Sendable, Hashable {
        public var rows: [String: Int] = [:]
        public var correct: [String: Int] = [:]
        public var floorRows: [String: Int] = [:]
        public var floorCorrect: [String: Int] = [:]
        /// Per room, the seconds of truth it held (rows weighted by the time to the next row).
        public var seconds: [String: Double] = [:]

        public init() {}

        /// Counts one beacon's decisions (time order) against its truth rows; `floors` maps rooms
        /// to floors (the truth's own floors and the configured ones).
        public mutating func add(decisions: [(time: Instant, room: String)], truth: [TruthSample], floors: [String: String]) {
            var next = 0
            var current: String?
            for (index, row) in truth.enumerated() {
                while next < decisions.count, decisions[next].time <= row.time {
                    current = decisions[next].room
                    next += 1
                }
                guard row.room != RoomDecision.notHome else { continue }
                rows[row.room, default: 0] += 1
                if current == row.room { correct[row.room, default: 0] += 1 }
                if index + 1 < truth.count { seconds[row.room, default: 0] += truth[index + 1].time.since(row.time) }
                if let floor = row.floor ?? floors[row.room] {
                    floorRows[floor, default: 0] += 1
                    if let current, (floors[current] ?? nil) == floor { floorCorrect[floor, default: 0] += 1 }
                }
            }
        }

        /// Two tallies as one.
        public mutating func add(_ other: RoomTally) {
            rows.merge(other.rows, uniquingKeysWith: +)
            correct.merge(other.correct, uniquingKeysWith: +)
            floorRows.merge(other.floorRows, uniquingKeysWith: +)
            floorCorrect.merge(other.floorCorrect, uniquingKeysWith: +)
            seconds.merge(other.seconds, uniquingKeysWith: +)
        }

        /// Share of a room's rows decided right, nil for a room never true.
        public func accuracy(room: String) -> Double? {
            rows[room].map { Double(correct[room] ?? 0) / Double(max($0, 1)) }
        }

        /// Share of a floor's rows decided on that floor, nil for a floor never true.
        public func accuracy(floor: String) -> Double? {
            floorRows[floor].map { Double(floorCorrect[floor] ?? 0) / Double(max($0, 1)) }
        }

        /// Share of all rows with a known floor decided on the right floor; nil without floors.
        public var floorAccuracy: Double? {
            let total = floorRows.values.reduce(0, +)
            return total == 0 ? nil : Double(floorCorrect.values.reduce(0, +)) / Double(total)
        }
    }
}
