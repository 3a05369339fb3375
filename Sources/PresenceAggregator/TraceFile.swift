#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BeaconCore
import RoomDecisions

/// Reads trace and truth CSV files line by line in bounded memory, reporting errors by line.
public enum TraceFile {
    /// A file that could not be opened or read.
    public struct ReadError: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// Calls `body` with every line of the file at `path`.
    public static func forEachLine(
        path: String, maximumLineLength: Int = 4096, _ body: (Int, Substring) throws(TraceError) -> Void
    ) throws {
        guard let file = fopen(path, "rb") else {
            throw ReadError(path: path, reason: String(cString: strerror(errno)))
        }
        defer { fclose(file) }
        var splitter = LineSplitter(maximumLineLength: maximumLineLength)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if count > 0 {
                try buffer.withUnsafeBufferPointer { (bytes) throws(TraceError) in
                    try splitter.feed(UnsafeBufferPointer(rebasing: bytes[0..<count]), body)
                }
            }
            if count < buffer.count {
                if ferror(file) != 0 { throw ReadError(path: path, reason: "read error") }
                break
            }
        }
        try splitter.finish(body)
    }

    /// Streams the samples of a trace file.
    public static func forEachSample(path: String, _ body: (TraceSample) -> Void) throws {
        var parser = TraceParser()
        try forEachLine(path: path) { (_, line) throws(TraceError) in
            if let sample = try parser.parse(line: line) { body(sample) }
        }
    }

    /// Every sample of a trace file, in order.
    public static func samples(path: String) throws -> [TraceSample] {
        var samples: [TraceSample] = []
        try forEachSample(path: path) { samples.append($0) }
        return samples
    }

    /// Every row of a ground-truth file, in order, unchecked against any trace.
    public static func truth(path: String) throws -> [TruthSample] {
        try checkedTruth(path: path, nodeRooms: []).rows
    }

    /// A truth file's rows, with what its reader should know about the rooms it names.
    public struct CheckedTruth: Sendable {
        public var rows: [TruthSample]
        /// Per room, its floor and the line that first gave it.
        public var floors: [String: (floor: String, line: Int)]
        /// One line per room named that no node serves but that differs from a node's room only by
        /// case, spaces or a letter or two: `line N: room 'kitchn' has no receiver in the trace; did
        /// you mean 'kitchen'? …`. A warning, not an error: a room without a receiver is allowed.
        public var warnings: [String]
    }

    /// Every row of a ground-truth file, in order, read beside `nodeRooms` (the rooms the nodes of
    /// its trace serve). The truth names the site's rooms: a room no node serves is a room without
    /// a receiver (a hall, a landing, a bedroom above the lounge), which a site model learns to name
    /// (issue 36). What stays an error naming the line: a room that is no name (with the node's room
    /// it was probably meant to be) and a room on two floors. A room near a node's room only by
    /// spelling gets a warning (`warnings`).
    public static func checkedTruth(path: String, nodeRooms: Set<String>) throws -> CheckedTruth {
        var parser = TruthParser()
        parser.knownRooms = nodeRooms
        var rows: [TruthSample] = []
        var warned: Set<String> = nodeRooms
        var warnings: [String] = []
        try forEachLine(path: path) { (_, line) throws(TraceError) in
            guard let row = try parser.parse(line: line) else { return }
            if row.room != RoomDecision.notHome, !warned.contains(row.room) {
                warned.insert(row.room)
                if let meant = RoomNameSuggestion.closest(to: row.room, among: nodeRooms) {
                    warnings.append("line \(parser.linesRead): room '\(row.room)' has no receiver in the trace; did you mean '\(meant)'? "
                        + "(its rooms: \(listed(nodeRooms)); a room without a receiver is fine, a misspelt one is learned as another room)")
                }
            }
            rows.append(row)
        }
        return CheckedTruth(rows: rows, floors: parser.floors, warnings: warnings)
    }

    /// A room put on two floors by two truth files of one site: an error naming both files and lines.
    public struct FloorConflict: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// The floors a site's truth files give its rooms, checked file by file: a room keeps one floor.
    public struct SiteFloors: Sendable {
        private var known: [String: (floor: String, path: String, line: Int)] = [:]

        public init() {}

        /// Adds the floors of the truth file at `path`; throws when one puts a room on another floor.
        public mutating func add(_ truth: CheckedTruth, path: String) throws(FloorConflict) {
            for (room, given) in truth.floors.sorted(by: { $0.value.line < $1.value.line }) {
                if let first = known[room], first.floor != given.floor {
                    throw FloorConflict(description: "\(path): line \(given.line): room '\(room)' is on floor '\(given.floor)' here "
                        + "but on '\(first.floor)' in \(first.path): line \(first.line)")
                }
                if known[room] == nil { known[room] = (given.floor, path, given.line) }
            }
        }
    }

    /// Every row of a motion file (docs/Files.md "Motion file"), in order; a row that cannot be
    /// read is an error naming its line.
    public static func motion(path: String) throws -> [MotionSample] {
        var parser = MotionFileParser()
        var rows: [MotionSample] = []
        try forEachLine(path: path) { (_, line) throws(TraceError) in
            if let row = try parser.parse(line: line) { rows.append(row) }
        }
        guard parser.linesRead > 0 else { throw TraceError(line: 1, problem: "empty file: header missing (\(MotionFileParser.header))") }
        return rows
    }

    /// The motion file beside the trace at `trace`, read when it exists (nil when it does not); a
    /// malformed one throws `MotionFileError`, naming the file and the line.
    public static func motion(besideTrace trace: String) throws(MotionFileError) -> [MotionSample]? {
        let path = MotionFileParser.path(besideTrace: trace)
        guard access(path, F_OK) == 0 else { return nil }
        do {
            return try motion(path: path)
        } catch let error as TraceError {
            throw MotionFileError(path: path, description: "\(path): \(error)")
        } catch {
            throw MotionFileError(path: path, description: "\(error)")
        }
    }

    /// A motion file that could not be read, naming the file (and the line).
    public struct MotionFileError: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var description: String
    }

    /// The rooms the nodes of `samples` serve: what a truth's room names are checked against for typos.
    public static func rooms(of samples: [TraceSample]) -> Set<String> {
        Set(samples.map(\.room))
    }

    static func listed(_ rooms: Set<String>) -> String {
        let known = rooms.sorted()
        let listed = known.prefix(20).joined(separator: ", ") + (known.count > 20 ? ", …" : "")
        return listed.isEmpty ? "none" : listed
    }
}
