/// One row of a program's settings table: the name the file, `check-config` and errors give the
/// setting, the environment variable and flag that override it, its documented default, the check
/// that turns a given value into the configuration's, and how its effective value is shown.
///
/// Both programs describe their settings so, and `SettingLayers` reads the file, the environment and
/// the flags through the table: one place says what a key, variable or flag sets.
public struct Setting<ID: Hashable & Sendable, Configuration>: Sendable {
    /// The program's own handle on the setting (an enum case, or the name itself).
    public let id: ID
    /// As the file spells it (`decision.dwell`, `broker.url`), and as `check-config` and errors name
    /// it; a flag-only setting's name (`exitAtEnd`) is not a key of the file.
    public let name: String
    /// False for a setting only a flag gives: the file refuses its name as an unknown key.
    public let inFile: Bool
    public let environmentVariable: String?
    /// The long flag (`--dwell`), if any.
    public let flag: String?
    /// The documented default, as `check-config` shows it when nothing sets the setting.
    public let defaultValue: String
    /// What the file is told when a list or mapping stands where this setting's value belongs.
    public let notAValue: String
    /// Checks a value and stores it: the file's scalar, or a variable's or flag's text (as a `!!str`
    /// scalar: text, whatever it looks like). Throws a `SettingError` saying what is wrong with the
    /// value; the layer names the field and where the value came from.
    public let read: @Sendable (inout Configuration, YAMLScalar) throws -> Void
    /// The effective value as `check-config` prints it (a secret only as `EffectiveSetting.secret`).
    public let show: @Sendable (Configuration) -> String

    public init(
        _ id: ID, _ name: String, inFile: Bool = true, environment: String? = nil, flag: String? = nil,
        default defaultValue: String, notAValue: String = "expected a single value, not a list or mapping",
        read: @escaping @Sendable (inout Configuration, YAMLScalar) throws -> Void,
        show: @escaping @Sendable (Configuration) -> String
    ) {
        self.id = id
        self.name = name
        self.inFile = inFile
        self.environmentVariable = environment
        self.flag = flag
        self.defaultValue = defaultValue
        self.notAValue = notAValue
        self.read = read
        self.show = show
    }

    /// The file's section the setting sits in (`decision` of `decision.dwell`); nil at the top level.
    public var section: String? {
        guard inFile, let dot = name.firstIndex(of: ".") else { return nil }
        return String(name[..<dot])
    }

    /// The key within its section (`dwell` of `decision.dwell`).
    public var key: String {
        guard let dot = name.firstIndex(of: ".") else { return name }
        return String(name[name.index(after: dot)...])
    }
}

/// What is wrong with one value, without the field: the layer that read the value names it.
public struct SettingError: Error, Hashable, Sendable {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }
}

/// One mistake found while reading the layers: the field as the layer names it (a YAML path, a
/// variable or a flag; empty for the file as a whole), what is wrong, and where the value came from.
///
/// Renders as `field: message`, a file's line leading it (`aggregator.yaml:7: decision.dwell: …`);
/// the aggregator reports it as it is (`AggregatorConfigurationError`), the agent adds the variable
/// or flag to the field (`AgentConfiguration.Error`).
public struct SettingProblem: Error, Hashable, Sendable, CustomStringConvertible {
    public var field: String
    public var message: String
    public var source: SettingSource?

    public init(field: String, message: String, source: SettingSource? = nil) {
        self.field = field
        self.message = message
        self.source = source
    }

    public var description: String { (source?.errorPrefix ?? "") + (field.isEmpty ? "" : "\(field): ") + message }
}
