/// The header of a trace-format CSV file: finds the wanted columns by name, ignores the others.
public struct CSVHeader: Sendable, Hashable {
    /// Column names in file order.
    public let names: [String]

    /// Reads `line` (line 1 of the file) and requires every name in `required`.
    public init(line: Substring, required: [String]) throws(TraceError) {
        let names = CSVHeader.fields(of: line).map { String($0) }
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

    /// Splits one CSV line at commas (trace ids never need quoting), each field trimmed of spaces,
    /// tabs and a final carriage return. Works on UTF-8 bytes: Character-wise splitting costs more
    /// than the whole replay step.
    package static func fields(of line: Substring) -> [Substring] {
        var fields: [Substring] = []
        fields.reserveCapacity(8)
        let utf8 = line.utf8
        var start = utf8.startIndex
        var index = start
        while index != utf8.endIndex {
            if utf8[index] == UInt8(ascii: ",") {
                fields.append(Substring(utf8[start..<index]).trimmingSpaces())
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        fields.append(Substring(utf8[start..<index]).trimmingSpaces())
        return fields
    }
}

extension Substring {
    /// Without leading and trailing spaces, tabs and carriage returns (byte-wise).
    package func trimmingSpaces() -> Substring {
        let utf8 = self.utf8
        var start = utf8.startIndex, end = utf8.endIndex
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D }
        while start != end, isSpace(utf8[start]) { start = utf8.index(after: start) }
        while start != end, isSpace(utf8[utf8.index(before: end)]) { end = utf8.index(before: end) }
        return Substring(utf8[start..<end])
    }
}
