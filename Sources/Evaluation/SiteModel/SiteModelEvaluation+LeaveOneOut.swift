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
        return Summary(recordings: site.heldOut(Array(recordings.indices), serving: judging ? .verdict : .alone,
                                                evidenceRates: [parameters.evidenceRate]))
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

extension SiteModelEvaluation {
    /// A judgement (the verdict's model and figures) with the model learned from every recording as
    /// the model alone and as the two together decide it, each at the evidence rate its own
    /// leave-one-out chose (`Site.judged(_:among:evidenceRates:)`).
    struct RatedJudgement {
        var judgement: Judgement
        var alone: SiteModel?
        var together: SiteModel?

        /// The model that decides as `serving` says (the verdict's when the other was not judged).
        func model(serving: Serving) -> SiteModel {
            switch serving {
            case .verdict: judgement.model
            case .alone: alone ?? judgement.model
            case .together: together ?? judgement.model
            }
        }
    }
}

extension SiteModelEvaluation.Site {
    /// Each member scored under a model learned from the other members, deciding as `serving`
    /// says; but for the model alone with one evidence rate, that model is judged (and its
    /// evidence rate chosen among `evidenceRates`) as `learn` would have among those others.
    func heldOut(_ members: [Int], serving: SiteModelEvaluation.Serving, evidenceRates: [Double]) -> [SiteModelEvaluation.RecordingScore] {
        members.map { index in
            let others = members.filter { $0 != index }
            guard var model = learn(others) else { return score(index, model: nil) }
            if others.count >= 2, serving == .verdict, evidenceRates.count == 1 {
                // As `learn` judges: levels or the classifier, whichever its own leave-one-out keeps.
                model = judgedLooks(among: others)?.model ?? model
            } else if others.count >= 2, serving != .alone || evidenceRates.count > 1 {
                model = judged(model, among: others, evidenceRates: evidenceRates).model(serving: serving)
            }
            return score(index, model: model)
        }
    }

    /// `judged(_:among:)` at each of `evidenceRates`: the verdict, the model alone and the two
    /// together each take the rate that saves most on the typical member (the first rate unless
    /// another saves strictly more): the site's own walks choose it.
    func judged(_ model: SiteModel, among members: [Int], evidenceRates: [Double]) -> SiteModelEvaluation.RatedJudgement {
        let models = members.map { index in learn(members.filter { $0 != index }) }
        var best: (verdict: Double, alone: Double, together: Double) = (-.infinity, -.infinity, -.infinity)
        var result = SiteModelEvaluation.RatedJudgement(judgement: SiteModelEvaluation.Judgement(model: model))
        for rate in evidenceRates {
            func atRate(_ model: SiteModel) -> SiteModel {
                var model = model
                model.parameters.evidenceRate = rate
                return model
            }
            let judgement = judged(atRate(model), heldOut: models.map { $0.map(atRate) }, among: members)
            guard let alone = judgement.leaveOneOut, let physics = judgement.physics, let combined = judgement.combined else { continue }
            let aloneSaving = alone.saving(against: physics), combinedSaving = combined.saving(against: physics)
            let saving = judgement.saving
            if saving > best.verdict {
                best.verdict = saving
                result.judgement = judgement
            }
            if aloneSaving > best.alone {
                best.alone = aloneSaving
                var alone = atRate(model)
                alone.roomDecisions = alone.rooms.map { _ in .model }
                alone.decision = .model
                result.alone = alone
            }
            if combinedSaving > best.together {
                best.together = combinedSaving
                let served = alone.roomDecisions(against: physics)
                var together = atRate(model)
                together.roomDecisions = together.rooms.map { served[$0] ?? .model }
                together.decision = .model
                result.together = together
            }
        }
        return result
    }
}
