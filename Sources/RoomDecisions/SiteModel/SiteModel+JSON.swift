import BeaconCore

/// The model file: readable, versioned JSON, one room per line-block, written deterministically.
///
/// ```json
/// {
///   "format": "beacon-presence-site-model",
///   "version": 2,
///   "decision": "model",
///   "parameters": {"sampleInterval": 0.1, "evidenceRate": 4, …},
///   "rooms": [
///     {"name": "inside", "decidedBy": "model", "samples": 812, "nodes": {
///       "i-dl": {"heard": 0.998, "mean": -66.2, "sigma": 4.1},
///       …}},
///     …],
///   "nodeRooms": {"i-dl": "inside", …},
///   "classifier": {"features": ["room:inside", …, "rssi:i-dl", …, "heard:i-dl", …],
///     "means": […], "scales": […], "rooms": {"inside": {"bias": 0.12, "weights": […]}, …}}
/// }
/// ```
/// `decidedBy` (optional, default `model`) says which decision serves the room where the file's
/// `decision` is `model` (`SiteModelDecider`). `neighbours` (optional; every room or none) lists the
/// rooms the walks went to straight from this one (`SiteModel.neighbours`). `"looks": "levels"`
/// (optional; default relative) says the looks are levels in dB that decide (`SiteModel.levels`).
/// `"elsewhere"` (optional) is the state "in none of the rooms" (`SiteModel.Elsewhere`), learned from
/// the walks' time outside the rooms their truth names: `{"samples": 310, "neighbours": ["kitchen", …],
/// "nodes": {…looks…}}`; with a classifier, the classifier's `"elsewhere": {"bias": …, "weights": […]}`
/// is its class, and each gives the other. Every
/// room lists the same nodes. Version 1 files (no `decision`, `nodeRooms`, `classifier`) are still read,
/// and decide by their looks. Unknown keys are errors (a typo must not leave a default in force), except
/// the keys of settings since removed (`removedKeys`), which are read past with a warning
/// (`init(json:warnings:)`); `parameters` may leave keys out (the default applies).
extension SiteModel {
    /// The model as JSON text (ends with a newline).
    public var json: String {
        var text = "{\n"
        text += "  \"format\": \(JSONText.quoted(Self.format)),\n"
        text += "  \"version\": \(Self.version),\n"
        text += "  \"decision\": \(JSONText.quoted(decision.rawValue)),\n"
        if levels { text += "  \"looks\": \"levels\",\n" }
        text += "  \"parameters\": {"
        text += Self.parameterFields.map { field in
            "\(JSONText.quoted(field.key)): \(JSONObjectWriter.number(parameters[keyPath: field.value], decimals: 6))"
        }.joined(separator: ", ")
        text += "},\n  \"rooms\": [\n"
        for (roomIndex, room) in rooms.enumerated() {
            let floor = floors[roomIndex].map { "\"floor\": \(JSONText.quoted($0)), " } ?? ""
            let decidedBy = roomDecisions[roomIndex] == .model ? "" : "\"decidedBy\": \(JSONText.quoted(roomDecisions[roomIndex].rawValue)), "
            let next = neighbours.map { lists in
                "\"neighbours\": [" + lists[roomIndex].map { JSONText.quoted(rooms[$0]) }.joined(separator: ", ") + "], "
            } ?? ""
            text += "    {\"name\": \(JSONText.quoted(room)), \(floor)\(decidedBy)\"samples\": \(samples[roomIndex]), \(next)\"nodes\": {\n"
            text += Self.looksText(looks[roomIndex], nodes: nodes, indent: "      ")
            text += "    }}" + (roomIndex == rooms.count - 1 ? "\n" : ",\n")
        }
        text += "  ]"
        if let elsewhere {
            text += ",\n  \"elsewhere\": {\"samples\": \(elsewhere.samples), \"neighbours\": ["
                + elsewhere.neighbours.map { JSONText.quoted(rooms[$0]) }.joined(separator: ", ") + "], \"nodes\": {\n"
            text += Self.looksText(elsewhere.looks, nodes: nodes, indent: "    ")
            text += "  }}"
        }
        let placed = nodes.indices.compactMap { index in nodeRooms[index].map { (nodes[index], $0) } }
        if !placed.isEmpty {
            text += ",\n  \"nodeRooms\": {" + placed.map { "\(JSONText.quoted($0.0)): \(JSONText.quoted($0.1))" }.joined(separator: ", ") + "}"
        }
        if let classifier {
            func list(_ values: [Double]) -> String {
                "[" + values.map { JSONObjectWriter.number($0, decimals: 6) }.joined(separator: ", ") + "]"
            }
            let names = SiteModelClassifier.featureNames(rooms: rooms, nodes: nodes)
            text += ",\n  \"classifier\": {\n    \"features\": [" + names.map { JSONText.quoted($0) }.joined(separator: ", ") + "],\n"
            text += "    \"means\": \(list(classifier.means)),\n    \"scales\": \(list(classifier.scales)),\n    \"rooms\": {\n"
            for (index, room) in rooms.enumerated() {
                text += "      \(JSONText.quoted(room)): {\"bias\": \(JSONObjectWriter.number(classifier.biases[index], decimals: 6)), "
                text += "\"weights\": \(list(classifier.weights[index]))}" + (index == rooms.count - 1 ? "\n" : ",\n")
            }
            text += "    }"
            if elsewhere != nil, classifier.biases.count > rooms.count {
                text += ",\n    \"elsewhere\": {\"bias\": \(JSONObjectWriter.number(classifier.biases[rooms.count], decimals: 6)), "
                text += "\"weights\": \(list(classifier.weights[rooms.count]))}"
            }
            text += "\n  }"
        }
        text += "\n}\n"
        return text
    }

    /// One look per line, `"node": {"heard": …, "mean": …, "sigma": …}`, each line after `indent`.
    private static func looksText(_ looks: [Look], nodes: [String], indent: String) -> String {
        var text = ""
        for (nodeIndex, node) in nodes.enumerated() {
            let look = looks[nodeIndex]
            text += "\(indent)\(JSONText.quoted(node)): {\"heard\": \(JSONObjectWriter.number(Look.boundedHeard(look.heard), decimals: 4)), "
            text += "\"mean\": \(JSONObjectWriter.number(look.mean, decimals: 2)), "
            text += "\"sigma\": \(JSONObjectWriter.number(look.sigma, decimals: 2))}"
            text += nodeIndex == nodes.count - 1 ? "\n" : ",\n"
        }
        return text
    }

    /// Parses a model file's bytes; never traps. Syntax errors name the line, value errors the field.
    public init(json bytes: [UInt8]) throws(SiteModelFileError) {
        var warnings: [String] = []
        try self.init(json: bytes, warnings: &warnings)
    }

    /// Keys an older `learn` wrote for settings measured and since removed (the site model article,
    /// "Settings"), by where they sit: a file that carries them still loads, as it decided with
    /// them off.
    public static let removedKeys = (parameters: ["smoothingLag", "stayRateExponent", "roomShrinkSeconds"],
                                     room: ["stay"])

    /// `init(json:)`, adding to `warnings` one line that names every removed key the file carries
    /// (`removedKeys`), if any, for the owner's log.
    public init(json bytes: [UInt8], warnings: inout [String]) throws(SiteModelFileError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, maximumBytes: 16 << 20, maximumDepth: 8)
        } catch {
            throw Self.syntaxError(error, in: bytes)
        }
        var removed: [String] = []
        do {
            self = try Self.model(from: value, removed: &removed)
        } catch {
            throw SiteModelFileError(field: error.path.description, message: error.message)
        }
        if !removed.isEmpty {
            warnings.append("ignored \(removed.joined(separator: ", ")): settings no longer in the program "
                            + "(the model decides as with them off; learn writes them no more)")
        }
    }

    private static func model(from value: JSONValue, removed: inout [String]) throws(ConfigError) -> SiteModel {
        let top = try JSONFieldReader(value, at: .root)
        try top.rejectUnknownKeys(["format", "version", "decision", "looks", "parameters", "rooms", "nodeRooms", "classifier",
                                   "elsewhere"])
        let format = try top.requiredString("format")
        guard format == Self.format else {
            throw ConfigError(.invalidValue, path: FieldPath.root.appending("format"),
                              message: "\(ConfigError.quoted(format)) is not \(JSONText.quoted(Self.format))")
        }
        let version = try top.integer(try top.required("version"), key: "version", in: 0...Int64(Int32.max))
        guard version == 1 || version == Int64(Self.version) else {
            throw ConfigError(.outOfRange, path: FieldPath.root.appending("version"),
                              message: "version \(version) is not supported (this program reads versions 1 and \(Self.version))")
        }
        var decision = Decision.model
        if let text = try top.optionalString("decision") {
            guard let chosen = Decision(rawValue: text) else {
                throw ConfigError(.invalidValue, path: FieldPath.root.appending("decision"),
                                  message: "\(ConfigError.quoted(text)) is not model or physics")
            }
            decision = chosen
        }
        var levels = false
        if let text = try top.optionalString("looks") {
            guard text == "levels" || text == "relative" else {
                throw ConfigError(.invalidValue, path: FieldPath.root.appending("looks"),
                                  message: "\(ConfigError.quoted(text)) is not levels or relative")
            }
            levels = text == "levels"
        }
        var parameters = SiteModelParameters.default
        if let given = top.optional("parameters") {
            parameters = try Self.parameters(from: given, at: FieldPath.root.appending("parameters"), removed: &removed)
        }
        let roomValues = try top.array(try top.required("rooms"), key: "rooms")
        guard !roomValues.isEmpty else {
            throw ConfigError(.invalidValue, path: FieldPath.root.appending("rooms"), message: "a model needs at least one room")
        }
        var named: [(name: String, samples: Int, looks: [String: Look], floor: String?, decidedBy: Decision,
                     neighbours: [String]?, index: Int)] = []
        var nodeNames: [String]?
        for (index, roomValue) in roomValues.enumerated() {
            let path = FieldPath.root.appending("rooms").appending(index: index)
            let room = try JSONFieldReader(roomValue, at: path)
            try room.rejectUnknownKeys(["name", "floor", "decidedBy", "neighbours", "samples", "nodes"] + removedKeys.room)
            for key in removedKeys.room where room.optional(key) != nil && !removed.contains("rooms[].\(key)") {
                removed.append("rooms[].\(key)")
            }
            let name = try room.requiredString("name")
            guard !name.isEmpty, name != RoomDecision.notHome, !named.contains(where: { $0.name == name }) else {
                throw ConfigError(.invalidValue, path: path.appending("name"),
                                  message: "\(ConfigError.quoted(name)) is empty, not_home or a repeated room")
            }
            var floor: String?
            if let text = try room.optionalString("floor") {
                guard TopicLevelID.isValid(text), text != RoomDecision.notHome else {
                    throw ConfigError(.invalidValue, path: path.appending("floor"),
                                      message: "\(ConfigError.quoted(text)) is not a floor name (\(TopicLevelID.rule))")
                }
                floor = text
            }
            var decidedBy = Decision.model
            if let text = try room.optionalString("decidedBy") {
                guard let chosen = Decision(rawValue: text) else {
                    throw ConfigError(.invalidValue, path: path.appending("decidedBy"),
                                      message: "\(ConfigError.quoted(text)) is not model or physics")
                }
                decidedBy = chosen
            }
            var neighbours: [String]?
            if let given = room.optional("neighbours") {
                var names: [String] = []
                for (position, element) in try room.array(given, key: "neighbours").enumerated() {
                    guard case .string(let text) = element else {
                        throw ConfigError(.wrongType, path: path.appending("neighbours").appending(index: position),
                                          message: "expected a room name")
                    }
                    names.append(text)
                }
                neighbours = names
            }
            var samples = 0
            if let given = room.optional("samples") {
                samples = Int(try room.integer(given, key: "samples", in: 0...Int64(Int32.max)))
            }
            let nodesPath = path.appending("nodes")
            let nodesObject = try room.requiredObject("nodes")
            var looks: [String: Look] = [:]
            for node in nodesObject.object.keys {
                looks[node] = try Self.look(from: try nodesObject.required(node), at: nodesPath.appending(node))
            }
            let names = nodesObject.object.keys.sorted()
            if let known = nodeNames, known != names {
                throw ConfigError(.invalidValue, path: nodesPath,
                                  message: "lists nodes \(names.joined(separator: ",")); rooms[0] lists \(known.joined(separator: ","))")
            }
            guard !names.isEmpty else { throw ConfigError(.invalidValue, path: nodesPath, message: "no nodes") }
            nodeNames = names
            named.append((name, samples, looks, floor, decidedBy, neighbours, index))
        }
        named.sort { $0.name < $1.name }
        let nodes = nodeNames ?? []
        let rooms = named.map(\.name)
        var nodeRooms = [String?](repeating: nil, count: nodes.count)
        if let given = top.optional("nodeRooms") {
            let path = FieldPath.root.appending("nodeRooms")
            guard case .object(let object) = given else {
                throw ConfigError(.wrongType, path: path, message: "expected an object of node → room")
            }
            for node in object.keys {
                guard let index = nodes.firstIndex(of: node) else {
                    throw ConfigError(.invalidValue, path: path.appending(node), message: "is not a node of the rooms' looks")
                }
                guard case .string(let room)? = object[node], rooms.contains(room) else {
                    throw ConfigError(.invalidValue, path: path.appending(node), message: "expected one of the model's rooms")
                }
                nodeRooms[index] = room
            }
        }
        // Neighbours: every room gives them or none does (as `learn` writes them), each another room.
        var neighbours: [[Int]]?
        if named.contains(where: { $0.neighbours != nil }) {
            var lists: [[Int]] = []
            for (index, room) in named.enumerated() {
                let path = FieldPath.root.appending("rooms").appending(index: room.index).appending("neighbours")
                guard let names = room.neighbours else {
                    throw ConfigError(.missing, path: path, message: "required when another room gives its neighbours")
                }
                var list: [Int] = []
                for name in names {
                    guard let other = rooms.firstIndex(of: name), other != index else {
                        throw ConfigError(.invalidValue, path: path,
                                          message: "\(ConfigError.quoted(name)) is not another room of the model")
                    }
                    list.append(other)
                }
                lists.append(Array(Set(list)).sorted())
            }
            neighbours = lists
        }
        var elsewhere: Elsewhere?
        if let given = top.optional("elsewhere") {
            elsewhere = try Self.elsewhere(from: given, rooms: rooms, nodes: nodes)
        }
        var classifier: SiteModelClassifier?
        if let given = top.optional("classifier") {
            classifier = try Self.classifier(from: given, rooms: rooms, nodes: nodes, elsewhere: elsewhere != nil)
        }
        return SiteModel(rooms: rooms, nodes: nodes,
                         looks: named.map { room in nodes.map { room.looks[$0]! } },
                         samples: named.map(\.samples), parameters: parameters,
                         nodeRooms: nodeRooms, classifier: classifier, decision: decision, floors: named.map(\.floor),
                         roomDecisions: named.map(\.decidedBy), neighbours: neighbours, levels: levels,
                         elsewhere: elsewhere)
    }

    /// The state "elsewhere": its samples, its neighbouring rooms (each a room of the model) and a
    /// look for every node of the rooms' looks.
    private static func elsewhere(from value: JSONValue, rooms: [String], nodes: [String]) throws(ConfigError) -> Elsewhere {
        let path = FieldPath.root.appending("elsewhere")
        let reader = try JSONFieldReader(value, at: path)
        try reader.rejectUnknownKeys(["samples", "neighbours", "nodes"])
        var samples = 0
        if let given = reader.optional("samples") {
            samples = Int(try reader.integer(given, key: "samples", in: 0...Int64(Int32.max)))
        }
        var neighbours: [Int] = []
        if let given = reader.optional("neighbours") {
            for (position, element) in try reader.array(given, key: "neighbours").enumerated() {
                guard case .string(let name) = element, let index = rooms.firstIndex(of: name) else {
                    throw ConfigError(.invalidValue, path: path.appending("neighbours").appending(index: position),
                                      message: "expected a room of the model")
                }
                neighbours.append(index)
            }
        }
        let nodesObject = try reader.requiredObject("nodes")
        guard nodesObject.object.keys.sorted() == nodes else {
            throw ConfigError(.invalidValue, path: path.appending("nodes"),
                              message: "lists nodes \(nodesObject.object.keys.sorted().joined(separator: ",")); the rooms list \(nodes.joined(separator: ","))")
        }
        var looks: [Look] = []
        for node in nodes {
            looks.append(try Self.look(from: try nodesObject.required(node), at: path.appending("nodes").appending(node)))
        }
        return Elsewhere(looks: looks, samples: samples, neighbours: Array(Set(neighbours)).sorted())
    }

    /// The classifier: its feature names must be those of the model's rooms and nodes, in order,
    /// so weights can never be applied to the wrong node.
    /// With `elsewhere`, the classifier must have its class too (`"elsewhere"`, after the rooms'), and
    /// without it must not.
    private static func classifier(from value: JSONValue, rooms: [String], nodes: [String],
                                   elsewhere: Bool) throws(ConfigError) -> SiteModelClassifier {
        let path = FieldPath.root.appending("classifier")
        let reader = try JSONFieldReader(value, at: path)
        try reader.rejectUnknownKeys(["features", "means", "scales", "rooms", "elsewhere"])
        let expected = SiteModelClassifier.featureNames(rooms: rooms, nodes: nodes)
        let names = try reader.array(try reader.required("features"), key: "features")
        guard names == expected.map({ JSONValue.string($0) }) else {
            throw ConfigError(.invalidValue, path: path.appending("features"),
                              message: "expected the \(expected.count) features of the model's rooms and nodes: "
                                  + expected.joined(separator: ", "))
        }
        func numbers(_ value: JSONValue, at path: FieldPath, range: ClosedRange<Double>) throws(ConfigError) -> [Double] {
            guard case .array(let elements) = value else {
                throw ConfigError(.wrongType, path: path, message: "expected an array of \(expected.count) numbers")
            }
            guard elements.count == expected.count else {
                throw ConfigError(.invalidValue, path: path, message: "has \(elements.count) numbers, not \(expected.count)")
            }
            var result: [Double] = []
            for (index, element) in elements.enumerated() {
                guard case .number(let number) = element, range.contains(number.double) else {
                    throw ConfigError(.invalidValue, path: path.appending(index: index),
                                      message: "expected a number in \(JSONText.number(range.lowerBound))…\(JSONText.number(range.upperBound))")
                }
                result.append(number.double)
            }
            return result
        }
        let means = try numbers(try reader.required("means"), at: path.appending("means"), range: -1e6...1e6)
        let scales = try numbers(try reader.required("scales"), at: path.appending("scales"), range: 1e-9...1e6)
        let roomsPath = path.appending("rooms")
        let roomObject = try reader.requiredObject("rooms")
        var weights: [[Double]] = [], biases: [Double] = []
        for key in roomObject.object.keys where !rooms.contains(key) {
            throw ConfigError(.invalidValue, path: roomsPath.appending(key), message: "is not a room of the model")
        }
        for room in rooms {
            guard let entry = roomObject.optional(room) else {
                throw ConfigError(.missing, path: roomsPath.appending(room), message: "required (every room of the model)")
            }
            let roomReader = try JSONFieldReader(entry, at: roomsPath.appending(room))
            try roomReader.rejectUnknownKeys(["bias", "weights"])
            biases.append(try roomReader.number(try roomReader.required("bias"), key: "bias", in: -1e6...1e6))
            weights.append(try numbers(try roomReader.required("weights"), at: roomsPath.appending(room).appending("weights"), range: -1e6...1e6))
        }
        switch (reader.optional("elsewhere"), elsewhere) {
        case (let entry?, true):
            let classPath = path.appending("elsewhere")
            let classReader = try JSONFieldReader(entry, at: classPath)
            try classReader.rejectUnknownKeys(["bias", "weights"])
            biases.append(try classReader.number(try classReader.required("bias"), key: "bias", in: -1e6...1e6))
            weights.append(try numbers(try classReader.required("weights"), at: classPath.appending("weights"), range: -1e6...1e6))
        case (nil, true):
            throw ConfigError(.missing, path: path.appending("elsewhere"), message: "required when the model has \"elsewhere\"")
        case (.some, false):
            throw ConfigError(.invalidValue, path: path.appending("elsewhere"), message: "the model has no \"elsewhere\" (a top-level key)")
        case (nil, false):
            break
        }
        return SiteModelClassifier(means: means, scales: scales, weights: weights, biases: biases)
    }

    private static func look(from value: JSONValue, at path: FieldPath) throws(ConfigError) -> Look {
        let reader = try JSONFieldReader(value, at: path)
        try reader.rejectUnknownKeys(["heard", "mean", "sigma"])
        // `heard` is a probability; the filter takes its log and the log of its complement, so 0 and
        // 1 (which `learn` wrote before it kept within `heardBounds`) are read as the nearest bound.
        let heard = Look.boundedHeard(try reader.number(try reader.required("heard"), key: "heard", in: 0...1))
        let mean = try reader.number(try reader.required("mean"), key: "mean", in: -200...50)
        let sigma = try reader.number(try reader.required("sigma"), key: "sigma", in: 0.1...100)
        return Look(heard: heard, mean: mean, sigma: sigma)
    }

    /// Every hyper-parameter of the file's `parameters`, in the order written, with the values a
    /// file may give it: one list for writing, for the known keys and for reading.
    static var parameterFields: [(key: String, value: WritableKeyPath<SiteModelParameters, Double>, range: ClosedRange<Double>)] {
        [("sampleInterval", \.sampleInterval, 0.01...60), ("evidenceRate", \.evidenceRate, 0...1000),
         ("switchRate", \.switchRate, 0...1000), ("outlierShare", \.outlierShare, 0...0.5),
         ("outlierRange", \.outlierRange, 1...1000), ("minimumSigma", \.minimumSigma, 0.1...100),
         ("priorSnapshots", \.priorSnapshots, 0...1_000_000), ("switchOdds", \.switchOdds, 1...1_000_000),
         ("staleAfter", \.staleAfter, 0.1...86_400), ("classifierInterval", \.classifierInterval, 0.01...60),
         ("classifierPenalty", \.classifierPenalty, 0...1000), ("classifierIterations", \.classifierIterations, 0...100_000),
         ("handOverDwell", \.handOverDwell, 0...3600), ("handOverPosterior", \.handOverPosterior, 0...1),
         ("unwalkedMoveShare", \.unwalkedMoveShare, 0...1),
         ("levelSigma", \.levelSigma, 0.1...100), ("levelSwitchOdds", \.levelSwitchOdds, 1...1_000_000),
         ("levelEvidenceRate", \.levelEvidenceRate, 0...1000), ("levelSwitchRate", \.levelSwitchRate, 0...1000),
         ("levelMotionWeight", \.levelMotionWeight, 0...100), ("levelNeighbourOdds", \.levelNeighbourOdds, 1...1_000_000),
         ("levelUnwalkedMoveShare", \.levelUnwalkedMoveShare, 0...1), ("elsewhereGap", \.elsewhereGap, 0.1...1_000_000)]
    }

    private static func parameters(from value: JSONValue, at path: FieldPath,
                                   removed: inout [String]) throws(ConfigError) -> SiteModelParameters {
        let reader = try JSONFieldReader(value, at: path)
        let fields = parameterFields
        try reader.rejectUnknownKeys(fields.map(\.key) + removedKeys.parameters)
        for key in removedKeys.parameters where reader.optional(key) != nil { removed.append("parameters.\(key)") }
        var parameters = SiteModelParameters.default
        for field in fields {
            if let given = reader.optional(field.key) {
                parameters[keyPath: field.value] = try reader.number(given, key: field.key, in: field.range)
            }
        }
        return parameters
    }

    /// A syntax error with its byte offset turned into a line number.
    private static func syntaxError(_ error: ConfigError, in bytes: [UInt8]) -> SiteModelFileError {
        let marker = "at byte "
        var message = error.message
        var line: Int?
        if let range = message.firstRange(of: marker) {
            let digits = message[range.upperBound...].prefix { $0.isNumber }
            if let offset = Int(digits) {
                line = 1 + bytes.prefix(min(offset, bytes.count)).reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
                var rest = message[range.upperBound...].dropFirst(digits.count)
                if rest.hasPrefix(":") { rest = rest.dropFirst() }
                message = "invalid JSON:" + rest
            }
        }
        return SiteModelFileError(line: line, field: nil, message: message)
    }
}

extension SiteModelParameters {
    /// Sets the hyper-parameter a model file's `parameters` call `key`, to a value such a file may
    /// give it (for trying settings, `presence-bench evaluate --site-model-parameter`); false for an
    /// unknown key or a value out of its range.
    public mutating func set(_ key: String, to value: Double) -> Bool {
        guard let field = SiteModel.parameterFields.first(where: { $0.key == key }), field.range.contains(value) else {
            return false
        }
        self[keyPath: field.value] = value
        return true
    }
}
