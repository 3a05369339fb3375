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

    /// Every row of a ground-truth file, in order.
    public static func truth(path: String) throws -> [TruthSample] {
        var parser = TruthParser()
        var rows: [TruthSample] = []
        try forEachLine(path: path) { (_, line) throws(TraceError) in
            if let row = try parser.parse(line: line) { rows.append(row) }
        }
        return rows
    }
}
