/// The room a typed name was probably meant to be: one of `rooms` that differs from it only by
/// letter case, spaces, '_' and '-', or by one or two letters. What a truth file's reader says
/// beside a room no node serves (`'kitchn' … did you mean 'kitchen'?`): a room without a receiver
/// is allowed (the walk's truth names the site's rooms), so a typo would otherwise pass unseen.
public enum RoomNameSuggestion {
    /// The closest of `rooms` to `name`, nil when none is close or `name` is one of them. Names
    /// that differ only in their digits (`bed1`, `bed2`) are numbered rooms, not typos; a name
    /// must be three times as long as the letters changed, so short names are not all alike; and a
    /// name that is another with letters added at one place (`stairs` in `upstairs`) is another room.
    public static func closest<Rooms: Sequence>(to name: String, among rooms: Rooms) -> String? where Rooms.Element == String {
        guard !rooms.contains(name) else { return nil }
        let loose = loosened(name)
        var best: (room: String, distance: Int)?
        for room in rooms.sorted() {
            let distance: Int
            if loosened(room) == loose {
                distance = 0
            } else {
                let a = Array(name.lowercased().unicodeScalars), b = Array(room.lowercased().unicodeScalars)
                guard withoutDigits(a) != withoutDigits(b) else { continue }
                distance = editDistance(a, b)
                guard distance <= 2, distance * 3 <= min(a.count, b.count) else { continue }
                // One name inside the other with a word's worth more (`stairs`, `upstairs`) names
                // another room: a landing without a receiver beside the upstairs receiver's room.
                guard distance < 2 || !(contains(a, b) || contains(b, a)) else { continue }
            }
            if best.map({ distance < $0.distance }) ?? true { best = (room, distance) }
        }
        return best?.room
    }

    /// Lower case without spaces, '_' or '-'.
    static func loosened(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { $0 != " " && $0 != "_" && $0 != "-" && $0 != "\t" })
    }

    static func withoutDigits(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
        scalars.filter { !("0"..."9").contains($0) }
    }

    /// Whether `part` occurs in `whole` as one run of letters.
    static func contains(_ whole: [Unicode.Scalar], _ part: [Unicode.Scalar]) -> Bool {
        guard part.count <= whole.count else { return false }
        return (0...(whole.count - part.count)).contains { start in Array(whole[start..<(start + part.count)]) == part }
    }

    /// Levenshtein distance: letters inserted, deleted or replaced.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
