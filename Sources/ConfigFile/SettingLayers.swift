/// The layering both programs share: the documented defaults, then the YAML file, then the
/// environment, then the flags, each read through the program's `Setting` table. A later layer's
/// value overrides an earlier one's and remembers where it came from (for `check-config`); every
/// mistake is kept, not only the first, named by the field as the layer spells it and its place.
///
/// A layer is first gathered (`fileLayer`, `environmentLayer`, `flagLayer`), then applied
/// (`apply`), so that a program can check what only a whole layer shows (the aggregator refuses a
/// password and a password file in one layer) before any of it is taken.
public struct SettingLayers<ID: Hashable & Sendable, Configuration> {
    /// One layer's values: each setting's value, where it came from and how an error names it (its
    /// YAML path, variable or flag).
    public typealias Layer = [ID: (value: YAMLScalar, source: SettingSource, field: String)]

    public let table: [Setting<ID, Configuration>]
    /// The defaults with every value applied so far.
    public var configuration: Configuration
    /// Where each setting's value came from; absent: its default.
    public var sources: [ID: SettingSource] = [:]
    /// Every mistake so far, in the order found.
    public var problems: [SettingProblem] = []
    /// Keys (or whole sections) of settings since removed, each with why: the file's `fileLayer`
    /// ignores them with a warning instead of refusing the file, so that an older file still loads
    /// and decides as the program now does. Default none.
    public var removedKeys: [String: String] = [:]
    /// The removed keys a file gave (`removedKeys`), one warning each, in the order found.
    public var warnings: [SettingProblem] = []
    /// Settings some layer gave a value that was refused: checks across settings leave them out, so
    /// that one mistake gives one message.
    public private(set) var refused: Set<ID> = []

    private let positions: [ID: Int]
    private let fileNames: [String: ID]

    public init(_ table: [Setting<ID, Configuration>], configuration: Configuration) {
        self.table = table
        self.configuration = configuration
        positions = Dictionary(table.enumerated().map { ($0.element.id, $0.offset) }) { first, _ in first }
        fileNames = Dictionary(table.filter(\.inFile).map { ($0.name, $0.id) }) { first, _ in first }
    }

    /// The row of `id`; every id a program passes is in its own table.
    public func setting(_ id: ID) -> Setting<ID, Configuration> { table[positions[id]!] }

    /// The keys the table gives the file in `section` (`Array.fileKeys(in:)`).
    public func fileKeys(in section: String?) -> [String] { table.fileKeys(in: section) }

    // MARK: - Gathering layers

    /// The values of a YAML document. Its shape is checked as it is read, in the file's order: a
    /// key the table does not hold is passed to `other` (`beacons:`), and is an unknown key when
    /// `other` does not know it either (a typo must not leave a default in force; the error lists
    /// `knownKeys(section)`); a section must be a mapping, a value a scalar. An empty value
    /// (`username:`, an empty section) leaves the setting as it is. `other` is handed these layers,
    /// to record what it reads and its mistakes.
    public mutating func fileLayer(
        yaml text: String, file: String, knownKeys: (_ section: String?) -> [String],
        other: (inout SettingLayers, _ key: String, _ line: Int, _ value: YAMLNode) -> Bool
    ) -> Layer {
        func place(_ line: Int) -> SettingSource { .file(path: file, line: line) }
        let root: YAMLNode?
        do {
            root = try YAMLReader.parse(text)
        } catch {
            problems.append(SettingProblem(field: "", message: "not valid YAML: \(error.message)", source: place(error.line)))
            return [:]
        }
        guard let root else { return [:] }  // an empty file: defaults
        guard let mapping = root.mapping else {
            problems.append(SettingProblem(field: "", message: "expected a mapping of settings at the top level", source: place(root.line)))
            return [:]
        }
        let sections = Set(table.compactMap(\.section))
        // Every section and the sections within it (`a` and `a.b` of a setting `a.b.c`).
        let nested = Set(table.filter(\.inFile).flatMap { setting in
            let parts = setting.name.split(separator: ".")
            return (1..<max(parts.count, 1)).map { parts.prefix($0).joined(separator: ".") }
        })
        var layer: Layer = [:]
        func take(_ id: ID, _ path: String, _ line: Int, _ value: YAMLNode) {
            guard let scalar = value.scalar else {
                return problems.append(SettingProblem(field: path, message: setting(id).notAValue, source: place(line)))
            }
            if !scalar.isNull { layer[id] = (scalar, place(line), path) }
        }
        func unknown(_ path: String, _ section: String?, _ line: Int, _ value: YAMLNode) {
            if let why = removedKeys[path] {
                // A removed section names the keys it held, so the warning says what was ignored.
                let keys = value.mapping.map { " (\($0.entries.map(\.key).joined(separator: ", ")))" } ?? ""
                warnings.append(SettingProblem(field: path, message: "removed\(keys), ignored: \(why)", source: place(line)))
                return
            }
            let known = knownKeys(section).joined(separator: ", ")
            problems.append(SettingProblem(field: path, message: "unknown key (known keys: \(known))", source: place(line)))
        }
        /// A section's keys; a key that is itself a section is read the same way.
        func walk(_ section: YAMLMapping, in prefix: String) {
            for (innerKey, innerLine, innerValue) in section.entries {
                let path = prefix + "." + innerKey
                if let id = fileNames[path] {
                    take(id, path, innerLine, innerValue)
                } else if nested.contains(path) {
                    if innerValue.isNull { continue }
                    guard let inner = innerValue.mapping else {
                        problems.append(SettingProblem(field: path, message: "expected a mapping", source: place(innerLine)))
                        continue
                    }
                    walk(inner, in: path)
                } else {
                    unknown(path, prefix, innerLine, innerValue)
                }
            }
        }
        for (key, line, value) in mapping.entries {
            if sections.contains(key) {
                if value.isNull { continue }
                guard let section = value.mapping else {
                    problems.append(SettingProblem(field: key, message: "expected a mapping", source: place(line)))
                    continue
                }
                walk(section, in: key)
            } else if let id = fileNames[key] {
                take(id, key, line, value)
            } else if !other(&self, key, line, value) {
                unknown(key, nil, line, value)
            }
        }
        return layer
    }

    /// The variables set in `environment`, named by the variable. `ignoringEmpty`: a variable set to
    /// nothing leaves the setting as it is (otherwise the empty text is its value).
    public func environmentLayer(_ environment: [String: String], ignoringEmpty: Bool) -> Layer {
        var layer: Layer = [:]
        for setting in table {
            guard let variable = setting.environmentVariable, let text = environment[variable] else { continue }
            if ignoringEmpty && text.isEmpty { continue }
            layer[setting.id] = (YAMLScalar(text, style: .tagged), .environment(variable), variable)
        }
        return layer
    }

    /// The flags given, as text, named by the flag.
    public func flagLayer(_ flags: [ID: String]) -> Layer {
        var layer: Layer = [:]
        for (id, text) in flags {
            let flag = setting(id).flag ?? setting(id).name
            layer[id] = (YAMLScalar(text, style: .tagged), .flag(flag), flag)
        }
        return layer
    }

    // MARK: - Applying a layer

    /// Checks and stores each value of `layer`, in the table's order (so the errors' order does not
    /// depend on hashing). A refused value is named and the setting keeps its earlier value; the next
    /// settings are still read. Returns the settings that took their value.
    @discardableResult
    public mutating func apply(_ layer: Layer) -> Set<ID> {
        var applied: Set<ID> = []
        for setting in table {
            guard let (value, source, field) = layer[setting.id] else { continue }
            do {
                try setting.read(&configuration, value)
                sources[setting.id] = source
                applied.insert(setting.id)
            } catch {
                refused.insert(setting.id)
                let message = (error as? SettingError)?.message ?? "\(error)"
                problems.append(SettingProblem(field: field, message: message, source: source))
            }
        }
        return applied
    }

    /// Records a value a program set itself (a typed flag), as coming from `source`.
    public mutating func record(_ id: ID, from source: SettingSource) {
        sources[id] = source
    }

    // MARK: - check-config

    /// Every setting of the table with its effective value and where it came from, in the table's
    /// order.
    public var effectiveSettings: [EffectiveSetting] {
        table.map { EffectiveSetting(key: $0.name, value: $0.show(configuration), source: sources[$0.id] ?? .defaultValue) }
    }
}

extension SettingLayers: Sendable where Configuration: Sendable {}

extension Array {
    /// The keys a settings table gives the file in `section` (nil: the top level, sections
    /// included), in the table's order and as written inside the section (`dwell`, not
    /// `decision.dwell`): what an unknown key's error lists.
    public func fileKeys<ID, Configuration>(in section: String?) -> [String] where Element == Setting<ID, Configuration> {
        var keys: [String] = []
        for setting in self where setting.inFile {
            let key = section == nil ? (setting.section ?? setting.name) : setting.section == section ? setting.key : nil
            if let key, !keys.contains(key) { keys.append(key) }
        }
        return keys
    }
}
