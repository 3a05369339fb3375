import BeaconCore

/// Drives the agent's tracking and the aggregator's room decision from a trace, on a virtual clock
/// (the trace's own time): per (beacon, node) the node's real `BeaconTrack` (Kalman filter,
/// distance, proximity, publish policy), and only what a node would actually publish reaches the
/// `RoomDecider` — exactly what the live aggregator would have seen over MQTT.
public struct TraceReplay: Sendable {
    /// One input sample after the node's filter (`--output measurements`).
    public struct Measurement: Sendable, Hashable {
        public var sample: TraceSample
        public var update: TrackUpdate
    }

    /// What one sample caused: its measurement and any decisions that changed (timeouts first,
    /// then the decision the published measurement caused).
    public struct Step: Sendable {
        public var measurement: Measurement
        public var decisions: [RoomDecision]
    }

    private struct TrackKey: Hashable, Sendable {
        var beacon: BeaconID
        var node: String
    }

    public let tracking: TrackingParameters
    public private(set) var decider: RoomDecider
    private var tracks: [TrackKey: BeaconTrack] = [:]

    public init(tracking: TrackingParameters = .default, decision: RoomDecisionParameters = .default) {
        self.tracking = tracking
        decider = RoomDecider(parameters: decision)
    }

    /// Folds in one trace sample at its own time.
    public mutating func step(_ sample: TraceSample) -> Step {
        // Time passes first: the aggregator ticks between measurements (dwell, stale, away).
        var decisions = decider.tick(at: sample.time)
        let key = TrackKey(beacon: sample.beacon, node: sample.node)
        var track = tracks.removeValue(forKey: key) ?? BeaconTrack(parameters: tracking)
        let update = track.observe(rssi: sample.rssi, measuredPower: sample.measuredPower, at: sample.time)
        tracks[key] = track
        if update.shouldPublish {
            let evidence = NodeEvidence(beacon: sample.beacon, node: sample.node, room: sample.room,
                                        rssiFiltered: update.rssiFiltered, sigma: update.sigma,
                                        distance: update.distance, proximity: update.proximity)
            if let decision = decider.update(evidence, at: sample.time) { decisions.append(decision) }
        }
        return Step(measurement: Measurement(sample: sample, update: update), decisions: decisions)
    }

    /// Replays `samples` and returns the decision rows (time of each change and the decision).
    public static func decisions(
        of samples: [TraceSample], tracking: TrackingParameters = .default,
        decision: RoomDecisionParameters = .default
    ) -> [(time: Instant, decision: RoomDecision)] {
        var replay = TraceReplay(tracking: tracking, decision: decision)
        var rows: [(time: Instant, decision: RoomDecision)] = []
        for sample in samples {
            for decision in replay.step(sample).decisions { rows.append((sample.time, decision)) }
        }
        return rows
    }
}
