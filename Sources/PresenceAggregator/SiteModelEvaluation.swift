import BeaconCore
import RoomDecisions

/// Learning a site model from a directory of labelled recordings, and judging it fairly: each
/// recording decided by a model learned from all the others (leave-one-recording-out), scored as
/// `presence-bench evaluate` scores (`RoomDecisionScore`, as the shared yardstick scores).
///
/// Learning and deciding see the same features: each recording runs through `TraceReplay`'s agent
/// path (a `BeaconTrack` per beacon and node), and only what the nodes publish is learned from —
/// what the live aggregator receives. A recorded trace (`run --record`) is taken as published.
public enum SiteModelEvaluation {
    /// One labelled recording: `NAME.trace.csv` and `NAME.truth.csv`.
    public struct Recording: Sendable {
        public var name: String
        public var samples: [TraceSample]
        public var truth: [TruthSample]
        /// Its motion file's rows (`NAME.motion.csv`), empty without one.
        public var motion: [MotionSample] = []
        /// How its motion weighs (`MotionParameters`; the defaults unless measuring a variant).
        public var motionParameters = MotionParameters.default

        public init(name: String, samples: [TraceSample], truth: [TruthSample], motion: [MotionSample] = [],
                    motionParameters: MotionParameters = .default) {
            self.name = name
            self.samples = samples
            self.truth = truth
            self.motion = motion
            self.motionParameters = motionParameters
        }
    }

    /// A recording's score under the model learned without it.
    public struct RecordingScore: Sendable {
        public var name: String
        public var score: RoomDecisionScore
        /// The same truth rows counted per true room and per true floor.
        public var tally: RoomTally
        /// The decision rows it was scored on (time of each change and the decision).
        public var decisions: [(time: Instant, decision: RoomDecision)]
        /// The evidence rate of the model it was decided with (nil: physics decided it).
        public var evidenceRate: Double?

        public init(name: String, score: RoomDecisionScore, tally: RoomTally = RoomTally(),
                    decisions: [(time: Instant, decision: RoomDecision)] = []) {
            self.name = name
            self.score = score
            self.tally = tally
            self.decisions = decisions
        }
    }

    /// Leave-one-recording-out figures, defined as in issue 14: mean of per-recording accuracy,
    /// flaps summed, median of per-recording median switch latencies.
    public struct Summary: Sendable {
        public var recordings: [RecordingScore]

        public init(recordings: [RecordingScore]) {
            self.recordings = recordings
        }

        public var meanAccuracy: Double {
            recordings.isEmpty ? 0 : recordings.map(\.score.accuracy).reduce(0, +) / Double(recordings.count)
        }
        public var flaps: Int { recordings.map(\.score.flaps).reduce(0, +) }
        public var medianSwitchLatency: Double? {
            recordings.compactMap(\.score.medianSwitchLatency).median
        }
        /// Every recording's tally as one.
        public var tally: RoomTally {
            var total = RoomTally()
            for recording in recordings { total.add(recording.tally) }
            return total
        }

        /// What each recording's decisions cost: the share of its time decided wrong, each flap
        /// counted as `flapSeconds` more of it decided wrong. A flap is a room shown that was never
        /// entered — a light switched on, an automation fired — which costs a household more than the
        /// few seconds it was shown (those are counted as wrong already).
        public func costs(flapSeconds: Double = SiteModelEvaluation.flapSeconds) -> [Double] {
            recordings.map { recording in
                let seconds = recording.tally.seconds.values.reduce(0, +)
                return 1 - recording.score.accuracy + (seconds > 0 ? flapSeconds * Double(recording.score.flaps) / seconds : 0)
            }
        }

        /// The mean of `costs` (each recording counts the same, as the mean accuracy does).
        public func cost(flapSeconds: Double = SiteModelEvaluation.flapSeconds) -> Double {
            let costs = costs(flapSeconds: flapSeconds)
            return costs.isEmpty ? 0 : costs.reduce(0, +) / Double(costs.count)
        }

        /// What these decisions save against `physics` (the physics decision's figures on the same
        /// recordings) on the typical recording: the median over the recordings of physics' cost
        /// less these decisions' cost (`costs`). Positive: these cost less.
        ///
        /// The median, not the mean: one recording unlike the others (a walk among car recordings)
        /// must not outweigh what all the others say; such a recording is named by `learn`'s `note`
        /// instead (record more like it). With two recordings the median is the mean.
        public func saving(against physics: Summary, flapSeconds: Double = SiteModelEvaluation.flapSeconds) -> Double {
            let savings = zip(physics.costs(flapSeconds: flapSeconds), costs(flapSeconds: flapSeconds)).map { $0 - $1 }
            return savings.median ?? 0
        }

        /// Per room, which decision serves it when these are the model's figures and `physics` the
        /// physics decision's on the same recordings: physics where it was right more of the room's
        /// time, the model elsewhere (where only it can name the room, or where it wins or ties).
        public func roomDecisions(against physics: Summary) -> [String: SiteModel.Decision] {
            let model = tally, alone = physics.tally
            var decisions: [String: SiteModel.Decision] = [:]
            for room in model.rows.keys {
                decisions[room] = (alone.accuracy(room: room) ?? 0) > (model.accuracy(room: room) ?? 0) ? .physics : .model
            }
            return decisions
        }

        /// Whether these figures (the model alone, or the model deciding with physics each in the
        /// rooms it serves) beat `physics`, the physics decision's alone on the same recordings: they
        /// do when they cost less on the typical recording (`saving(against:)` above 0; cost: the
        /// share of time wrong plus `flapSeconds` a flap). `learn` keeps whichever of the model alone
        /// and the two together saves more, when it saves anything; else physics.
        /// Where the truth gives floors, the model must also put the beacon on the right floor at
        /// least as often as physics: a model that names more rooms right but more floors wrong
        /// would break the upstairs/downstairs automations floors are for.
        public func verdict(against physics: Summary) -> SiteModel.Decision {
            guard saving(against: physics) > 0 else { return .physics }
            if let floors = tally.floorAccuracy, let physicsFloors = physics.tally.floorAccuracy, floors < physicsFloors {
                return .physics
            }
            return .model
        }
    }

    /// What a flap costs against a second decided wrong, in `Summary.cost`: a flap counts as this
    /// many seconds of a wrong room in its recording.
    public static let flapSeconds = 5.0

    /// Why a directory of recordings cannot be learned from.
    public struct LoadError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Every `NAME.trace.csv` of `directory` with its `NAME.truth.csv`, sorted by name. A trace
    /// without its truth file, or a malformed file, is an error naming the file (and the line); so is
    /// a room two truth files put on two floors. A truth room that no node serves is a room without a
    /// receiver, learned like any other; one that looks like a misspelt node room is passed to `warn`
    /// (`TraceFile.checkedTruth`).
    public static func loadRecordings(directory: String, names: [String],
                                      warn: (String) -> Void = { _ in }) throws -> [Recording] {
        let traces = names.filter { $0.hasSuffix(".trace.csv") }.sorted()
        guard !traces.isEmpty else { throw LoadError(description: "\(directory): no *.trace.csv files") }
        var recordings: [Recording] = []
        var floors = TraceFile.SiteFloors()
        for file in traces {
            let name = String(file.dropLast(".trace.csv".count))
            let truthFile = name + ".truth.csv"
            let tracePath = directory + "/" + file, truthPath = directory + "/" + truthFile
            guard names.contains(truthFile) else {
                throw LoadError(description: "\(tracePath): no ground truth beside it (expected \(truthPath), docs/Files.md `time,beacon,room`)")
            }
            let samples: [TraceSample], checked: TraceFile.CheckedTruth
            do { samples = try TraceFile.samples(path: tracePath) } catch let error as TraceError {
                throw LoadError(description: "\(tracePath): \(error)")
            }
            do { checked = try TraceFile.checkedTruth(path: truthPath, nodeRooms: TraceFile.rooms(of: samples)) } catch let error as TraceError {
                throw LoadError(description: "\(truthPath): \(error)")
            }
            let truth = checked.rows
            guard !truth.isEmpty else { throw LoadError(description: "\(truthPath): no truth rows") }
            for warning in checked.warnings { warn("\(truthPath): \(warning)") }
            do { try floors.add(checked, path: truthPath) } catch { throw LoadError(description: error.description) }
            if let first = samples.first?.time, let last = samples.last?.time,
                truth.last!.time < first || truth.first!.time > last
            {
                throw LoadError(description: "\(truthPath): its times (\(truth.first!.time)…\(truth.last!.time)) do not overlap "
                    + "the trace's (\(first)…\(last)): were both written on the same clock?")
            }
            var recording = Recording(name: name, samples: samples, truth: truth)
            do {
                recording.motion = try TraceFile.motion(besideTrace: tracePath) ?? []
            } catch {
                throw LoadError(description: error.description)
            }
            recordings.append(recording)
        }
        return recordings
    }

    /// The measurements the nodes published for a recording, in order.
    public static func published(_ recording: Recording, tracking: TrackingParameters = .default)
        -> [SiteModelLearner.Measurement]
    {
        var replay = TraceReplay(tracking: tracking)
        replay.keepsPublished = true
        for sample in recording.samples { _ = replay.step(sample) }
        return replay.publishedMeasurements
    }

    /// A model learned from `recordings` (their published measurements already extracted); `levels`
    /// as `SiteModelLearner.model(levels:)` takes it (nil: its rule).
    public static func learn(_ recordings: [(measurements: [SiteModelLearner.Measurement], truth: [TruthSample])],
                             parameters: SiteModelParameters = .default, levels: Bool? = nil) -> SiteModel? {
        var learner = SiteModelLearner(parameters: parameters)
        for recording in recordings { learner.add(measurements: recording.measurements, truth: recording.truth) }
        return learner.model(levels: levels)
    }

    /// A model learned from every recording.
    public static func learn(_ recordings: [Recording], parameters: SiteModelParameters = .default,
                             tracking: TrackingParameters = .default) -> SiteModel? {
        learn(recordings.map { (published($0, tracking: tracking), $0.truth) }, parameters: parameters)
    }

    /// What `learn` writes and prints: the model learned from every recording, with its verdict
    /// from its leave-one-out figures against the physics decision's on the same recordings (with
    /// fewer than two recordings there is nothing to judge by: no figures, and the model decides).
    public struct Judgement: Sendable {
        public var model: SiteModel
        /// Each recording under the model learned from the others.
        public var leaveOneOut: Summary?
        /// Each recording under the physics decision alone.
        public var physics: Summary?
        /// Each recording under the model learned from the others deciding with physics, each in the
        /// rooms it serves (the model's `roomDecisions`): what the verdict judged.
        public var combined: Summary?
        /// The other kind of model (the classifier when `model` has levels, and levels otherwise),
        /// judged the same way and not kept: its `modelSaving`; nil when not judged.
        public var otherLooksSaving: Double?

        public init(model: SiteModel, leaveOneOut: Summary? = nil, physics: Summary? = nil, combined: Summary? = nil) {
            self.model = model
            self.leaveOneOut = leaveOneOut
            self.physics = physics
            self.combined = combined
        }

        /// How much less accurate than physics a recording may be, decided by the model learned
        /// from the others, before `unlikeTheOthers` names it.
        public static let unlikeMargin = 0.1

        /// The recordings that the model learned from the others decides far worse than physics
        /// (by more than `unlikeMargin` of accuracy), with the two accuracies: the others did not
        /// teach what they hold (a person carrying the beacon looks unlike a car carrying it). The
        /// cure is more recordings like it, so `learn` says so.
        public var unlikeTheOthers: [(name: String, model: Double, physics: Double)] {
            guard let leaveOneOut, let physics else { return [] }
            return zip(leaveOneOut.recordings, physics.recordings).compactMap { model, alone in
                model.score.accuracy < alone.score.accuracy - Self.unlikeMargin
                    ? (model.name, model.score.accuracy, alone.score.accuracy) : nil
            }
        }

        /// What the verdict saves against physics on the typical recording (`Summary.saving`): none
        /// when physics decides, the model alone's when it serves every room, else the two together's.
        public var saving: Double {
            guard model.decision == .model, let physics else { return 0 }
            let judged = model.roomDecisions.allSatisfy { $0 == .model } ? leaveOneOut : combined
            return judged?.saving(against: physics) ?? 0
        }

        /// What the better of the model alone and the two together saves against physics on the
        /// typical recording, whatever the verdict (negative: physics costs less); nil without figures.
        public var modelSaving: Double? {
            guard let physics, let leaveOneOut else { return nil }
            return max(leaveOneOut.saving(against: physics), combined?.saving(against: physics) ?? -.infinity)
        }

        /// Orders judgements of two models of one site: a verdict for the model above one for physics,
        /// then the larger `modelSaving` (with physics decided either way, the model nearer to beating it).
        func isBetter(than other: Judgement) -> Bool {
            let mine = model.decision == .model, theirs = other.model.decision == .model
            guard mine == theirs else { return mine }
            return (modelSaving ?? -.infinity) > (other.modelSaving ?? -.infinity)
        }
    }

    /// Learns from every recording and judges the model (`Judgement`); nil when nothing falls within
    /// the truth. Each recording's published measurements are worked out once for all of it. With
    /// two or more recordings where a walked room has no receiver, both kinds of model (levels and
    /// the classifier) are judged leave-one-out and the better kept (`Site.judgedLooks`); with one,
    /// the learner's rule picks (levels where a walked room has no receiver).
    public static func judge(_ recordings: [Recording], parameters: SiteModelParameters = .default,
                             tracking: TrackingParameters = .default,
                             decision: RoomDecisionParameters = .default) -> Judgement? {
        let site = Site(recordings, parameters: parameters, tracking: tracking, decision: decision,
                        physics: recordings.count >= 2)
        guard recordings.count >= 2 else { return site.learn(Array(recordings.indices)).map { Judgement(model: $0) } }
        return site.judgedLooks(among: Array(recordings.indices))
    }

    /// A site's recordings with what every leave-one-out over them needs, worked out once: each
    /// recording's published measurements and, when asked, its score under the physics decision.
    package struct Site {
        let recordings: [Recording]
        let measurements: [[SiteModelLearner.Measurement]]
        let physicsScores: [(score: RoomDecisionScore, tally: RoomTally)]
        /// Room → floor, from every recording's truth.
        let floors: [String: String]
        let parameters: SiteModelParameters
        let tracking: TrackingParameters
        let decision: RoomDecisionParameters

        package init(_ recordings: [Recording], parameters: SiteModelParameters, tracking: TrackingParameters,
                     decision: RoomDecisionParameters, physics: Bool) {
            self.recordings = recordings
            measurements = recordings.map { SiteModelEvaluation.published($0, tracking: tracking) }
            var floors: [String: String] = [:]
            for recording in recordings {
                for row in recording.truth { if let floor = row.floor, floors[row.room] == nil { floors[row.room] = floor } }
            }
            self.floors = floors
            physicsScores = physics
                ? recordings.map {
                    // Only the verdict reads these: judged on the radio alone (`judged`).
                    var radioOnly = $0
                    radioOnly.motion = []
                    let assessed = assess(radioOnly, model: nil, tracking: tracking, decision: decision, floors: floors)
                    return (assessed.score, assessed.tally)
                } : []
            self.parameters = parameters
            self.tracking = tracking
            self.decision = decision
        }

        package func learn(_ members: [Int], levels: Bool? = nil) -> SiteModel? {
            SiteModelEvaluation.learn(members.map { (measurements[$0], recordings[$0].truth) }, parameters: parameters, levels: levels)
        }

        /// Where a walked room has no receiver (the learner's rule says levels), the model learned
        /// from `members` as levels and as the classifier, each judged among them (`judged(_:among:)`,
        /// every held-out model of the same kind), keeping the better judgement
        /// (`Judgement.isBetter(than:)`; a tie keeps levels); elsewhere the classifier, judged.
        /// Neither kind wins everywhere: levels tell rooms without a receiver apart by how loud
        /// each receiver hears them, the classifier reads rooms that each have one from their
        /// pattern. Where every room has a receiver levels are no candidate: judged there too, they
        /// won some of the flat's training sets and then decided its held-out walks worse.
        package func judgedLooks(among members: [Int]) -> Judgement? {
            guard let ruled = learn(members) else { return nil }
            var best = judged(ruled, among: members)
            if ruled.levels, let other = learn(members, levels: false) {
                var judgement = judged(other, among: members)
                if judgement.isBetter(than: best) {
                    judgement.otherLooksSaving = best.modelSaving
                    best = judgement
                } else {
                    best.otherLooksSaving = judgement.modelSaving
                }
            }
            return best
        }

        func physicsSummary(_ members: [Int]) -> Summary {
            Summary(recordings: members.map {
                RecordingScore(name: recordings[$0].name, score: physicsScores[$0].score, tally: physicsScores[$0].tally)
            })
        }

        /// Recording `index` decided with `model`; without `motion`, as if it had no motion file.
        package func score(_ index: Int, model: SiteModel?, motion: Bool = true) -> RecordingScore {
            var recording = recordings[index]
            if !motion { recording.motion = [] }
            let assessed = assess(recording, model: model, tracking: tracking, decision: decision, floors: floors)
            var result = RecordingScore(name: recordings[index].name, score: assessed.score, tally: assessed.tally,
                                        decisions: assessed.decisions)
            if let model, model.decision == .model { result.evidenceRate = model.parameters.evidenceRate }
            return result
        }

        /// `model` (learned from `members`) judged as `learn` judges it: each member decided by a
        /// model learned from the other members, room by room against physics (which decision
        /// serves each room, `Summary.roomDecisions`), then again with each room so served, and the
        /// verdict on that against physics alone. Judged on the radio alone, as if no recording had a
        /// motion file: motion helps the model and physics alike, and judged with it the flat's
        /// model took the bathroom it had walked 9 s from physics and flapped there (issue 37).
        package func judged(_ model: SiteModel, among members: [Int]) -> Judgement {
            judged(model, heldOut: members.map { index in learn(members.filter { $0 != index }, levels: model.levels) }, among: members)
        }

        /// `judged(_:among:)` with `models[i]`, learned without `members[i]`, deciding it.
        package func judged(_ model: SiteModel, heldOut models: [SiteModel?], among members: [Int]) -> Judgement {
            let physics = physicsSummary(members)
            let alone = Summary(recordings: zip(members, models).map { score($0, model: $1, motion: false) })
            let served = alone.roomDecisions(against: physics)
            func serving(_ model: SiteModel) -> SiteModel {
                var model = model
                model.roomDecisions = model.rooms.map { served[$0] ?? .model }
                return model
            }
            let combined = Summary(recordings: zip(members, models).map { score($0, model: $1.map(serving), motion: false) })
            // The cheapest of three on the typical recording: physics alone, the model alone, or the
            // two each in its rooms (a tie goes to physics, then to the model alone).
            var judged = serving(model)
            let combinedWins = combined.verdict(against: physics) == .model
            if alone.verdict(against: physics) == .model,
                !combinedWins || alone.saving(against: physics) >= combined.saving(against: physics)
            {
                judged.roomDecisions = judged.rooms.map { _ in .model }
                judged.decision = .model
            } else {
                judged.decision = combinedWins ? .model : .physics
            }
            return Judgement(model: judged, leaveOneOut: alone, physics: physics, combined: combined)
        }
    }

    /// `score` with the same rows counted per room and per floor (`floors`: room → floor; the
    /// model's own floors are added to it).
    public static func assess(_ recording: Recording, model: SiteModel?, tracking: TrackingParameters = .default,
                              decision: RoomDecisionParameters = .default,
                              floors: [String: String])
        -> (score: RoomDecisionScore, tally: RoomTally, decisions: [(time: Instant, decision: RoomDecision)])
    {
        let rows = TraceReplay.decisions(of: recording.samples, tracking: tracking, decision: decision, model: model,
                                         motion: recording.motion, motionParameters: recording.motionParameters)
        var known = floors
        if let model {
            for (index, room) in model.rooms.enumerated() where known[room] == nil { known[room] = model.floors[index] }
        }
        let beacons = Set(recording.truth.map(\.beacon)).sorted()
        var tally = RoomTally()
        let score = RoomDecisionScore.pooled(beacons.map { beacon in
            let decided = rows.filter { $0.decision.beacon == beacon }.map { ($0.time, $0.decision.room) }
            let truth = recording.truth.filter { $0.beacon == beacon }
            tally.add(decisions: decided, truth: truth, floors: known)
            return RoomDecisionScore(decisions: decided, truth: truth)
        })
        return (score, tally, rows)
    }
}
