/// One line of `check-config`'s output: a setting's name as the file spells it, its effective value
/// (secrets shown only as `(set)`) and where that value came from.
public struct EffectiveSetting: Hashable, Sendable {
    public var key: String
    public var value: String
    public var source: SettingSource

    public init(key: String, value: String, source: SettingSource) {
        self.key = key
        self.value = value
        self.source = source
    }

    /// A value that must not be printed (a password): whether it is set, never what it is.
    public static func secret(_ isSet: Bool) -> String { isSet ? "(set)" : "(none)" }

    /// Three aligned columns, `key  value  source`, one setting a line, for a person to read.
    public static func table(_ settings: [EffectiveSetting]) -> String {
        let keyWidth = settings.map(\.key.count).max() ?? 0
        let valueWidth = min(settings.map(\.value.count).max() ?? 0, 48)
        func padded(_ text: String, _ width: Int) -> String {
            text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
        }
        return settings.map { setting in
            padded(setting.key, keyWidth) + "  " + padded(setting.value, valueWidth) + "  " + setting.source.description + "\n"
        }.joined()
    }
}
