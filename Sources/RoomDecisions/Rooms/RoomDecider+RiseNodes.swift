import BeaconCore

/// Which rule a worn beacon gets, by the nodes that hear it: the rise rule only while every node
/// hearing it reports rises, since a node that does not can never show the rise of a move.
///
/// A node is known to report rises once it has sent one (`NodeRecord.reportsRises`), or once its
/// agent announced it (`noteReportsRises(node:)`, from the node's retained info): our agents do
/// for a beacon marked worn; ESPresense nodes, gateways and older agents never do. Nothing to
/// configure. A node that does not announce counts from its first rise report, so until then a
/// worn beacon is decided with the worn profile as before, never worse.
extension RoomDecider {
    /// Decides the beacon in `slot` as worn on a body (`wornSlotParameters(_:)`) or not (`parameters`).
    /// Its room stays; the next evaluation applies the other rule.
    public mutating func setWorn(_ worn: Bool, for slot: BeaconSlot) {
        if worn { wornSlots.insert(slot.index) } else { wornSlots.remove(slot.index) }
        tickSchedule.evaluateAtNextTick(slot.index)
    }

    /// Whether the beacon in `slot` is decided as worn.
    public func isWorn(_ slot: BeaconSlot) -> Bool { wornSlots.contains(slot.index) }

    /// A worn beacon's parameters: `wornRiseParameters` when every node holding evidence of it
    /// reports rises, `wornMixedParameters` when some do, `wornParameters` when none do (or the
    /// rise rule is off).
    func wornSlotParameters(_ slot: Int) -> RoomDecisionParameters {
        guard let rise = wornRiseParameters, let mixed = wornMixedParameters else { return wornParameters }
        var reporting = 0, silent = 0
        states[slot].lists.withHeld { held in
            for entry in held {
                if nodes[Int(entry.node)].reportsRises { reporting += 1 } else { silent += 1 }
            }
        }
        if reporting == 0 { return wornParameters }
        return silent == 0 ? rise : mixed
    }

    /// Takes `node` as one that reports rises before it has sent one: its agent says so in its
    /// retained info (`riseReports`), or a replay takes its nodes as our agents (`TraceReplay.announcesRises`).
    public mutating func noteReportsRises(node: String) {
        nodes[Int(nodeCode(node))].reportsRises = true
    }

    /// Takes `node` as one that reports no rises until its next rise report (its agent says its rise
    /// reports are off, or it was replaced by an older one). A node never heard of stays unknown.
    public mutating func forgetReportsRises(node: String) {
        guard let index = nodeNames.firstIndex(of: node) else { return }
        nodes[index].reportsRises = false
    }

    /// Whether `node` has sent a rise report, so that worn beacons it hears may use the rise rule.
    public func reportsRises(node: String) -> Bool {
        nodeNames.firstIndex(of: node).map { nodes[$0].reportsRises } ?? false
    }

    /// A question to one node: its level of a beacon now (`SwitchingRule.riseQuery`; the
    /// aggregator sends it on `<root>/nodes/<node>/level`, docs/MQTT.md).
    public struct LevelQuery: Sendable, Hashable {
        /// The beacon asked about.
        public var beacon: BeaconID
        /// The node asked: one that reports rises, whose last published level keeps a waiting
        /// rise report from leading.
        public var node: String

        /// Creates a query.
        public init(beacon: BeaconID, node: String) {
            self.beacon = beacon
            self.node = node
        }
    }

    /// The level queries the last updates want sent, oldest first; each returned once. A rise
    /// report that fails the lead (and waits, `risePending`) asks the nodes whose last published
    /// advert blocks it, at most once per `riseQuery` seconds per beacon; their answers are
    /// measurements like any other, whose `rssi` is the level now (`NodeEvidence.unheardLevel`
    /// when they heard nothing in their last second), and the waiting report meets them.
    public mutating func takeLevelQueries() -> [LevelQuery] {
        // Called on every measurement: nearly always none, so no copy-out and no clearing.
        if levelQueries.isEmpty { return [] }
        defer { levelQueries.removeAll(keepingCapacity: true) }
        return levelQueries
    }

    /// Collects the queries of `slot`'s rise report that has just failed its lead and waits until
    /// `until` (a report that waited before it keeps its own time): at most one per `riseQuery`.
    mutating func noteLevelQuery(slot: Int, waitingSince until: Double, at time: Instant) {
        let p = parameters(forSlot: slot)
        guard p.rule.riseQuery > 0, until == time.seconds + p.rule.risePending,
              time.seconds - (lastLevelQuery[slot] ?? -.infinity) >= p.rule.riseQuery,
              let beacon = slotBeacons[slot] else { return }
        let blocking = states[slot].blockingNodes(p)
        guard !blocking.isEmpty else { return }
        lastLevelQuery[slot] = time.seconds
        for node in blocking where nodes[Int(node)].reportsRises {
            levelQueries.append(LevelQuery(beacon: beacon, node: nodeNames[Int(node)]))
        }
    }
}
