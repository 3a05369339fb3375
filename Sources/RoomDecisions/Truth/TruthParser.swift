import BeaconCore

/// Parses a ground-truth CSV (`time,beacon,room`; docs/Files.md) one line at a time, like `TraceParser`.
///
/// An optional `floor` column gives the room's floor (empty: not given), which `learn` writes into
/// the site model. Rooms and floors are published (rooms name topics), so each must be a topic-level
/// id (`not_home` is a room, never a floor), and a room keeps one floor throughout the file: a line
/// that puts it on another is an error naming both lines.
public struct TruthParser: Sendable {
    /// The columns every truth file must have.
    public static let requiredColumns = ["time", "beacon", "room"]

    private var columns: (time: Int, beacon: Int, room: Int, floor: Int?)?
    /// Per room, its floor and the line that first gave it (a reader checks other files against it).
    public private(set) var floors: [String: (floor: String, line: Int)] = [:]
    /// Rooms a malformed room name is compared with, to say which was meant (the trace's rooms),
    /// beside the rooms the file named before it.
    public var knownRooms: Set<String> = []
    private var namedRooms: Set<String> = []
    private var timeColumn: TraceTimeColumn
    /// Lines consumed so far (the next line is `linesRead + 1`).
    public private(set) var linesRead = 0
    /// Samples whose time was up to `reorderTolerance` before the previous one and were taken at
    /// the previous time instead (receivers' clocks jitter by a millisecond; the recordings in data/ have such lines).
    public var reorderedLines: Int { timeColumn.reorderedLines }
    /// How far (seconds) a time may go backwards and still be accepted, clamped; default 10 ms.
    /// Anything further back is an error.
    public var reorderTolerance: Double { timeColumn.reorderTolerance }

    /// Creates a parser that expects the header line first.
    public init(reorderTolerance: Double = 0.01) {
        timeColumn = TraceTimeColumn(reorderTolerance: reorderTolerance)
    }

    /// Feeds the next line; returns its row, or nil for the header and blank lines.
    public mutating func parse(line: Substring) throws(TraceError) -> TruthSample? {
        linesRead += 1
        let number = linesRead
        guard let columns else {
            let header = try CSVHeader(line: line, required: Self.requiredColumns)
            self.columns = (header.index(of: "time") ?? 0, header.index(of: "beacon") ?? 0, header.index(of: "room") ?? 0,
                            header.index(of: "floor"))
            return nil
        }
        if line.trimmingSpaces().isEmpty { return nil }
        let fields = CSVHeader.fields(of: line)
        let needed = max(columns.time, columns.beacon, columns.room)
        guard needed < fields.count else {
            throw TraceError(line: number, problem: "too few fields (\(fields.count))")
        }
        let timeText = fields[columns.time].trimmingSpaces()
        let time = try timeColumn.time(timeText, line: number)
        let beacon = fields[columns.beacon].trimmingSpaces()
        let room = fields[columns.room].trimmingSpaces()
        guard !beacon.isEmpty else { throw TraceError(line: number, problem: "beacon is empty") }
        guard !room.isEmpty else { throw TraceError(line: number, problem: "room is empty") }
        guard TopicLevelID.isValid(String(room)) else {
            let meant = RoomNameSuggestion.closest(to: String(room), among: knownRooms.union(namedRooms)).map { "; did you mean '\($0)'?" } ?? ""
            throw TraceError(line: number, problem: "room '\(room)' is not a room name (\(TopicLevelID.rule))\(meant)")
        }
        var floor: String?
        if let column = columns.floor, column < fields.count {
            let text = String(fields[column].trimmingSpaces())
            if !text.isEmpty {
                guard TopicLevelID.isValid(text), text != RoomDecision.notHome else {
                    throw TraceError(line: number, problem: "floor '\(text)' is not a floor name (\(TopicLevelID.rule); not not_home)")
                }
                guard room != RoomDecision.notHome else {
                    throw TraceError(line: number, problem: "not_home has no floor (floor '\(text)')")
                }
                if let known = floors[String(room)], known.floor != text {
                    throw TraceError(line: number, problem: "room '\(room)' is on floor '\(text)' here but on '\(known.floor)' on line \(known.line)")
                }
                if floors[String(room)] == nil { floors[String(room)] = (text, number) }
                floor = text
            }
        }
        timeColumn.accept(time)
        if !namedRooms.contains(String(room)) { namedRooms.insert(String(room)) }
        return TruthSample(time: Instant(seconds: time), beacon: BeaconID(rawValue: String(beacon)), room: String(room), floor: floor)
    }
}
