import BeaconCore
import RoomDecisions

/// Drives the agent's tracking and the aggregator's room decision from a trace, on a virtual clock
/// (the trace's own time): per (beacon, node) the node's real `BeaconTrack` (Kalman filter,
/// distance, proximity, publish policy), and only what a node would actually publish reaches the
/// `RoomDecider` — exactly what the live aggregator would have seen over MQTT. Like a live node,
/// which ticks at least once a second, every track is checked for silence at each sample's time
/// and at each one-second tick, and its one `unknown` measurement is delivered then. A recorded
/// trace of published measurements (docs/Files.md "Recorded traces") skips the nodes' filter: its rows
/// are handed to the decision as the aggregator received them. With a site model
/// (`SiteModelDecider`) the model decides, beside the physics decision it falls back on.
public struct TraceReplay: Sendable {
    /// One input sample after the node's filter (`--output measurements`).
    public struct Measurement: Sendable, Hashable {
        public var sample: TraceSample
        public var update: TrackUpdate
    }

    /// A changed decision and the (virtual) time it was made.
    public struct TimedDecision: Sendable {
        public var time: Instant
        public var decision: RoomDecision
    }

    /// What one sample caused: its measurement and any decisions that changed, in time order
    /// (timeouts that fell due since the previous sample first, then the decision the published
    /// measurement caused).
    public struct Step: Sendable {
        public var measurement: Measurement
        public var decisions: [TimedDecision]
    }

    private struct TrackKey: Hashable, Sendable {
        var beacon: BeaconID
        var node: String
    }

    public let tracking: TrackingParameters
    /// How often the live aggregator lets time pass without measurements, seconds (default 1 s):
    /// across a gap in the trace the replay ticks at this pace, so a `not_home` or a dwell that
    /// falls due in the gap is reported when it would have happened live.
    public let tickInterval: Double
    /// The physics rule, and the learned site model over it when replaying with `--model`.
    public private(set) var decider: SiteRoomDecider
    /// Keep every published measurement in `publishedMeasurements` (for learning).
    public var keepsPublished = false
    /// The measurements the nodes published, in order, while `keepsPublished` is set.
    public private(set) var publishedMeasurements: [SiteModelLearner.Measurement] = []
    private var tracks: [TrackKey: BeaconTrack] = [:]
    /// The tracks in order of (beacon, node), so silences are delivered deterministically.
    private var trackOrder: [TrackKey] = []
    /// The room each node serves, as the trace says.
    private var rooms: [String: String] = [:]
    private var lastTick: Instant?
    private var lastSilenceCheck: Instant?
    /// Messages that crossed the broker so far: the measurements the nodes published (heard and `unknown`).
    public private(set) var published = 0
    /// The recording's motion file (`NAME.motion.csv`), in time order: each row reaches the decision
    /// at its own time, before the samples and ticks at or after it. Empty: no sensors.
    public var motion: [MotionSample] = [] {
        didSet { nextMotion = 0 }
    }
    private var nextMotion = 0
    /// How the motion weighs (the aggregator configuration's `decision.motionHold`).
    public var motionParameters: MotionParameters {
        get { decider.motionParameters }
        set { decider.motionParameters = newValue }
    }

    /// The known beacons (the aggregator configuration's `beacons:`): as live, one with its own
    /// `awayTimeout` goes away after it, and a node's track of one marked `worn` knows it (`BeaconTrack.worn`).
    public var knownBeacons: [KnownBeacon] = [] {
        didSet {
            known = [:]
            for entry in knownBeacons where known[entry.beacon] == nil { known[entry.beacon] = entry }
            applied = []
            for key in Array(tracks.keys) { tracks[key]?.worn = known[key.beacon]?.worn ?? false }
        }
    }
    private var known: [BeaconID: KnownBeacon] = [:]
    /// The known beacons whose entry the decider has been told.
    private var applied: Set<BeaconID> = []

    /// Each node's receiver offset, dB (`NodeCalibration.applicableOffsets`): taken off its
    /// measurements as they reach the decision (a node that cannot be told its offset).
    public var nodeOffsets: [String: Double] = [:]
    /// Each node's receiver offset pushed to its agent: added to its `rssiOffset`, so the node's own
    /// distances and proximity, and so what and when it publishes, are calibrated.
    public var agentOffsets: [String: Double] = [:]

    /// A replay deciding with `decision`, and with `model` over it when given.
    public init(tracking: TrackingParameters = .default, decision: RoomDecisionParameters = .default,
                tickInterval: Double = 1, model: SiteModel? = nil) {
        self.tracking = tracking
        self.tickInterval = tickInterval.isFinite && tickInterval > 0 ? tickInterval : 1
        decider = SiteRoomDecider(parameters: decision, model: model)
    }

    /// The published measurements kept since the last call (with `keepsPublished`).
    public mutating func takePublished() -> [SiteModelLearner.Measurement] {
        defer { publishedMeasurements.removeAll(keepingCapacity: true) }
        return publishedMeasurements
    }

    /// Nodes the model does not know, each returned once (for the log).
    public mutating func takeUnknownNodes() -> [String] {
        decider.takeUnknownNodes()
    }

    /// The model's nodes not heard from when deciding started (a receiver off), each returned once.
    public mutating func takeAbsentNodes() -> [String] {
        decider.takeAbsentNodes()
    }

    /// Folds in one trace sample at its own time.
    public mutating func step(_ sample: TraceSample) -> Step {
        // Time passes first: at each one-second tick (and at the sample's time) the nodes report
        // the beacons they stopped hearing, then the aggregator ticks (dwell, stale, away).
        var decisions: [TimedDecision] = []
        if var tick = lastTick {
            while tick.advanced(by: tickInterval) < sample.time {
                tick = tick.advanced(by: tickInterval)
                decisions += passTime(to: tick)
            }
        }
        decisions += passTime(to: sample.time)
        if lastTick.map({ sample.time > $0 }) ?? true { lastTick = sample.time }
        if rooms[sample.node] == nil { rooms[sample.node] = sample.room }
        if let publication = sample.publication {
            // Recorded as received: no node filter to run, no silence to detect (it is in the record).
            let update = TrackUpdate(
                rssi: sample.rssi, rssiFiltered: publication.rssiFiltered ?? Double(sample.rssi), sigma: 0,
                measuredPower: Double(sample.measuredPower ?? 0), distance: publication.distance,
                proximity: publication.isSilence ? .unknown : publication.proximity, shouldPublish: true)
            published += 1
            // As live (`ReceivedMeasurement.evidence`): the advert counts only beside a filtered
            // RSSI, which a live measurement without one leaves at −∞.
            let filtered = publication.rssiFiltered != nil
            let evidence = NodeEvidence(beacon: sample.beacon, node: sample.node, room: sample.room,
                                        rssiFiltered: update.rssiFiltered, sigma: 0,
                                        distance: publication.isSilence ? nil : publication.distance,
                                        proximity: update.proximity, rssi: filtered ? publication.rssi : nil)
            decisions += deliver(evidence, at: sample.time)
            return Step(measurement: Measurement(sample: sample, update: update), decisions: decisions)
        }
        let key = TrackKey(beacon: sample.beacon, node: sample.node)
        var track: BeaconTrack
        if let existing = tracks.removeValue(forKey: key) {
            track = existing
        } else {
            // As the live agent: the track knows whether its known-beacon entry marks it worn, and
            // the offset pushed to it.
            var parameters = tracking
            if let offset = agentOffsets[key.node] { parameters.distance.rssiOffset += offset }
            track = BeaconTrack(parameters: parameters, worn: known[key.beacon]?.worn ?? false)
            let index = trackOrder.firstIndex { ($0.beacon, $0.node) > (key.beacon, key.node) } ?? trackOrder.endIndex
            trackOrder.insert(key, at: index)
        }
        let update = track.observe(rssi: sample.rssi, measuredPower: sample.measuredPower, at: sample.time)
        tracks[key] = track
        if update.shouldPublish {
            published += 1
            decisions += deliver(evidence(key, room: sample.room, update), at: sample.time)
        }
        return Step(measurement: Measurement(sample: sample, update: update), decisions: decisions)
    }

    /// Every node's silence checks at `time` (a live node ticks at least once a second), their
    /// `unknown` measurements delivered, then the aggregator's tick.
    private mutating func passTime(to time: Instant) -> [TimedDecision] {
        var decisions: [TimedDecision] = []
        while nextMotion < motion.count, motion[nextMotion].time <= time {
            let row = motion[nextMotion]
            decider.setMotion(room: row.room, occupied: row.occupied, at: row.time)
            nextMotion += 1
        }
        if lastSilenceCheck.map({ time > $0 }) ?? true {
            lastSilenceCheck = time
            for key in trackOrder {
                guard let silence = tracks[key]?.checkSilence(at: time) else { continue }
                published += 1
                let room = rooms[key.node] ?? ""
                decisions += deliver(evidence(key, room: room, silence), at: time)
            }
        }
        decisions += decider.tick(at: time).map { TimedDecision(time: time, decision: $0) }
        return decisions
    }

    /// One published measurement reaches the aggregator: the physics decision, and the model's
    /// beside it when there is one (its decisions are then the ones that count).
    private mutating func deliver(_ measured: NodeEvidence, at time: Instant) -> [TimedDecision] {
        // As the live aggregator: a node's confident calibration corrects what it measured on arrival.
        let evidence = nodeOffsets[measured.node].map {
            measured.correctedForReceiverOffset($0, pathLossExponent: tracking.distance.pathLossExponent)
        } ?? measured
        if keepsPublished { publishedMeasurements.append(.init(time: time, evidence: evidence)) }
        if !known.isEmpty, let entry = known[evidence.beacon], !applied.contains(evidence.beacon) {
            // As the live aggregator does when a known beacon is first heard.
            applied.insert(evidence.beacon)
            let slot = decider.addSlot(for: evidence.beacon)
            decider.setAwayTimeout(entry.awayTimeout, for: slot)
        }
        let decision = decider.update(evidence, at: time)
        return decision.map { [TimedDecision(time: time, decision: $0)] } ?? []
    }

    private func evidence(_ key: TrackKey, room: String, _ update: TrackUpdate) -> NodeEvidence {
        NodeEvidence(beacon: key.beacon, node: key.node, room: room, rssiFiltered: update.rssiFiltered,
                     sigma: update.sigma, distance: update.distance, proximity: update.proximity,
                     rssi: Double(update.rssi))
    }

    /// Replays `samples` and returns the decision rows (time of each change and the decision).
    public static func decisions(
        of samples: [TraceSample], tracking: TrackingParameters = .default,
        decision: RoomDecisionParameters = .default, model: SiteModel? = nil, motion: [MotionSample] = [],
        motionParameters: MotionParameters = .default
    ) -> [(time: Instant, decision: RoomDecision)] {
        var replay = TraceReplay(tracking: tracking, decision: decision, model: model)
        replay.motionParameters = motionParameters
        replay.motion = motion
        var rows: [(time: Instant, decision: RoomDecision)] = []
        for sample in samples {
            for timed in replay.step(sample).decisions { rows.append((timed.time, timed.decision)) }
        }
        return rows
    }
}
