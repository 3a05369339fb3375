import CYAML

/// Reads a configuration file's YAML with libyaml, the YAML 1.1 parser most tools share (PyYAML,
/// Ruby's Psych and Yams are built on it), into `YAMLNode`s that remember their lines.
///
/// libyaml does the syntax — block and flow style, quoting and escapes, block scalars (`|`, `>`),
/// multi-line plain values, anchors and aliases, tags, comments, directives — so a file reads as every
/// other YAML tool reads it. This file is the only one that calls libyaml; it turns the parser's events
/// into a tree and adds what a configuration file needs on top: one document per file, text keys only,
/// no repeated key, aliases that name an earlier anchor, bounded nesting and a bounded size once
/// aliases are expanded (a few lines of aliases must not expand to millions of nodes). Scalars stay
/// text; each setting's check types them (`YAMLScalar`). Merge keys (`<<`, a YAML 1.1 type, not
/// syntax) are a key like any other, which the settings then refuse as unknown.
public enum YAMLReader {
    /// Deeper nesting is refused; the configuration files need three levels.
    public static let maximumDepth = 64
    /// At most this many nodes, aliases counted at their expanded size.
    public static let maximumNodes = 1_000_000

    /// The document in `text`; nil when it has none or it is empty (only comments, `---`, `~`).
    public static func parse(_ text: String) throws(YAMLError) -> YAMLNode? {
        let bytes = Array(text.utf8)
        if bytes.isEmpty { return nil }
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { throw YAMLError(line: 1, message: "libyaml could not start (out of memory)") }
        defer { yaml_parser_delete(&parser) }
        return try bytes.withUnsafeBufferPointer { (buffer) throws(YAMLError) -> YAMLNode? in
            // libyaml reads the buffer in place: it must outlive the parse, hence everything inside.
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var builder = TreeBuilder()
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else { throw parserError(parser, bytes) }
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT { break }
                try builder.take(event)
            }
            guard let root = builder.root, !root.isNull else { return nil }
            return root
        }
    }

    /// libyaml's own words, at its line: `line 2: mapping values are not allowed in this context`.
    private static func parserError(_ parser: yaml_parser_t, _ bytes: [UInt8]) -> YAMLError {
        let problem = parser.problem.map { String(cString: $0) } ?? "not valid YAML"
        if parser.error == YAML_READER_ERROR {
            // The reader reports a byte offset (bad UTF-8, a control character), not a mark.
            let offset = min(Int(parser.problem_offset), bytes.count)
            let line = bytes[..<offset].reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            return YAMLError(line: line, message: problem)
        }
        var message = problem
        if let context = parser.context.map({ String(cString: $0) }) {
            message += " (\(context) on line \(Int(parser.context_mark.line) + 1))"
        }
        return YAMLError(line: Int(parser.problem_mark.line) + 1, message: message)
    }

    /// Builds the tree from events, with an explicit stack: nesting costs heap, never the call stack.
    private struct TreeBuilder {
        /// A collection being read. A class, so that adding to the innermost one changes it in
        /// place: a value on the stack would be copied whole at every entry.
        private final class Frame {
            enum Kind {
                case sequence([YAMLNode])
                case mapping(YAMLMapping, key: (text: String, line: Int)?)
            }

            var kind: Kind
            let line: Int
            let anchor: String?
            /// Nodes inside, aliases counted at their expanded size.
            var weight = 1

            init(_ kind: Kind, line: Int, anchor: String?) {
                self.kind = kind
                self.line = line
                self.anchor = anchor
            }
        }

        private(set) var root: YAMLNode?
        private var stack: [Frame] = []
        private var anchors: [String: (node: YAMLNode, weight: Int)] = [:]
        private var documents = 0
        private var nodes = 0

        mutating func take(_ event: yaml_event_t) throws(YAMLError) {
            let line = Int(event.start_mark.line) + 1
            switch event.type {
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                if documents > 1 {
                    throw YAMLError(line: line, message: "a second document (---): one document per configuration file")
                }
            case YAML_SCALAR_EVENT:
                let data = event.data.scalar
                let text = String(decoding: UnsafeBufferPointer(start: data.value, count: Int(data.length)), as: UTF8.self)
                let scalar = YAMLScalar(text, style: Self.style(data.style, tag: Self.text(data.tag)))
                try finish(.scalar(scalar, line: line), anchor: Self.text(data.anchor), weight: 1)
            case YAML_ALIAS_EVENT:
                let name = Self.text(event.data.alias.anchor) ?? ""
                guard let anchored = anchors[name] else {
                    throw YAMLError(line: line, message: "alias *\(name) names no anchor (&\(name)) before it")
                }
                var node = anchored.node
                node.line = line
                try finish(node, anchor: nil, weight: anchored.weight)
            case YAML_SEQUENCE_START_EVENT:
                try push(Frame(.sequence([]), line: line, anchor: Self.text(event.data.sequence_start.anchor)))
            case YAML_MAPPING_START_EVENT:
                try push(Frame(.mapping(YAMLMapping(), key: nil), line: line, anchor: Self.text(event.data.mapping_start.anchor)))
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                guard let frame = stack.popLast() else {
                    throw YAMLError(line: line, message: "the end of a collection that never started")
                }
                switch frame.kind {
                case .sequence(let items): try finish(.sequence(items, line: frame.line), anchor: frame.anchor, weight: frame.weight)
                case .mapping(let mapping, _): try finish(.mapping(mapping, line: frame.line), anchor: frame.anchor, weight: frame.weight)
                }
            default:
                break  // stream and document boundaries carry nothing else
            }
        }

        private mutating func push(_ frame: Frame) throws(YAMLError) {
            guard stack.count < YAMLReader.maximumDepth else {
                throw YAMLError(line: frame.line, message: "nested deeper than \(YAMLReader.maximumDepth) levels")
            }
            stack.append(frame)
        }

        /// A complete node: into its parent (as a key, a value or an item) or as the root.
        private mutating func finish(_ node: YAMLNode, anchor: String?, weight: Int) throws(YAMLError) {
            nodes += weight
            guard nodes <= YAMLReader.maximumNodes else {
                throw YAMLError(line: node.line, message: "more than \(YAMLReader.maximumNodes) values once aliases are expanded")
            }
            if let anchor { anchors[anchor] = (node, weight) }
            guard let parent = stack.last else {
                root = node
                return
            }
            parent.weight += weight
            switch parent.kind {
            case .sequence(var items):
                parent.kind = .sequence([])  // lets go of the array, so the append below does not copy it
                items.append(node)
                parent.kind = .sequence(items)
            case .mapping(var mapping, let key?):
                parent.kind = .mapping(YAMLMapping(), key: nil)
                let added = mapping.append(key: key.text, value: node, line: key.line)
                parent.kind = .mapping(mapping, key: nil)
                if !added { throw YAMLError(line: key.line, message: "duplicate key '\(key.text)'") }
            case .mapping(let mapping, nil):
                guard let key = node.scalar else {
                    throw YAMLError(line: node.line, message: "a list or mapping as a key; keys are text")
                }
                if mapping.line(of: key.text) != nil {
                    throw YAMLError(line: node.line, message: "duplicate key '\(key.text)'")
                }
                parent.kind = .mapping(mapping, key: (key.text, node.line))
            }
        }

        private static func text(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
            pointer.map { String(cString: $0) }
        }

        /// Only an untagged plain scalar may mean null, a boolean or a number; `!!str` and the
        /// non-specific `!` make text of anything.
        private static func style(_ style: yaml_scalar_style_t, tag: String?) -> YAMLScalar.Style {
            if tag == "tag:yaml.org,2002:str" || tag == "!" { return .tagged }
            switch style {
            case YAML_SINGLE_QUOTED_SCALAR_STYLE: return .singleQuoted
            case YAML_DOUBLE_QUOTED_SCALAR_STYLE: return .doubleQuoted
            case YAML_LITERAL_SCALAR_STYLE, YAML_FOLDED_SCALAR_STYLE: return .block
            default: return .plain
            }
        }
    }
}
