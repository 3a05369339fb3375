/// Cuts a byte stream into lines of at most `maximumLineLength` bytes, chunk by chunk, so a trace
/// of any size streams in constant memory and a file without newlines cannot exhaust it.
public struct LineSplitter: Sendable {
    /// Longest accepted line in bytes (without its newline).
    public let maximumLineLength: Int
    private var pending: [UInt8] = []
    /// Number of the line `pending` belongs to.
    private var lineNumber = 1

    /// Creates a splitter that refuses lines longer than `maximumLineLength` bytes.
    public init(maximumLineLength: Int = 4096) {
        self.maximumLineLength = maximumLineLength
    }

    /// Appends `chunk` and calls `body` with each complete line (and its 1-based number).
    public mutating func feed(_ chunk: some Collection<UInt8>, _ body: (Int, Substring) throws(TraceError) -> Void) throws(TraceError) {
        let array = Array(chunk)
        try array.withUnsafeBufferPointer { (buffer) throws(TraceError) in try feed(buffer, body) }
    }

    /// Appends the bytes of `chunk` and calls `body` with each complete line.
    public mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>, _ body: (Int, Substring) throws(TraceError) -> Void) throws(TraceError) {
        var start = 0
        while start < chunk.count {
            // Bulk copy up to the next newline instead of byte by byte.
            var end = start
            while end < chunk.count, chunk[end] != UInt8(ascii: "\n") { end += 1 }
            guard pending.count + (end - start) <= maximumLineLength else {
                throw TraceError(line: lineNumber, problem: "longer than \(maximumLineLength) bytes")
            }
            pending.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start..<end]))
            guard end < chunk.count else { return }
            try emit(body)
            start = end + 1
        }
    }

    /// Delivers the last line when the stream ends without a newline.
    public mutating func finish(_ body: (Int, Substring) throws(TraceError) -> Void) throws(TraceError) {
        if !pending.isEmpty { try emit(body) }
    }

    private mutating func emit(_ body: (Int, Substring) throws(TraceError) -> Void) throws(TraceError) {
        let text = String(decoding: pending, as: UTF8.self)
        pending.removeAll(keepingCapacity: true)
        let number = lineNumber
        lineNumber += 1
        try body(number, Substring(text))
    }
}
