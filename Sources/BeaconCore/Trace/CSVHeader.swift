/// The header of a trace-format CSV file: finds the wanted columns by name, ignores the others.
public struct CSVHeader: Sendable, Hashable {
    /// Column names in file order.
    public let names: [String]

    /// Reads `line` (line 1 of the file) and requires every name in `required`.
    public init(line: Substring, required: [String]) throws(TraceError) {
        let names = CSVHeader.fields(of: line).map { String($0.trimmingSpaces()) }
        let missing = required.filter { !names.contains($0) }
        guard missing.isEmpty else {
            let found = names.joined(separator: ",")
            throw TraceError(line: 1, problem: "header lacks column\(missing.count == 1 ? "" : "s") "
                + missing.joined(separator: ", ") + " (found '\(found)')")
        }
        self.names = names
    }

    /// The position of column `name`, nil when absent.
    public func index(of name: String) -> Int? {
        names.firstIndex(of: name)
    }

    /// Splits one CSV line at commas (trace ids never need quoting).
    static func fields(of line: Substring) -> [Substring] {
        var line = line
        if line.last == "\r" { line = line.dropLast() }
        return line.split(separator: ",", omittingEmptySubsequences: false)
    }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var s = self
        while let first = s.first, first == " " || first == "\t" { s = s.dropFirst() }
        while let last = s.last, last == " " || last == "\t" || last == "\r" { s = s.dropLast() }
        return s
    }
}
