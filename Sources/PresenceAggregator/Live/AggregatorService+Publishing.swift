import BeaconCore
import Logging
import MQTTClient
import RoomDecisions

/// The service's publishing path: what the core returns goes to the broker while fewer than
/// `publishingWindow` messages wait for it, else into the `PublicationBacklog`; refused
/// publications and dropped events are counted and summarised in the log.
extension AggregatorService {
    /// `send` on the publishing connection; when something still waits, `wake(publisher, half)`
    /// once, to be woken when the broker has caught up half the window even if no input comes.
    /// Without a publishing connection (not leading) what waited is another instance's to send.
    func sendOrHold(_ out: [AggregatorPublication], backlog: inout PublicationBacklog, on publisher: MQTTConnection?,
                    roomAwaited: inout Bool, wake: (MQTTConnection, Int) -> Void) {
        guard let publisher else {
            if !backlog.isEmpty {
                backlog.removeAll()
                noteBacklog(backlog)
            }
            return
        }
        if send(out, backlog: &backlog, on: publisher), !roomAwaited {
            roomAwaited = true
            wake(publisher, publishingWindow / 2)
        }
    }

    /// At shutdown: what still waited for the broker is not sent.
    func noteUnsent(_ backlog: PublicationBacklog) {
        guard !backlog.isEmpty else { return }
        logger.warning("aggregator stops with publications waiting for the broker", metadata: ["waiting": "\(backlog.count)"])
    }

    /// Publishes `out` on `connection` while fewer than `publishingWindow` messages wait for the
    /// broker; beyond that they join the backlog (state coalesced per topic), which is sent, oldest
    /// first, as the window frees. Returns whether anything still waits.
    func send(_ out: [AggregatorPublication], backlog: inout PublicationBacklog, on connection: MQTTConnection) -> Bool {
        if backlog.isEmpty, out.isEmpty { return false }
        var room = publishingWindow - connection.statistics.pendingMessages
        if backlog.isEmpty, out.count <= room {
            publish(out, on: connection)
            return false
        }
        let droppedBefore = backlog.droppedEvents
        for publication in out { backlog.add(publication) }
        if backlog.droppedEvents > droppedBefore {
            let now = clock.now()
            logDroppedEvents(droppedEventLog.withLock { $0.summary(backlog.droppedEvents - droppedBefore, at: now) })
        }
        while room > 0, let next = backlog.next() {
            publish([next], on: connection)
            room -= 1
        }
        noteBacklog(backlog)
        return !backlog.isEmpty
    }

    func logDroppedEvents(_ summary: RepeatedLogGate.Summary?) {
        guard let summary else { return }
        logger.warning("aggregator events dropped: the broker is behind", metadata: [
            "dropped": "\(summary.count)", "seconds": "\(Int(summary.seconds.rounded()))",
            "backlogEventLimit": "\(backlogEventLimit)",
        ])
    }

    func noteBacklog(_ backlog: PublicationBacklog) {
        counters.withLock {
            $0.waitingPublications = backlog.count
            $0.coalescedPublications = backlog.coalesced
            $0.droppedEvents = backlog.droppedEvents
        }
    }

    func publish(_ publications: [AggregatorPublication], on connection: MQTTConnection) {
        for publication in publications {
            do {
                try connection.publish(
                    topic: publication.topic, string: publication.payload,
                    qos: publication.qos >= 1 ? .atLeastOnce : .atMostOnce, retain: publication.retain)
            } catch {
                counters.withLock { $0.failedPublications += 1 }
                let now = clock.now()
                logPublicationFailures(publicationFailureLog.withLock { $0.summary(at: now) }, last: error, topic: publication.topic)
            }
        }
    }

    /// One line for the publications refused since the last (`failed` of them in `seconds`), with
    /// the last one's error and topic.
    func logPublicationFailures(_ summary: RepeatedLogGate.Summary?, last error: MQTTError?, topic: String?) {
        guard let summary else { return }
        var metadata: Logger.Metadata = ["failed": "\(summary.count)", "seconds": "\(Int(summary.seconds.rounded()))"]
        if let error { metadata["lastError"] = "\(error.message)" }
        if let topic { metadata["lastTopic"] = "\(topic)" }
        logger.warning("aggregator publications failed", metadata: metadata)
    }

    /// At a tick: the unknown beacons evicted since the last (counted, one line a minute), and the
    /// tails of floods (malformed measurements, refused publications, dropped events), reported
    /// even when nothing more comes.
    func logAtTick(_ time: Instant, evicted: Int, noted: inout Int, evictionLog: inout RepeatedLogGate,
                   malformedLog: inout RepeatedLogGate) {
        counters.withLock { $0.evictedBeacons = evicted }
        let evictions = evicted > noted ? evictionLog.summary(evicted - noted, at: time) : evictionLog.flush(at: time)
        if let evictions {
            logger.warning("unknown beacons evicted: more than maxUnknownBeacons heard", metadata: [
                "evicted": "\(evictions.count)", "seconds": "\(Int(evictions.seconds.rounded()))",
                "total": "\(evicted)", "maxUnknownBeacons": "\(configuration.maxUnknownBeacons)",
            ])
        }
        noted = evicted
        if let malformed = malformedLog.flush(at: time) {
            logger.warning("malformed measurements ignored", metadata: [
                "count": "\(malformed.count)", "seconds": "\(Int(malformed.seconds.rounded()))",
            ])
        }
        logPublicationFailures(publicationFailureLog.withLock { $0.flush(at: time) }, last: nil, topic: nil)
        logDroppedEvents(droppedEventLog.withLock { $0.flush(at: time) })
    }

    /// A node calibration's offsets in force, where each is applied, and what it rejected, when
    /// any changed since the last one logged (offsets to the half dB; rejections by kind and
    /// subject, so that a blocked path whose dB move a little each solve is said once). Where is
    /// not known before the nodes' info (a restored calibration): said from the first solve on.
    func logCalibration(_ calibration: NodeCalibration, applications: [String: NodeCalibrationState.Application] = [:],
                        logged: inout String?) {
        func whereApplied(_ node: String) -> String {
            switch applications[node] {
            case .agent?: " pushed"
            case .operator?: " (the operator's wins)"
            case .aggregator?: " at input"
            case nil: ""
            }
        }
        let applied = calibration.applicableOffsets.sorted { $0.key < $1.key }
            .map { "\($0.key) \((($0.value * 2).rounded() / 2)) dB\(whereApplied($0.key))" }.joined(separator: ", ")
        let rejected = calibration.rejections.map(\.description).joined(separator: "; ")
        let summary = applied + "|" + calibration.rejections.map { "\($0.kind.rawValue) \($0.subject)" }.joined(separator: ";")
        guard summary != logged else { return }
        logged = summary
        logger.notice("node calibration", metadata: [
            "applied": "\(applied.isEmpty ? "none" : applied)", "basis": "\(calibration.basis.rawValue)",
            "rejected": "\(rejected.isEmpty ? "none" : rejected)",
        ])
    }

    /// The calibration kept in the state directory at the last run, applied from the start.
    func restoreCalibration(into core: inout AggregatorCore) {
        let path = configuration.stateDir + "/" + NodeCalibrationFile.name
        do {
            guard let kept = try NodeCalibrationFile.load(path: path) else { return }
            core.restoreCalibration(kept)
            var logged: String?
            logCalibration(kept, logged: &logged)
        } catch {
            logger.warning("node calibration not restored; solving it again from the adverts", metadata: ["error": "\(error)"])
        }
    }

    /// Saves each solve to the state directory; a failure is logged when it is new (a missing
    /// directory fails every minute, and is said once): the calibration runs on, solved again
    /// after a restart.
    func keepCalibration(_ calibration: NodeCalibration, failure: inout String?) {
        do {
            try NodeCalibrationFile.save(calibration, path: configuration.stateDir + "/" + NodeCalibrationFile.name)
            failure = nil
        } catch {
            guard error.description != failure else { return }
            failure = error.description
            logger.warning("node calibration not kept across restarts (stateDir); it runs on and is solved again after a restart", metadata: ["error": "\(error)"])
        }
    }
}
