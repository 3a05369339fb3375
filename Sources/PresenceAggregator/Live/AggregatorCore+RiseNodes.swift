import BeaconCore

/// Which nodes report rises, from their retained info, known before their first rise. A worn beacon gets
/// the rise rule while every node hearing it reports rises (`RoomDecider.wornSlotParameters`); the
/// decider also learns a node from its first rise report, which stays the fallback for nodes that
/// do not announce.
extension AggregatorCore {
    /// What changed for `node` after its info said `announcement`.
    public enum RiseNodeChange: Sendable, Hashable {
        /// Now taken as reporting rises.
        case reports
        /// No longer taken as reporting rises (until its next rise report).
        case reportsNone
        /// Nothing.
        case unchanged
    }

    /// Applies `node`'s info: `riseReports: true` marks it as reporting rises at once. `false` (an
    /// agent with rise reports off) unmarks it, as does an info without the field after one with
    /// `true` (the agent there was replaced by one older than the field, which may not report
    /// rises); either is learned again from its next rise report. An info without the field from a
    /// node that never announced (an agent older than the field, a node not ours) and an unreadable
    /// one change nothing.
    public mutating func noteRiseAnnouncement(node: String, _ announcement: NodeRiseAnnouncement) -> RiseNodeChange {
        let reportedBefore = decider.physics.reportsRises(node: node)
        switch announcement {
        case .announced(true):
            riseAnnouncedNodes.insert(node)
            decider.noteReportsRises(node: node)
        case .announced(false):
            riseAnnouncedNodes.remove(node)
            decider.forgetReportsRises(node: node)
        case .silent:
            guard riseAnnouncedNodes.remove(node) != nil else { return .unchanged }
            decider.forgetReportsRises(node: node)
        case .malformed:
            return .unchanged
        }
        let reportsNow = decider.physics.reportsRises(node: node)
        if reportsNow == reportedBefore { return .unchanged }
        return reportsNow ? .reports : .reportsNone
    }

    /// Whether `node` is taken as reporting rises (announced, or learned from a rise report).
    public func reportsRises(node: String) -> Bool { decider.physics.reportsRises(node: node) }

    /// Sends the level queries the last measurement's decision wants (`RoomDecider.takeLevelQueries()`):
    /// `{"beacon":"<id>"}` on `<root>/nodes/<node>/level`, QoS 0, not
    /// retained (a late answer is worthless). The node answers with a measurement carrying `levelRssi`.
    /// A mutating call, on every measurement: a non-mutating one on `decider` from this module
    /// copied the whole decider each time (callgrind: +1 % of the aggregator benchmark).
    mutating func askLevels(into out: inout [AggregatorPublication]) {
        for query in decider.takeLevelQueries() {
            guard let node = TopicLevelID(query.node) else { continue }
            out.append(AggregatorPublication(topic: topics.nodeLevel(node),
                                             payload: "{\"beacon\":\(JSONText.quoted(query.beacon.rawValue))}",
                                             retain: false, qos: 0))
        }
    }
}
