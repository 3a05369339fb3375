/// The model file: readable, versioned JSON, one room per line-block, written deterministically.
///
/// ```json
/// {
///   "format": "beacon-presence-site-model",
///   "version": 1,
///   "parameters": {"sampleInterval": 0.5, "evidenceRate": 4, …},
///   "rooms": [
///     {"name": "inside", "samples": 812, "nodes": {
///       "i-dl": {"heard": 0.998, "mean": -66.2, "sigma": 4.1},
///       …}},
///     …]
/// }
/// ```
/// Every room lists the same nodes. Unknown keys are errors (a typo must not leave a default in
/// force); `parameters` may leave keys out (the default applies).
extension SiteModel {
    /// The model as JSON text (ends with a newline).
    public var json: String {
        var text = "{\n"
        text += "  \"format\": \(JSONText.quoted(Self.format)),\n"
        text += "  \"version\": \(Self.version),\n"
        let p = parameters
        let values: [(String, Double)] = [
            ("sampleInterval", p.sampleInterval), ("evidenceRate", p.evidenceRate), ("switchRate", p.switchRate),
            ("outlierShare", p.outlierShare), ("outlierRange", p.outlierRange), ("minimumSigma", p.minimumSigma),
            ("priorSnapshots", p.priorSnapshots), ("switchOdds", p.switchOdds), ("staleAfter", p.staleAfter),
        ]
        text += "  \"parameters\": {"
        text += values.map { "\(JSONText.quoted($0.0)): \(JSONObjectWriter.number($0.1, decimals: 6))" }.joined(separator: ", ")
        text += "},\n  \"rooms\": [\n"
        for (roomIndex, room) in rooms.enumerated() {
            text += "    {\"name\": \(JSONText.quoted(room)), \"samples\": \(samples[roomIndex]), \"nodes\": {\n"
            for (nodeIndex, node) in nodes.enumerated() {
                let look = looks[roomIndex][nodeIndex]
                text += "      \(JSONText.quoted(node)): {\"heard\": \(JSONObjectWriter.number(look.heard, decimals: 4)), "
                text += "\"mean\": \(JSONObjectWriter.number(look.mean, decimals: 2)), "
                text += "\"sigma\": \(JSONObjectWriter.number(look.sigma, decimals: 2))}"
                text += nodeIndex == nodes.count - 1 ? "\n" : ",\n"
            }
            text += "    }}" + (roomIndex == rooms.count - 1 ? "\n" : ",\n")
        }
        text += "  ]\n}\n"
        return text
    }

    /// Parses a model file's bytes; never traps. Syntax errors name the line, value errors the field.
    public init(json bytes: [UInt8]) throws(SiteModelFileError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, maximumBytes: 16 << 20, maximumDepth: 8)
        } catch {
            throw Self.syntaxError(error, in: bytes)
        }
        do {
            self = try Self.model(from: value)
        } catch {
            throw SiteModelFileError(field: error.path.description, message: error.message)
        }
    }

    private static func model(from value: JSONValue) throws(ConfigError) -> SiteModel {
        let top = try JSONFieldReader(value, at: .root)
        try top.rejectUnknownKeys(["format", "version", "parameters", "rooms"])
        let format = try top.string(try top.required("format"), key: "format")
        guard format == Self.format else {
            throw ConfigError(.invalidValue, path: FieldPath.root.appending("format"),
                              message: "\(ConfigError.quoted(format)) is not \(JSONText.quoted(Self.format))")
        }
        let version = try top.integer(try top.required("version"), key: "version", in: 0...Int64(Int32.max))
        guard version == Int64(Self.version) else {
            throw ConfigError(.outOfRange, path: FieldPath.root.appending("version"),
                              message: "version \(version) is not supported (this program reads version \(Self.version))")
        }
        var parameters = SiteModelParameters.default
        if let given = top.optional("parameters") {
            parameters = try Self.parameters(from: given, at: FieldPath.root.appending("parameters"))
        }
        let roomValues = try top.array(try top.required("rooms"), key: "rooms")
        guard !roomValues.isEmpty else {
            throw ConfigError(.invalidValue, path: FieldPath.root.appending("rooms"), message: "a model needs at least one room")
        }
        var named: [(name: String, samples: Int, looks: [String: Look])] = []
        var nodeNames: [String]?
        for (index, roomValue) in roomValues.enumerated() {
            let path = FieldPath.root.appending("rooms").appending(index: index)
            let room = try JSONFieldReader(roomValue, at: path)
            try room.rejectUnknownKeys(["name", "samples", "nodes"])
            let name = try room.string(try room.required("name"), key: "name")
            guard !name.isEmpty, name != RoomDecision.notHome, !named.contains(where: { $0.name == name }) else {
                throw ConfigError(.invalidValue, path: path.appending("name"),
                                  message: "\(ConfigError.quoted(name)) is empty, not_home or a repeated room")
            }
            var samples = 0
            if let given = room.optional("samples") {
                samples = Int(try room.integer(given, key: "samples", in: 0...Int64(Int32.max)))
            }
            let nodesPath = path.appending("nodes")
            guard case .object(let nodesObject) = try room.required("nodes") else {
                throw ConfigError(.wrongType, path: nodesPath, message: "expected an object of node → look")
            }
            var looks: [String: Look] = [:]
            for node in nodesObject.keys {
                guard let lookValue = nodesObject[node] else { continue }
                looks[node] = try Self.look(from: lookValue, at: nodesPath.appending(node))
            }
            let names = nodesObject.keys.sorted()
            if let known = nodeNames, known != names {
                throw ConfigError(.invalidValue, path: nodesPath,
                                  message: "lists nodes \(names.joined(separator: ",")); rooms[0] lists \(known.joined(separator: ","))")
            }
            guard !names.isEmpty else { throw ConfigError(.invalidValue, path: nodesPath, message: "no nodes") }
            nodeNames = names
            named.append((name, samples, looks))
        }
        named.sort { $0.name < $1.name }
        let nodes = nodeNames ?? []
        return SiteModel(rooms: named.map(\.name), nodes: nodes,
                         looks: named.map { room in nodes.map { room.looks[$0]! } },
                         samples: named.map(\.samples), parameters: parameters)
    }

    private static func look(from value: JSONValue, at path: FieldPath) throws(ConfigError) -> Look {
        let reader = try JSONFieldReader(value, at: path)
        try reader.rejectUnknownKeys(["heard", "mean", "sigma"])
        // `heard` strictly inside 0…1: the filter takes its log and the log of its complement.
        let heard = try reader.number(try reader.required("heard"), key: "heard", in: 0.000001...0.999999)
        let mean = try reader.number(try reader.required("mean"), key: "mean", in: -200...50)
        let sigma = try reader.number(try reader.required("sigma"), key: "sigma", in: 0.1...100)
        return Look(heard: heard, mean: mean, sigma: sigma)
    }

    private static func parameters(from value: JSONValue, at path: FieldPath) throws(ConfigError) -> SiteModelParameters {
        let reader = try JSONFieldReader(value, at: path)
        try reader.rejectUnknownKeys(["sampleInterval", "evidenceRate", "switchRate", "outlierShare", "outlierRange",
                                      "minimumSigma", "priorSnapshots", "switchOdds", "staleAfter"])
        var p = SiteModelParameters.default
        func read(_ key: String, _ range: ClosedRange<Double>, into value: inout Double) throws(ConfigError) {
            if let given = reader.optional(key) { value = try reader.number(given, key: key, in: range) }
        }
        try read("sampleInterval", 0.01...60, into: &p.sampleInterval)
        try read("evidenceRate", 0...1000, into: &p.evidenceRate)
        try read("switchRate", 0...1000, into: &p.switchRate)
        try read("outlierShare", 0...0.5, into: &p.outlierShare)
        try read("outlierRange", 1...1000, into: &p.outlierRange)
        try read("minimumSigma", 0.1...100, into: &p.minimumSigma)
        try read("priorSnapshots", 0...1_000_000, into: &p.priorSnapshots)
        try read("switchOdds", 1...1_000_000, into: &p.switchOdds)
        try read("staleAfter", 0.1...86_400, into: &p.staleAfter)
        return p
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
