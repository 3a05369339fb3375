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
    /// Beside each of `publishedMeasurements`, its rise report's rise, dB (nil: none).
    private var publishedRises: [Double?] = []
    private var tracks: [TrackKey: BeaconTrack] = [:]
    /// The level of each track of a beacon marked worn (`WornLevel`), as the agent keeps it.
    private var wornLevels: [TrackKey: WornLevel] = [:]
    /// The tracks in order of (beacon, node), so silences are delivered deterministically.
    private var trackOrder: [TrackKey] = []
    /// The room each node serves, as the trace says.
    private var rooms: [String: String] = [:]
    private var lastTick: Instant?
    private var lastSilenceCheck: Instant?
    /// Messages that crossed the broker so far: the measurements the nodes published (heard,
    /// `unknown`, and answers to level queries) and the aggregator's level queries.
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

    /// The known beacons (the aggregator configuration's `beacons:`): as live, a beacon marked
    /// `worn` is decided with the worn profile and one with its own `awayTimeout` goes away after it.
    public var knownBeacons: [KnownBeacon] = [] {
        didSet {
            known = [:]
            for entry in knownBeacons where known[entry.beacon] == nil { known[entry.beacon] = entry }
            applied = []
            for key in Array(tracks.keys) {
                let worn = isWorn(key)
                tracks[key]?.worn = worn
                if !worn { wornLevels[key] = nil } else if wornLevels[key] == nil { wornLevels[key] = WornLevel() }
            }
        }
    }
    private var known: [BeaconID: KnownBeacon] = [:]
    /// Whether the node's track of the beacon reports rises: marked worn, and not a foreign node.
    private func isWorn(_ key: TrackKey) -> Bool {
        (known[key.beacon]?.worn ?? false) && !foreignNodes.contains(key.node)
    }
    /// The known beacons whose entry the decider has been told.
    private var applied: Set<BeaconID> = []

    /// Nodes replayed as foreign ones (ESPresense, a gateway, an older agent): they report no rises
    /// of worn beacons (`presence-bench evaluate`'s mixed sites). Set before the first sample.
    public var foreignNodes: Set<String> = []

    /// Whether the replayed nodes announce that they report rises, as our agents do in their
    /// retained `info` (`riseReports`), which the aggregator reads before any measurement: each node
    /// a trace's advertisements are replayed through (our agent's own track) is taken as one that
    /// reports rises when it is first replayed, before its first rise. Foreign nodes and the rows
    /// of a recorded trace of published measurements never announce; nor do agents whose rise
    /// reports are off (`tracking.rise.isOn`). Off: the aggregator learns each node from its
    /// first rise report, as with agents older than the announcement. Set before the first sample.
    public var announcesRises = true
    /// Seconds from a level query (`SwitchingRule.riseQuery`, `RoomDecider.takeLevelQueries()`)
    /// to its node's answer reaching the decision: the broker's round trip, default 0.1 s. A replayed
    /// node answers as our agent does (docs/MQTT.md, `<root>/nodes/<node>/level`): its current
    /// measurement, whose `rssi` is its loudest advert of the last `rise.within` seconds. Foreign nodes
    /// and the rows of a recorded trace do not answer (a recorded answer is a row of its own).
    public var levelQueryDelay = 0.1
    /// Level queries sent and not yet answered: when the answer arrives, and which track answers.
    private var pendingAnswers: [(due: Instant, key: TrackKey)] = []

    /// The nodes taken as announced so far (only touched when a node's first track is made).
    private var announced: Set<String> = []

    /// `wornRule`, `wornRiseRule`: the switching rules of beacons `knownBeacons` marks worn (`decision.worn`).
    public init(tracking: TrackingParameters = .default, decision: RoomDecisionParameters = .default,
                wornRule: SwitchingRule = .worn, wornRiseRule: SwitchingRule? = .wornRise,
                tickInterval: Double = 1, model: SiteModel? = nil) {
        self.tracking = tracking
        self.tickInterval = tickInterval.isFinite && tickInterval > 0 ? tickInterval : 1
        decider = SiteRoomDecider(parameters: decision, wornRule: wornRule, wornRiseRule: wornRiseRule, model: model)
    }

    /// The published measurements kept since the last call (with `keepsPublished`).
    public mutating func takePublished() -> [SiteModelLearner.Measurement] {
        defer {
            publishedMeasurements.removeAll(keepingCapacity: true)
            publishedRises.removeAll(keepingCapacity: true)
        }
        return publishedMeasurements
    }

    /// `takePublished()` with each measurement's `rise`, dB (nil without a rise report): what
    /// `--output published` writes beside the evidence, which carries only the level (`riseRssi`).
    public mutating func takePublishedWithRises() -> [(measurement: SiteModelLearner.Measurement, rise: Double?)] {
        let rises = publishedRises
        return zip(takePublished(), rises).map { ($0, $1) }
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
            // As live (`ReceivedMeasurement.evidence`): the advert and the rise count only beside a
            // filtered RSSI, which a live measurement without one leaves at −∞.
            let filtered = publication.rssiFiltered != nil
            let evidence = NodeEvidence(beacon: sample.beacon, node: sample.node, room: sample.room,
                                        rssiFiltered: update.rssiFiltered, sigma: 0,
                                        distance: publication.isSilence ? nil : publication.distance,
                                        proximity: update.proximity, rssi: filtered ? publication.rssi : nil,
                                        riseRssi: filtered ? publication.riseRssi : nil,
                                        level: publication.isSilence ? nil : publication.level)
            decisions += deliver(evidence, rise: publication.rise, at: sample.time)
            return Step(measurement: Measurement(sample: sample, update: update), decisions: decisions)
        }
        let key = TrackKey(beacon: sample.beacon, node: sample.node)
        var track: BeaconTrack
        if let existing = tracks.removeValue(forKey: key) {
            track = existing
        } else {
            // As the live agent: a beacon its known-beacon entry marks worn reports its rises.
            track = BeaconTrack(parameters: tracking, worn: isWorn(key))
            wornLevels[key] = isWorn(key) ? WornLevel() : nil
            if announcesRises, tracking.rise.isOn, !foreignNodes.contains(key.node), !announced.contains(key.node) {
                announced.insert(key.node)
                decider.noteReportsRises(node: key.node)
            }
            let index = trackOrder.firstIndex { ($0.beacon, $0.node) > (key.beacon, key.node) } ?? trackOrder.endIndex
            trackOrder.insert(key, at: index)
        }
        let update = track.observe(rssi: sample.rssi, measuredPower: sample.measuredPower, at: sample.time)
        tracks[key] = track
        if publishes(key, update, rssi: sample.rssi, at: sample.time) {
            published += 1
            decisions += deliver(evidence(key, room: sample.room, update), rise: update.rise?.rise, at: sample.time)
        }
        return Step(measurement: Measurement(sample: sample, update: update), decisions: decisions)
    }

    /// Every node's silence checks at `time` (a live node ticks at least once a second), their
    /// `unknown` measurements delivered, then the aggregator's tick.
    private mutating func passTime(to time: Instant) -> [TimedDecision] {
        var decisions: [TimedDecision] = []
        decisions += answerLevelQueries(dueBy: time)
        while nextMotion < motion.count, motion[nextMotion].time <= time {
            let row = motion[nextMotion]
            decider.setMotion(room: row.room, occupied: row.occupied, at: row.time)
            nextMotion += 1
        }
        if lastSilenceCheck.map({ time > $0 }) ?? true {
            lastSilenceCheck = time
            for key in trackOrder {
                if wornLevels[key] != nil {
                    decisions += wornSilence(key, at: time)
                    continue
                }
                guard let silence = tracks[key]?.checkSilence(at: time) else { continue }
                published += 1
                let room = rooms[key.node] ?? ""
                decisions += deliver(evidence(key, room: room, silence), at: time)
            }
        }
        decisions += decider.tick(at: time).map { TimedDecision(time: time, decision: $0) }
        return decisions
    }

    /// Whether the sample just folded into the track `key` publishes, as the agent decides it
    /// (AgentCore+WornLevel): by its level for a beacon marked worn, by the track's policy otherwise.
    private mutating func publishes(_ key: TrackKey, _ update: TrackUpdate, rssi: Int, at time: Instant) -> Bool {
        guard var level = wornLevels[key] else { return update.shouldPublish }
        let publish = level.observe(
            rssi: rssi, filtered: update.rssiFiltered, at: time, heartbeat: tracking.publish.heartbeat, tracking.wornLevel)
        wornLevels[key] = level
        // A rise report (while they exist) still goes out at once beside the level, as the agent sends it.
        return publish || update.rise != nil
    }

    /// A worn beacon's "not heard" at `time`, once `WornLevel.silenceAfter` passed without an advert:
    /// the agent's measurement with proximity `unknown` and no RSSI, as the live aggregator reads it.
    /// Its track's own later silence is not published (the agent sends one).
    private mutating func wornSilence(_ key: TrackKey, at time: Instant) -> [TimedDecision] {
        _ = tracks[key]?.checkSilence(at: time)
        guard wornLevels[key]?.checkSilence(at: time, tracking.wornLevel) == true else { return [] }
        published += 1
        return deliver(NodeEvidence(beacon: key.beacon, node: key.node, room: rooms[key.node] ?? "",
                                    rssiFiltered: -.infinity, sigma: 0, distance: nil, proximity: .unknown), at: time)
    }

    /// One published measurement reaches the aggregator: the physics decision, and the model's
    /// beside it when there is one (its decisions are then the ones that count).
    private mutating func deliver(_ evidence: NodeEvidence, rise: Double? = nil, at time: Instant) -> [TimedDecision] {
        if keepsPublished {
            publishedMeasurements.append(.init(time: time, evidence: evidence))
            publishedRises.append(rise)
        }
        if !known.isEmpty, let entry = known[evidence.beacon], !applied.contains(evidence.beacon) {
            // As the live aggregator does when a known beacon is first heard.
            applied.insert(evidence.beacon)
            let slot = decider.addSlot(for: evidence.beacon)
            decider.setAwayTimeout(entry.awayTimeout, for: slot)
            decider.setWorn(entry.worn, for: slot)
        }
        let decision = decider.update(evidence, at: time)
        for query in decider.takeLevelQueries() {
            let key = TrackKey(beacon: query.beacon, node: query.node)
            guard tracks[key] != nil, !foreignNodes.contains(query.node) else { continue }
            published += 1
            pendingAnswers.append((time.advanced(by: levelQueryDelay), key))
        }
        return decision.map { [TimedDecision(time: time, decision: $0)] } ?? []
    }

    /// The answers of the level queries due by `time`, each delivered at its own time: the node's
    /// current measurement with its loudest advert of the last `rise.within` seconds as `rssi`.
    private mutating func answerLevelQueries(dueBy time: Instant) -> [TimedDecision] {
        var decisions: [TimedDecision] = []
        while let index = pendingAnswers.indices.min(by: { pendingAnswers[$0].due < pendingAnswers[$1].due }),
              pendingAnswers[index].due <= time {
            let (due, key) = pendingAnswers.remove(at: index)
            guard var track = tracks[key], let level = track.levelNow(at: due),
                  let update = track.current(at: due) else { continue }
            tracks[key] = track
            published += 1
            var answer = evidence(key, room: rooms[key.node] ?? "", update)
            // A node that heard nothing in its last second answers null, read as `unheardLevel`.
            answer.rssi = level ?? NodeEvidence.unheardLevel
            answer.riseRssi = nil
            decisions += deliver(answer, at: due)
        }
        return decisions
    }

    private func evidence(_ key: TrackKey, room: String, _ update: TrackUpdate) -> NodeEvidence {
        NodeEvidence(beacon: key.beacon, node: key.node, room: room, rssiFiltered: update.rssiFiltered,
                     sigma: update.sigma, distance: update.distance, proximity: update.proximity,
                     rssi: Double(update.rssi), riseRssi: update.rise?.level,
                     level: update.isSilence ? nil : wornLevels[key]?.publishedLevel)
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
