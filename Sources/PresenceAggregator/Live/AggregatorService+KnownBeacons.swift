import BeaconCore
import Logging

/// The known beacons an operator pushes on `<root>/config/beacons`, as the service applies them:
/// each applied list logged with what it holds, a rejected one logged naming the field while the
/// last good list stays in force.
extension AggregatorService {
    /// A `<root>/config/beacons` message: applied, or rejected with one log line naming the field.
    func applyKnownBeacons(_ payload: [UInt8], to core: inout AggregatorCore) -> [AggregatorPublication] {
        let topic = configuration.topics.configBeacons
        let kept = core.knownBeacons.pushed?.revision
        do {
            let out = try core.applyPushedBeacons(payload)
            if let pushed = core.knownBeacons.pushed {
                logger.info("known beacons pushed on the broker applied", metadata: [
                    "topic": "\(topic)", "revision": "\(pushed.revision)", "beacons": "\(pushed.beacons.count)",
                    "fileBeacons": "\(core.knownBeacons.file.count)",
                ])
            } else {
                logger.info("no known beacons pushed on the broker (topic empty): the file's alone are known", metadata: [
                    "topic": "\(topic)", "fileBeacons": "\(core.knownBeacons.file.count)",
                ])
            }
            for note in core.knownBeacons.notes {
                logger.notice("a pushed known beacon is not used as pushed", metadata: ["topic": "\(topic)", "entry": "\(note)"])
            }
            return out
        } catch {
            logger.error("known beacons pushed on the broker rejected; the last good list stays in force", metadata: [
                "topic": "\(topic)", "error": "\(error)", "revision": "\(error.messageRevision.map(String.init) ?? "-")",
                "keptRevision": "\(kept.map(String.init) ?? "none")",
            ])
            return []
        }
    }
}
