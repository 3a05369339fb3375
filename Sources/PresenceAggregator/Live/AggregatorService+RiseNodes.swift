import BeaconCore
import Logging

/// Which nodes report rises, as the service learns it from their retained info: one log line when a
/// node is taken as reporting rises or no longer, one naming the field for an unreadable info (the
/// node keeps what was known of it).
extension AggregatorService {
    /// A node's info (`<root>/nodes/<node>/info`): its `riseReports` applied to the decision.
    func noteRiseAnnouncement(node: String, _ payload: [UInt8], in core: inout AggregatorCore) {
        let announcement = NodeRiseAnnouncement(infoPayload: payload)
        if case .malformed(let problem) = announcement {
            logger.warning("node info unreadable; which nodes report rises is left as it was", metadata: [
                "node": "\(node)", "field": "\(NodeRiseAnnouncement.field)", "error": "\(problem)",
            ])
            return
        }
        switch core.noteRiseAnnouncement(node: node, announcement) {
        case .reports:
            logger.info("node reports rises of worn beacons (its info says so): they may get the rise rule", metadata: ["node": "\(node)"])
        case .reportsNone:
            logger.info("node no longer taken as reporting rises (its info says so) until its next rise report", metadata: ["node": "\(node)"])
        case .unchanged:
            break
        }
    }
}
