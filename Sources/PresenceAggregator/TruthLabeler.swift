import BeaconCore
import RoomDecisions

/// The ground truth of a walk as the person walking states it (`presence-aggregator label`): each
/// line names the room being entered, and the labeller turns that into docs/Files.md truth rows
/// `time,beacon,room`, on the clock it is given — the aggregator's, Unix seconds, which stamps a
/// `run --record` trace — so the two files share their origin by construction.
///
/// Scoring happens at truth rows, so the truth is dense: while a room holds, a row every
/// `interval` seconds (written when the next room is entered or the walk ends, since only then is
/// the span known), and one at each entry.
public struct TruthLabeler: Sendable {
    /// Why a line was not taken (nothing is written for it).
    public struct LineError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public let beacon: BeaconID
    /// Rooms the operator may name (and number, from 1), empty for any valid room id.
    public let rooms: [String]
    public let interval: Double
    public private(set) var current: (room: String, since: Instant)?

    public init(beacon: BeaconID, rooms: [String] = [], interval: Double = 0.5) {
        self.beacon = beacon
        self.rooms = rooms
        self.interval = interval.isFinite && interval > 0 ? interval : 0.5
    }

    /// The room a typed line names: a room name, or its number in `rooms`; nil for a blank line.
    public func room(named line: String) throws(LineError) -> String? {
        let text = String(line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).first ?? "")
        guard !text.isEmpty else { return nil }
        if let number = Int(text), !rooms.isEmpty {
            guard rooms.indices.contains(number - 1) else {
                throw LineError(description: "no room number \(number) (1–\(rooms.count))")
            }
            return rooms[number - 1]
        }
        guard TopicLevelID.isValid(text) else { throw LineError(description: "'\(text)' is not a room id") }
        guard rooms.isEmpty || rooms.contains(text) || text == RoomDecision.notHome else {
            throw LineError(description: "'\(text)' is not one of \(rooms.joined(separator: ", "))")
        }
        return text
    }

    /// The person enters `room` at `time`: the rows of the room left (up to `time`) and the entry's row.
    public mutating func enter(_ room: String, at time: Instant) -> [TruthSample] {
        var rows = fill(until: time)
        if let current, time < current.since { return rows }
        rows.append(TruthSample(time: time, beacon: beacon, room: room))
        current = (room, time)
        return rows
    }

    /// The walk ends at `time`: the last room's rows up to and including `time`.
    public mutating func finish(at time: Instant) -> [TruthSample] {
        var rows = fill(until: time)
        if let current, time > current.since { rows.append(TruthSample(time: time, beacon: beacon, room: current.room)) }
        current = nil
        return rows
    }

    /// Rows of the current room every `interval` after its entry, before `time`.
    private func fill(until time: Instant) -> [TruthSample] {
        guard let current else { return [] }
        var rows: [TruthSample] = []
        var step = 1
        while true {
            let at = current.since.advanced(by: Double(step) * interval)
            guard at < time else { break }
            rows.append(TruthSample(time: at, beacon: beacon, room: current.room))
            step += 1
        }
        return rows
    }

    public static let header = "time,beacon,room"

    /// One row as the truth file holds it.
    public static func row(_ sample: TruthSample) -> String {
        "\(ReplayCSV.fixed(sample.time.seconds, decimals: 3)),\(sample.beacon.rawValue),\(sample.room)"
    }
}
