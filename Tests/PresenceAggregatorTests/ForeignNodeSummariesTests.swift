import BeaconCore
import PresenceAggregator
import Testing

/// A standby aggregator notes the foreign nodes it hears but publishes nothing: when it takes the
/// lead it must publish every node's summary, even those it once took as due and those whose
/// reports have not changed since (found by the contract test's failover site).
struct ForeignNodeSummariesTests {
    @Test func anInstanceThatTakesTheLeadPublishesEverySummary() {
        var summaries = ForeignNodeSummaries(topics: .default)
        summaries.note(.nodeInfo(node: "office", room: "office", version: nil,
                                 kind: .espresense(statusTopic: "espresense/rooms/office/status")))
        summaries.note(.nodeInfo(node: "gw-hall", room: "hall", version: nil, kind: .gateway(lastWillTopic: "home/gw-hall/LWT")))
        summaries.note(.nodeStatus(node: "office", online: true))
        // Following: the round falls due and a standby drops it.
        let dropped = summaries.due(at: Instant(seconds: 10))
        #expect(dropped.map(\.topic) == ["presence/aggregator/nodes/gw-hall", "presence/aggregator/nodes/office"])
        // Nothing changes; the instance leads.
        #expect(summaries.due(at: Instant(seconds: 20)).isEmpty)
        let lead = summaries.all()
        #expect(lead.map(\.topic) == ["presence/aggregator/nodes/gw-hall", "presence/aggregator/nodes/office"])
        #expect(lead.allSatisfy { $0.retain })
        #expect(lead.last?.payload.contains(#""status":"online""#) == true)
        // What it just sent is not sent again at the next round.
        #expect(summaries.due(at: Instant(seconds: 30)).isEmpty)
    }
}
