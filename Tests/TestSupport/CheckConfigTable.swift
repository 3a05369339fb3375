/// The table `check-config` prints (`key  value  source`, one setting a line), read back by key:
/// `[value, source]`. Values may hold spaces; keys and sources do not.
public enum CheckConfigTable {
    public static func rows(_ output: String) -> [String: [String]] {
        var rows: [String: [String]] = [:]
        for line in output.split(separator: "\n") {
            let columns = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard columns.count >= 3, let source = columns.last else { continue }
            rows[columns[0]] = [columns[1...].dropLast().joined(separator: " "), source]
        }
        return rows
    }
}
