import BeaconCore
import Evaluation
import RoomDecisions
import PresenceAggregator
import ArgumentParser

/// The learned mode of `presence-bench evaluate`: each recording of a site decided by a site
/// model learned from the site's other recordings (leave-one-recording-out,
/// `SiteModelEvaluation.leaveOneOut`), with the model's one fixed set of hyper-parameters — the
/// score `presence-aggregator learn` prints. Scored beacon by beacon (`RoomDecisionScore`) like the
/// `defaults` mode.
extension EvaluateCommand {
    /// `learn`'s own figure for the two decisions together, each in the rooms it serves (every
    /// recording decided by the model learned from the others, the rooms served as the leave-one-out
    /// over all of them says), with `learn`'s verdict in its name; nil with fewer than two recordings.
    static func learnTogether(
        _ recordings: [(name: String, samples: [TraceSample], truth: [TruthSample], motion: [MotionSample])],
        tracking: TrackingParameters, decision: RoomDecisionParameters, siteModel: SiteModelParameters
    ) -> ModeReport? {
        guard let judgement = SiteModelEvaluation.judge(
            recordings.map { SiteModelEvaluation.Recording(name: $0.name, samples: $0.samples, truth: $0.truth, motion: $0.motion) },
            parameters: siteModel, tracking: tracking, decision: decision), let combined = judgement.combined else { return nil }
        var mode = ModeReport(recordings: combined.recordings.map { RecordingResult(name: $0.name, score: $0.score) },
                              name: "learn's leave-one-out of the model and physics together, each in its rooms; learn's verdict: "
                                + (judgement.model.decision == .physics ? "physics"
                                   : judgement.model.roomDecisions.allSatisfy { $0 == .model } ? "the model alone" : "the two together"))
        mode.rooms = roomAccuracies(combined)
        return mode
    }

    /// `--site-model-study`: the learned modes with each training set
    /// choosing its evidence rate, the two together held out, the model in sample; returns each
    /// held-out recording's training seconds per room.
    static func studySiteModel(_ recordings: [TraceSet], modes: inout [String: ModeReport], tracking: TrackingParameters,
                               decision: RoomDecisionParameters, siteModel: SiteModelParameters) -> [String: [String: Double]] {
        let sets = recordings.map {
            SiteModelEvaluation.Recording(name: $0.name, samples: $0.samples, truth: $0.truth, motion: $0.motion,
                                          motionParameters: $0.motionParameters)
        }
        func mode(_ summary: SiteModelEvaluation.Summary, _ name: String) -> ModeReport {
            var mode = ModeReport(recordings: summary.recordings.map { RecordingResult(name: $0.name, score: $0.score) }, name: name)
            mode.rooms = roomAccuracies(summary)
            var rates: [String: Double] = [:], rooms: [String: [String: Double]] = [:]
            for recording in summary.recordings {
                rates[recording.name] = recording.evidenceRate
                rooms[recording.name] = roomAccuracies(SiteModelEvaluation.Summary(recordings: [recording]))
            }
            mode.evidenceRates = rates
            mode.roomsByRecording = rooms
            return mode
        }
        let fixed = SiteModelEvaluation.heldOutModes(sets, parameters: siteModel, tracking: tracking, decision: decision)
        if let together = fixed[.together] {
            modes["learnedTogetherHeldOut"] = mode(together, "the model and physics each in its rooms, learned from the other recordings")
        }
        let choices = SiteModelEvaluation.evidenceRateChoices
        let chosen = SiteModelEvaluation.heldOutModes(sets, parameters: siteModel, tracking: tracking, decision: decision,
                                                      evidenceRates: choices)
        for (serving, key) in [(SiteModelEvaluation.Serving.verdict, "learnedChosenRate"), (.alone, "learnedModelAloneChosenRate"),
                               (.together, "learnedTogetherChosenRate")] {
            if let summary = chosen[serving] {
                modes[key] = mode(summary, "learned from the other recordings, the evidence rate chosen among "
                    + choices.map { "\($0)" }.joined(separator: ", ") + " by a leave-one-out among them (\(key))")
            }
        }
        modes["learnedInSample"] = mode(SiteModelEvaluation.inSample(sets, parameters: siteModel, tracking: tracking, decision: decision),
                                        "the model alone learned from every recording (in sample)")
        return SiteModelEvaluation.trainingSeconds(sets)
    }

    /// The learned modes of a site, into `modes`: `learned` follows learn's verdict (the model, or
    /// physics where the model did not beat it on the training recordings); `learnedModelAlone` always
    /// decides with the model. Returns the `learned` mode's decisions, per recording.
    static func learnedModes(_ site: Site, into modes: inout [String: ModeReport], tracking: TrackingParameters,
                             decision: RoomDecisionParameters, siteModel: SiteModelParameters)
        -> [[(time: Instant, decision: RoomDecision)]]
    {
        var decisions: [[(time: Instant, decision: RoomDecision)]] = []
        for judging in [true, false] {
            let summary = learnedSummary(site.recordings, tracking: tracking, decision: decision,
                                         judging: judging, siteModel: siteModel)
            if judging { decisions = summary.recordings.map(\.decisions) }
            var mode = ModeReport(recordings: summary.recordings.map { RecordingResult(name: $0.name, score: $0.score) },
                                  name: judging ? learnedModeName : learnedModelAloneName)
            mode.rooms = roomAccuracies(summary)
            modes[judging ? "learned" : "learnedModelAlone"] = mode
        }
        return decisions
    }

    /// Per true room, the share of its truth rows decided right over every recording.
    static func roomAccuracies(_ summary: SiteModelEvaluation.Summary) -> [String: Double] {
        let tally = summary.tally
        var rooms: [String: Double] = [:]
        for room in tally.rows.keys { rooms[room] = tally.accuracy(room: room).map { rounded($0, 3) } }
        return rooms
    }

    /// The site model's hyper-parameters with `--site-model-parameter key=value` applied.
    func siteModelParameters() throws -> SiteModelParameters {
        var parameters = SiteModelParameters.default
        for setting in siteModelSettings {
            let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let value = Double(parts[1]), parameters.set(parts[0], to: value) else {
                throw ValidationError("--site-model-parameter: '\(setting)' is not key=value with a key and value a model file's parameters may hold")
            }
        }
        return parameters
    }

    /// The name the learned mode's key carries in the report.
    static let learnedModeName = "site model learned from the other recordings (leave-one-recording-out), "
        + "deciding as learn's verdict on those recordings says (the model, or physics where it did not beat physics)"
    /// The name of the mode that always decides with the learned model.
    static let learnedModelAloneName = "site model learned from the other recordings (leave-one-recording-out), always deciding"
}
