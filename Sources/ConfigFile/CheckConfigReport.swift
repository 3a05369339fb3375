/// What `check-config` prints, in one shape for both programs: when the configuration is accepted,
/// the effective settings on standard output (`EffectiveSetting.table`: key, value, source) and
/// status 0; otherwise nothing on standard output, every mistake on standard error, one a line after
/// the program's own prefix for errors (the agent's `error: `, the aggregator's `check-config: `, as
/// their other commands print errors), and status 2. Warnings (keys of removed settings, ignored)
/// go to standard error either way, each after `warningPrefix`.
public struct CheckConfigReport: Hashable, Sendable {
    public var standardOutput: String
    public var standardError: String
    public var status: Int32

    /// `errors` and `warnings` as each renders itself (`agent.yaml:4: tracking.heartbeat: …`), in the order found.
    public init(settings: [EffectiveSetting], errors: [String], warnings: [String] = [], errorPrefix: String,
                warningPrefix: String = "warning: ") {
        let warned = warnings.map { warningPrefix + $0 + "\n" }.joined()
        if errors.isEmpty {
            standardOutput = EffectiveSetting.table(settings)
            standardError = warned
            status = 0
        } else {
            standardOutput = ""
            standardError = warned + errors.map { errorPrefix + $0 + "\n" }.joined()
            status = 2
        }
    }
}
