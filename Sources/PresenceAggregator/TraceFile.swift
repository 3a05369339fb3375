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

    /// Every row of a ground-truth file, in order. With `rooms` (the rooms the nodes of its trace
    /// serve), a row naming any other room — a typo, or a truth written for another site — is an
    /// error naming its line: no decision could ever match it, and every row of it would score as
    /// a wrong decision without a word. `not_home` is always allowed.
    public static func truth(path: String, rooms: Set<String>? = nil) throws -> [TruthSample] {
        var parser = TruthParser()
        var rows: [TruthSample] = []
        try forEachLine(path: path) { (_, line) throws(TraceError) in
            guard let row = try parser.parse(line: line) else { return }
            if let rooms, row.room != RoomDecision.notHome, !rooms.contains(row.room) {
                throw TraceError(line: parser.linesRead, problem: unknownRoom(row.room, rooms: rooms))
            }
            rows.append(row)
        }
        return rows
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

    /// The rooms the nodes of `samples` serve: what their truth may name.
    public static func rooms(of samples: [TraceSample]) -> Set<String> {
        Set(samples.map(\.room))
    }

    static func unknownRoom(_ room: String, rooms: Set<String>) -> String {
        let known = rooms.sorted()
        let listed = known.prefix(20).joined(separator: ", ") + (known.count > 20 ? ", …" : "")
        return "room '\(room)' is no node's room in the trace (its rooms: \(listed.isEmpty ? "none" : listed))"
    }
}
