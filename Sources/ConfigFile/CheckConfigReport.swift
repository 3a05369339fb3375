/// What `check-config` prints, in one shape for both programs: when the configuration is accepted,
/// the effective settings on standard output (`EffectiveSetting.table`: key, value, source) and
/// status 0; otherwise nothing on standard output, every mistake on standard error, one a line after
/// the program's own prefix for errors (the agent's `error: `, the aggregator's `check-config: `, as
/// their other commands print errors), and status 2.
public struct CheckConfigReport: Hashable, Sendable {
    public var standardOutput: String
    public var standardError: String
    public var status: Int32

    /// `errors` as each renders itself (`agent.yaml:4: tracking.heartbeat: …`), in the order found.
    public init(settings: [EffectiveSetting], errors: [String], errorPrefix: String) {
        if errors.isEmpty {
            standardOutput = EffectiveSetting.table(settings)
            standardError = ""
            status = 0
        } else {
            standardOutput = ""
            standardError = errors.map { errorPrefix + $0 + "\n" }.joined()
            status = 2
        }
    }
}
