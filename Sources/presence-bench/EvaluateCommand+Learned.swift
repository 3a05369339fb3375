import BeaconCore
import RoomDecisions
import PresenceAggregator

/// The learned mode of `presence-bench evaluate`: each recording of a site decided by a site
/// model learned from the site's other recordings (leave-one-recording-out,
/// `SiteModelEvaluation.leaveOneOut`), with the model's one fixed set of hyper-parameters — the
/// score `presence-aggregator learn` prints. Scored beacon by beacon at every truth row like the
/// `defaults` mode.
extension EvaluateCommand {
    /// Each recording's name and score under the model learned from the others, in the given order.
    static func learnedScores(
        _ recordings: [(name: String, samples: [TraceSample], truth: [TruthSample], motion: [MotionSample])],
        tracking: TrackingParameters, decision: RoomDecisionParameters, judging: Bool
    ) -> [(name: String, score: RoomDecisionScore)] {
        let summary = SiteModelEvaluation.leaveOneOut(
            recordings.map { SiteModelEvaluation.Recording(name: $0.name, samples: $0.samples, truth: $0.truth, motion: $0.motion) },
            tracking: tracking, decision: decision, judging: judging)
        return summary.recordings.map { ($0.name, $0.score) }
    }

    /// The name the learned mode's key carries in the report.
    static let learnedModeName = "site model learned from the other recordings (leave-one-recording-out), "
        + "deciding as learn's verdict on those recordings says (the model, or physics where it did not beat physics)"
    /// The name of the mode that always decides with the learned model.
    static let learnedModelAloneName = "site model learned from the other recordings (leave-one-recording-out), always deciding"
}
