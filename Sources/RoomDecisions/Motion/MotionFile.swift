import BeaconCore

/// One row of a motion file (`NAME.motion.csv` beside `NAME.trace.csv`; docs/Files.md "Motion
/// file"): at `time` (seconds on the trace's clock) the sensors of `room` start reporting motion
/// (`occupied` true, written 1) or clear (false, written 0).
public struct MotionSample: Sendable, Hashable {
    public var time: Instant
    public var room: String
    public var occupied: Bool

    public init(time: Instant, room: String, occupied: Bool) {
        self.time = time
        self.room = room
        self.occupied = occupied
    }
}

/// Parses a motion file (`time,room,occupied`) one line at a time, like `TruthParser`: rows in time
/// order (a time before the previous row's is an error), rooms topic-level ids, `occupied` 1 or 0.
/// Extra columns are ignored. Every error names its line.
public struct MotionFileParser: Sendable {
    public static let header = "time,room,occupied"
    public static let requiredColumns = ["time", "room", "occupied"]

    private var columns: (time: Int, room: Int, occupied: Int)?
    private var lastTime = -Double.infinity
    public private(set) var linesRead = 0

    public init() {}

    /// Feeds the next line; returns its row, or nil for the header and blank lines.
    public mutating func parse(line: Substring) throws(TraceError) -> MotionSample? {
        linesRead += 1
        let number = linesRead
        guard let columns else {
            let header = try CSVHeader(line: line, required: Self.requiredColumns)
            self.columns = (header.index(of: "time") ?? 0, header.index(of: "room") ?? 0, header.index(of: "occupied") ?? 0)
            return nil
        }
        if line.trimmingSpaces().isEmpty { return nil }
        let fields = CSVHeader.fields(of: line)
        guard max(columns.time, columns.room, columns.occupied) < fields.count else {
            throw TraceError(line: number, problem: "too few fields (\(fields.count))")
        }
        let timeText = fields[columns.time]
        guard let time = Double(timeText), time.isFinite else {
            throw TraceError(line: number, problem: "time '\(timeText.prefix(40))' is not a number")
        }
        guard time >= lastTime else {
            throw TraceError(line: number, problem: "time goes backwards (\(timeText) < \(ReplayNumber.text(lastTime)))")
        }
        let room = String(fields[columns.room])
        guard TopicLevelID.isValid(room), room != RoomDecision.notHome else {
            throw TraceError(line: number, problem: "room '\(room.prefix(40))' is not a room name (\(TopicLevelID.rule); not not_home)")
        }
        let occupied: Bool
        switch fields[columns.occupied] {
        case "1": occupied = true
        case "0": occupied = false
        case let other: throw TraceError(line: number, problem: "occupied '\(other.prefix(40))' is not 1 or 0")
        }
        lastTime = time
        return MotionSample(time: Instant(seconds: time), room: room, occupied: occupied)
    }

    /// One row as the file writes it: `12.500,hall,1`.
    public static func row(_ sample: MotionSample) -> String {
        "\(ReplayNumber.text(sample.time.seconds)),\(sample.room),\(sample.occupied ? 1 : 0)"
    }

    /// The motion file beside a trace: `NAME.trace.csv` → `NAME.motion.csv`; any other name gets
    /// `.motion.csv` in place of a final `.csv`, or after it.
    public static func path(besideTrace trace: String) -> String {
        if trace.hasSuffix(".trace.csv") { return String(trace.dropLast(".trace.csv".count)) + ".motion.csv" }
        if trace.hasSuffix(".csv") { return String(trace.dropLast(".csv".count)) + ".motion.csv" }
        return trace + ".motion.csv"
    }
}

/// Seconds with three decimals, as every trace file writes time.
enum ReplayNumber {
    static func text(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        let millis = (abs(value) * 1000).rounded()
        let whole = Int64(millis / 1000), fraction = Int64(millis.truncatingRemainder(dividingBy: 1000))
        let digits = String(fraction)
        return (value < 0 && millis != 0 ? "-" : "") + "\(whole)." + String(repeating: "0", count: 3 - digits.count) + digits
    }
}
