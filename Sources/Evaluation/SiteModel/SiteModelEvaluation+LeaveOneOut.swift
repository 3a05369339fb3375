import BeaconCore
import PresenceAggregator
import RoomDecisions

/// The bench's leave-one-recording-out figures of the site model: each recording decided by a model
/// learned from the others, served as `learn`'s verdict says or one way throughout. `learn` itself
/// judges with `SiteModelEvaluation.judge`, in the aggregator.
extension SiteModelEvaluation {
    /// Scores each recording under the model learned from all the others. With `judging`, each of
    /// those models also gets the verdict `learn` would give it — from a leave-one-out among its own
    /// training recordings only, against physics on them — and decides as that verdict says: the
    /// honest figure for what an operator who follows `learn` gets on a recording it never saw.
    public static func leaveOneOut(_ recordings: [Recording], parameters: SiteModelParameters = .default,
                                   tracking: TrackingParameters = .default,
                                   decision: RoomDecisionParameters = .default, judging: Bool = false) -> Summary {
        let site = Site(recordings, parameters: parameters, tracking: tracking, decision: decision, physics: judging)
        return Summary(recordings: site.heldOut(Array(recordings.indices), serving: judging ? .verdict : .alone))
    }

    /// How a held-out recording's model decides: as `learn`'s verdict says, the model alone, or the
    /// model and physics each in the rooms it serves.
    public enum Serving: Sendable, CaseIterable { case verdict, alone, together }

    /// A recording's score decided with `model` (the physics decision alone when nil), pooled over
    /// its beacons as `presence-bench evaluate` pools them.
    public static func score(_ recording: Recording, model: SiteModel?, tracking: TrackingParameters = .default,
                             decision: RoomDecisionParameters = .default) -> RoomDecisionScore {
        assess(recording, model: model, tracking: tracking, decision: decision, floors: [:]).score
    }
}

extension SiteModelEvaluation.Judgement {
    /// The model that decides as `serving` says (the verdict's when the other was not judged).
    func model(serving: SiteModelEvaluation.Serving) -> SiteModel {
        switch serving {
        case .verdict: model
        case .alone: alone ?? model
        case .together: together ?? model
        }
    }
}

extension SiteModelEvaluation.Site {
    /// Each member scored under a model learned from the other members, deciding as `serving`
    /// says; but for the model alone with one evidence rate, that model is judged (and its
    /// evidence rate chosen) as `learn` would have among those others.
    func heldOut(_ members: [Int], serving: SiteModelEvaluation.Serving) -> [SiteModelEvaluation.RecordingScore] {
        members.map { index in
            let others = members.filter { $0 != index }
            guard var model = learn(others) else { return score(index, model: nil) }
            if others.count >= 2, serving != .alone || evidenceRates.count > 1 {
                model = judged(model, among: others).model(serving: serving)
            }
            return score(index, model: model)
        }
    }
}
