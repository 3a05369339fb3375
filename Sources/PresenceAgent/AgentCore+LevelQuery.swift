import BeaconCore

/// Level queries (docs/MQTT.md, `<root>/nodes/<node>/level`). A worn
/// beacon's rise at node B switches the aggregator's room only when it leads the held room A by
/// the rise rule's margin, and A's level is A's last published measurement: up to a second old,
/// and never sent when A fades. So the aggregator asks A for the beacon's level now, and A answers
/// at once with the beacon's current measurement plus `levelRssi`, the loudest advert of the last
/// `rise.within` seconds (`null` when none was heard then).
///
/// Only while rise reports are on (`tracking.rise.isOn`, announced as `riseReports` in the info),
/// and only for a beacon tracked as worn and still heard. One answer per beacon per
/// `levelAnswerInterval` at most, so a flood of queries cannot flood the broker; a malformed query
/// gets a warning naming the field (one a minute, with the count) and changes nothing.
extension AgentCore {
    /// What level queries left behind: when each beacon last answered, and what was dropped.
    struct LevelQueries: Sendable {
        /// The last answer per beacon; only worn, tracked beacons answer, so the known list bounds it.
        var lastAnswer: [BeaconID.Components: Instant] = [:]
        /// Queries not answered because their beacon had answered within `levelAnswerInterval`.
        var dropped = 0
        /// Malformed queries: one warning at once, then at most one a minute with the count.
        var warnings = RepeatedLogGate(interval: 60)
    }

    /// Shortest time between two answers for one beacon, seconds: 0.2 s.
    public static let levelAnswerInterval = 0.2

    /// The topic this node reads level queries on; nil while its rise reports are off (it then
    /// does not subscribe).
    public var levelQueryTopic: String? {
        effective.tracking.rise.isOn ? effective.topics.nodeLevel(effective.node) : nil
    }

    /// Queries dropped by the once-per-`levelAnswerInterval` limit since the start (telemetry).
    public var levelQueriesDropped: Int { levelQueries.dropped }

    /// A message on `levelQueryTopic` at `time`: the beacon's measurement with `levelRssi` to
    /// publish at once, or nothing (not tracked, not worn, no longer heard, answered too recently);
    /// a warning when the query is malformed.
    public mutating func receiveLevelQuery(_ payload: [UInt8], at time: Instant) -> [AgentAction] {
        guard let topic = levelQueryTopic else { return [] }
        let key: BeaconID.Components
        do {
            key = try queriedBeacon(payload)
        } catch {
            return levelQueryWarning(error, topic: topic, at: time)
        }
        guard let slot = tracks.slot(of: key), let level = tracks[slot].track.levelNow(at: time, trackTuning) else { return [] }
        if let last = levelQueries.lastAnswer[key], time.seconds >= last.seconds,
           time - last < Self.levelAnswerInterval
        {
            levelQueries.dropped += 1
            return []
        }
        guard let update = tracks[slot].track.current(at: time, trackTuning) else { return [] }
        if levelQueries.lastAnswer.count >= 64 {
            // Forget the answers that no longer limit anything (beacons no longer known keep none).
            levelQueries.lastAnswer = levelQueries.lastAnswer.filter { time - $0.value < Self.levelAnswerInterval }
        }
        levelQueries.lastAnswer[key] = time
        return [.publish(measurement(slot, update, level: .some(level), at: tracks[slot].lastHeard))]
    }

    /// The beacon a query names: `{"beacon":"<canonical id>"}`, or a known beacon's alias there.
    /// Throws naming the field: not JSON, not an object, no `beacon`, not a string, not an id.
    func queriedBeacon(_ payload: [UInt8]) throws(ConfigError) -> BeaconID.Components {
        let query = try JSONFieldReader(try JSONParser.parse(payload), at: .root)
        let text = try query.requiredString("beacon")
        if let alias = knownByAlias[text] { return alias }
        do {
            return try BeaconID.components(parsing: text)
        } catch {
            throw ConfigError(
                .invalidValue, path: FieldPath.root.appending("beacon"),
                message: "\(ConfigError.quoted(text)) is neither a canonical beacon id nor a known beacon's alias (\(error.message))")
        }
    }

    private mutating func levelQueryWarning(_ error: ConfigError, topic: String, at time: Instant) -> [AgentAction] {
        guard let summary = levelQueries.warnings.summary(at: time) else { return [] }
        let count = summary.count > 1 ? " (malformed level queries: \(summary))" : ""
        return [.log(level: .warning, message: "ignored a malformed level query on \(topic): \(error)\(count)")]
    }
}
