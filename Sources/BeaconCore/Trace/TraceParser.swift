/// Parses a trace CSV (docs/Files.md) one line at a time: header first (required; columns found by
/// name, others ignored), then samples with non-decreasing time. Every error names the line.
public struct TraceParser: Sendable {
    /// The columns every trace must have; others are ignored, `measuredPower` and a recorded trace's
    /// `proximity`, `rssiFiltered`, `distance` and `rssiAdvert` are read when present (a trace recorded
    /// while agents reported a worn beacon's rises also has `rise` and `riseRssi`, ignored as the rest).
    public static let requiredColumns = ["time", "node", "room", "beacon", "rssi"]

    private var columns: (time: Int, node: Int, room: Int, beacon: Int, rssi: Int, measuredPower: Int?)?
    /// The columns of a recorded trace of published measurements (`proximity` present).
    private var publicationColumns: PublicationColumns?
    private struct PublicationColumns {
        var proximity: Int, rssiFiltered: Int?, distance: Int?, rssiAdvert: Int?
    }
    private var fieldCount = 0
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

    /// Feeds the next line (without its newline). Returns the sample it holds, or nil for the header
    /// and for blank lines.
    public mutating func parse(line: Substring) throws(TraceError) -> TraceSample? {
        linesRead += 1
        let number = linesRead
        guard let columns else {
            let header = try CSVHeader(line: line, required: Self.requiredColumns)
            self.columns = (header.index(of: "time") ?? 0, header.index(of: "node") ?? 0,
                            header.index(of: "room") ?? 0, header.index(of: "beacon") ?? 0,
                            header.index(of: "rssi") ?? 0, header.index(of: "measuredPower"))
            if let proximity = header.index(of: "proximity") {
                publicationColumns = PublicationColumns(
                    proximity: proximity, rssiFiltered: header.index(of: "rssiFiltered"), distance: header.index(of: "distance"),
                    rssiAdvert: header.index(of: "rssiAdvert"))
            }
            fieldCount = header.names.count
            return nil
        }
        if line.trimmingSpaces().isEmpty { return nil }
        let fields = CSVHeader.fields(of: line)
        func field(_ index: Int, _ name: String) throws(TraceError) -> Substring {
            guard index < fields.count else {
                throw TraceError(line: number, problem: "\(name) missing (\(fields.count) fields, header has \(fieldCount))")
            }
            return fields[index].trimmingSpaces()
        }
        func id(_ index: Int, _ name: String) throws(TraceError) -> String {
            let text = try field(index, name)
            guard !text.isEmpty else { throw TraceError(line: number, problem: "\(name) is empty") }
            return String(text)
        }
        let timeText = try field(columns.time, "time")
        let time = try timeColumn.time(timeText, line: number)
        let node = try id(columns.node, "node")
        let room = try id(columns.room, "room")
        // Rooms name topics (`<root>/rooms/<room>`) and a site model's rooms: one spelled otherwise
        // would be a room nobody can configure, so it is named here rather than carried along.
        guard TopicLevelID.isValid(room) else {
            throw TraceError(line: number, problem: "room '\(room)' is not a room name (\(TopicLevelID.rule))")
        }
        let beacon = try id(columns.beacon, "beacon")
        let rssi = try Self.integer(try field(columns.rssi, "rssi"), name: "rssi", line: number)
        var measuredPower: Int?
        if let index = columns.measuredPower {
            let text = try field(index, "measuredPower")
            if !text.isEmpty { measuredPower = try Self.integer(text, name: "measuredPower", line: number) }
        }
        var publication: RecordedMeasurement?
        if let columns = publicationColumns {
            publication = try Self.publication(columns, field: field, line: number)
            // Recorded before `rssiAdvert` existed: the `rssi` column (the filtered RSSI's whole
            // dBm) stands for the advert, as replay read such a trace then.
            if columns.rssiAdvert == nil, publication?.rssiFiltered != nil { publication?.rssi = Double(rssi) }
        }
        timeColumn.accept(time)
        return TraceSample(time: Instant(seconds: time), node: node, room: room, beacon: BeaconID(rawValue: beacon),
                           rssi: rssi, measuredPower: measuredPower, publication: publication)
    }

    /// The published fields of a recorded trace's line: proximity required, the rest optional
    /// numbers, and a distance unless the proximity is `unknown`.
    private static func publication(
        _ columns: PublicationColumns,
        field: (Int, String) throws(TraceError) -> Substring, line: Int
    ) throws(TraceError) -> RecordedMeasurement {
        let text = try field(columns.proximity, "proximity")
        guard let proximity = Proximity(rawValue: String(text)) else {
            throw TraceError(line: line, problem: "proximity '\(text)' is not immediate, near, far or unknown")
        }
        func number(_ index: Int?, _ name: String) throws(TraceError) -> Double? {
            guard let index else { return nil }
            let text = try field(index, name)
            if text.isEmpty { return nil }
            guard let value = Double(text), value.isFinite, abs(value) <= 100_000 else {
                throw TraceError(line: line, problem: "\(name) '\(text)' is not a number")
            }
            return value
        }
        let rssiFiltered = try number(columns.rssiFiltered, "rssiFiltered")
        let distance = try number(columns.distance, "distance")
        if let distance, distance < 0 { throw TraceError(line: line, problem: "distance '\(distance)' is negative") }
        guard distance != nil || proximity == .unknown else {
            throw TraceError(line: line, problem: "distance is empty but proximity is \(proximity.rawValue)")
        }
        let rssi = try number(columns.rssiAdvert, "rssiAdvert")
        return RecordedMeasurement(rssiFiltered: rssiFiltered, distance: distance, proximity: proximity, rssi: rssi)
    }

    /// dBm as an integer; "-71.0" is accepted, "-71.5", "abc" and values beyond ±1000 are not.
    static func integer(_ text: Substring, name: String, line: Int) throws(TraceError) -> Int {
        if let value = Int(text), abs(value) <= 1000 { return value }
        guard let value = Double(text), value.isFinite else {
            throw TraceError(line: line, problem: "\(name) '\(text)' is not a number")
        }
        guard value == value.rounded(), abs(value) <= 1000 else {
            throw TraceError(line: line, problem: "\(name) '\(text)' is not a whole dBm value in -1000...1000")
        }
        return Int(value)
    }
}
