/// Where a setting's effective value came from, as `check-config` shows it: the documented default,
/// a line of the configuration file, an environment variable, a command-line flag, or a file the
/// program keeps.
public enum SettingSource: Hashable, Sendable, CustomStringConvertible {
    case defaultValue
    case file(path: String, line: Int)
    case environment(String)
    case flag(String)
    /// A file the program keeps itself (the aggregator's node calibration in its state directory):
    /// not configuration, but what it starts from.
    case kept(path: String)

    /// `default`, `agent.yaml:7`, `PRESENCE_ROOM`, `--broker`.
    public var description: String {
        switch self {
        case .defaultValue: "default"
        case .file(let path, let line): "\(path):\(line)"
        case .environment(let variable): variable
        case .flag(let flag): flag
        case .kept(let path): path
        }
    }

    /// The `file:line: ` that starts an error about a value from the file, else nothing: a variable
    /// or flag is named by the error's field already.
    public var errorPrefix: String {
        if case .file = self { return "\(self): " }
        return ""
    }
}
