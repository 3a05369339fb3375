#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a btsnoop file from disk in fixed-size chunks: constant memory however long the capture.
///
/// The only file in the core that touches the file system; the parsing is `BtsnoopParser`'s.
/// A class so the `FILE` is closed when the reader goes away; not for sharing across threads.
public final class BtsnoopFileReader {
    /// The path of the capture being read.
    public let path: String
    private var file: UnsafeMutablePointer<FILE>?
    private var parser = BtsnoopParser()
    private var chunk: [UInt8]
    private var reachedEnd = false

    /// Opens `path`. Throws `BtsnoopError.Kind.io` when it cannot be opened.
    public init(path: String, chunkSize: Int = 64 * 1024) throws(BtsnoopError) {
        self.path = path
        self.chunk = [UInt8](repeating: 0, count: max(chunkSize, 64))
        guard let file = fopen(path, "rb") else {
            throw BtsnoopError(.io("cannot open \(path): \(String(cString: strerror(errno)))"))
        }
        self.file = file
    }

    deinit {
        if let file { fclose(file) }
    }

    /// The file's datalink, once the header has been read (after the first `next()`).
    public var datalink: BtsnoopDatalink? { parser.datalink }

    /// The next HCI record; nil at the end of a well-formed file. Throws on a truncated or
    /// malformed file, naming the record and offset.
    public func next() throws(BtsnoopError) -> BtsnoopRecord? {
        while true {
            if let record = try parser.nextRecord() { return record }
            if reachedEnd {
                try parser.finish()
                return nil
            }
            try readChunk()
        }
    }

    /// Calls `body` with each record in the file, in order.
    public static func forEachRecord(inFile path: String, _ body: (BtsnoopRecord) throws -> Void) throws {
        let reader = try BtsnoopFileReader(path: path)
        while let record = try reader.next() { try body(record) }
    }

    private func readChunk() throws(BtsnoopError) {
        guard let file else {
            reachedEnd = true
            return
        }
        let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
        if count > 0 { parser.append(contentsOf: chunk[0..<count]) }
        if count < chunk.count {
            if ferror(file) != 0 {
                throw BtsnoopError(.io("read error in \(path): \(String(cString: strerror(errno)))"))
            }
            reachedEnd = true
            fclose(file)
            self.file = nil
        }
    }
}
