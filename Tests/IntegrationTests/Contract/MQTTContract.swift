import BeaconCore
import Foundation

/// docs/MQTT.md as the contract test reads it: the "Topics" table (one row per topic pattern:
/// payload kind, retained, QoS, who publishes) and, under each `###` heading that names topics in
/// backquotes, the table of their payload's fields (first column the field's dotted path).
/// Unchecked: never mutated after `init`; its regular expressions are only matched.
struct MQTTContract: @unchecked Sendable {
    struct Topic {
        /// As written: `<root>/nodes/<node>/status`.
        let pattern: String
        let isJSON: Bool
        let retained: Bool
        let qos: Int
        /// Published by our programs (`agent` or `aggregator`); otherwise only read by them.
        let isOurs: Bool
        let regex: NSRegularExpression
        /// Characters outside placeholders: the more, the more specific the pattern.
        let literalLength: Int
    }

    /// The fields documented for a group of topics (one `###` section).
    struct FieldSection {
        let heading: String
        let patterns: [String]
        /// Dotted paths as written: `occupants[].id`, `candidates.<room>`.
        let fields: [String]
        let regexes: [NSRegularExpression]

        /// The documented path `path` matches, if any.
        func field(matching path: String) -> String? {
            zip(fields, regexes).first { _, regex in regex.wholeMatch(path) }?.0
        }
    }

    let topics: [Topic]
    let sections: [FieldSection]

    /// What the placeholders stand for in the test's site; any other `<name>` is one topic level.
    static let placeholders = [
        "<root>": "presence", "<prefix>": "homeassistant", "<site>": "beaconpresence_presence", "<espresense>": "espresense",
    ]

    init(path: String) throws {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var topics: [Topic] = []
        var sections: [FieldSection] = []
        var heading: String?
        var index = 0
        while index < lines.count {
            let line = lines[index]
            if line.hasPrefix("#") {
                heading = line
                index += 1
                continue
            }
            guard line.hasPrefix("|"), index + 1 < lines.count, lines[index + 1].hasPrefix("|---") || lines[index + 1].hasPrefix("| ---") else {
                index += 1
                continue
            }
            // A table: its header, then rows until the first line that is not a row.
            let header = Self.cells(line).map { $0.lowercased() }
            var rows: [[String]] = []
            index += 2
            while index < lines.count, lines[index].hasPrefix("|") {
                rows.append(Self.cells(lines[index]))
                index += 1
            }
            if heading == "## Topics", header.first == "topic" {
                for row in rows where row.count >= 5 {
                    guard let pattern = Self.code(row[0]).first else { continue }
                    let publishers = row[4].trimmingCharacters(in: .whitespaces)
                    topics.append(Topic(
                        pattern: pattern, isJSON: row[1].lowercased().contains("json"), retained: row[2].lowercased().hasPrefix("yes"),
                        qos: Int(row[3].trimmingCharacters(in: .whitespaces)) ?? -1,
                        isOurs: publishers == "agent" || publishers == "aggregator",
                        regex: try Self.topicRegex(pattern), literalLength: Self.literalLength(pattern)))
                }
            } else if header.first == "field", let heading, heading.hasPrefix("### ") {
                let patterns = Self.code(heading)
                let fields = rows.compactMap { Self.code($0[0]).first }
                sections.append(FieldSection(heading: heading, patterns: patterns, fields: fields, regexes: try fields.map(Self.fieldRegex)))
            }
        }
        self.topics = topics
        self.sections = sections
    }

    /// The most specific documented topic `topic` is an instance of.
    func topic(matching topic: String) -> Topic? {
        topics.filter { $0.regex.wholeMatch(topic) }.max { $0.literalLength < $1.literalLength }
    }

    /// The section documenting the fields of `pattern`.
    func section(of pattern: String) -> FieldSection? { sections.first { $0.patterns.contains(pattern) } }

    static func cells(_ row: String) -> [String] {
        var text = row.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("|") { text.removeFirst() }
        if text.hasSuffix("|") { text.removeLast() }
        // `\|` inside a cell is a pipe, not a separator.
        return text.replacingOccurrences(of: "\\|", with: "\u{1}").split(separator: "|", omittingEmptySubsequences: false)
            .map { $0.replacingOccurrences(of: "\u{1}", with: "|").trimmingCharacters(in: .whitespaces) }
    }

    /// The backquoted parts of `text`.
    static func code(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    static func literalLength(_ pattern: String) -> Int {
        pattern.replacingOccurrences(of: "<[^>]+>", with: "", options: .regularExpression).count
    }

    /// `<name>` of a topic is its value in the test's site, or any one level (or part of one).
    static func topicRegex(_ pattern: String) throws -> NSRegularExpression {
        try regex(pattern, placeholder: { placeholders[$0].map(NSRegularExpression.escapedPattern(for:)) ?? "[^/]+" })
    }

    /// `<name>` of a field path is any one key (a map's keys: `candidates.<room>`).
    static func fieldRegex(_ path: String) throws -> NSRegularExpression {
        try regex(path, placeholder: { _ in "[^.\\[\\]]+" })
    }

    private static func regex(_ pattern: String, placeholder: (String) -> String) throws -> NSRegularExpression {
        var out = "^"
        var rest = Substring(pattern)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            out += NSRegularExpression.escapedPattern(for: String(rest[..<open]))
            out += placeholder(String(rest[open...close]))
            rest = rest[rest.index(after: close)...]
        }
        return try NSRegularExpression(pattern: out + NSRegularExpression.escapedPattern(for: String(rest)) + "$")
    }

    /// Every field path of a JSON payload: an object's keys dotted (`device.name`), an array of
    /// objects as `[]` (`occupants[].id`; a payload that is an array: `[].id`); containers are
    /// paths too, their scalars' arrays are not entered.
    static func fieldPaths(_ value: JSONValue, at path: String = "") -> Set<String> {
        var paths: Set<String> = []
        switch value {
        case .object(let object):
            for key in object.keys {
                let child = path.isEmpty ? key : path + "." + key
                paths.insert(child)
                if let member = object[key] { paths.formUnion(fieldPaths(member, at: child)) }
            }
        case .array(let elements):
            for element in elements {
                if case .object = element { paths.formUnion(fieldPaths(element, at: path + "[]")) }
            }
        default:
            break
        }
        return paths
    }
}

extension NSRegularExpression {
    func wholeMatch(_ text: String) -> Bool {
        firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}
