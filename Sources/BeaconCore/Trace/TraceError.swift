/// A malformed trace or truth file: which line and what is wrong, rendered as
/// `line 17: rssi 'abc' is not a number`.
public struct TraceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 1-based line number in the file (the header is line 1).
    public var line: Int
    /// What is wrong, naming the column and the offending text.
    public var problem: String

    /// Creates an error about one line.
    public init(line: Int, problem: String) {
        self.line = line
        self.problem = problem
    }

    /// `line 17: …`, the line and the problem.
    public var description: String { "line \(line): \(problem)" }
}
