import BeaconCore
import PresenceAggregator
import RoomDecisions

/// The site model's evidence rate chosen by the site's own walks, not one rate for every site:
/// inside each training set, a leave-one-recording-out at each candidate rate, and the rate that
/// saves most against physics on the typical training recording is written into the model.
extension SiteModelEvaluation {
    /// The evidence rates a site's walks may choose among; the default (4) first, so it stays unless
    /// another saves strictly more.
    public static let evidenceRateChoices: [Double] = [4, 3, 2]

    /// Each recording decided by a model learned from the others, three ways at once (the verdict,
    /// the model alone, the two together each in its rooms), each model judged among its own
    /// training recordings only; with several `evidenceRates`, each way's rate chosen there too.
    /// One inner judgement per held-out recording serves all three.
    public static func heldOutModes(_ recordings: [Recording], parameters: SiteModelParameters = .default,
                                    tracking: TrackingParameters = .default,
                                    decision: RoomDecisionParameters = .default,
                                    evidenceRates: [Double]? = nil) -> [Serving: Summary] {
        let site = Site(recordings, parameters: parameters, tracking: tracking, decision: decision, physics: true)
        let rates = evidenceRates ?? [parameters.evidenceRate]
        var scores: [Serving: [RecordingScore]] = [:]
        for index in recordings.indices {
            let others = recordings.indices.filter { $0 != index }
            guard let model = site.learn(others) else {
                for serving in Serving.allCases { scores[serving, default: []].append(site.score(index, model: nil)) }
                continue
            }
            let judgement = others.count >= 2 ? site.judged(model, among: others, evidenceRates: rates)
                : RatedJudgement(judgement: Judgement(model: model))
            for serving in Serving.allCases {
                scores[serving, default: []].append(site.score(index, model: judgement.model(serving: serving)))
            }
        }
        return scores.mapValues { Summary(recordings: $0) }
    }

    /// Per held-out recording, the seconds of each room its training recordings (every other one)
    /// hold in their truth: what a leave-one-out model of that recording had to learn each room from.
    public static func trainingSeconds(_ recordings: [Recording]) -> [String: [String: Double]] {
        let own = recordings.map { recording in
            var tally = RoomTally()
            for beacon in Set(recording.truth.map(\.beacon)) {
                tally.add(decisions: [], truth: recording.truth.filter { $0.beacon == beacon }, floors: [:])
            }
            return tally.seconds
        }
        var result: [String: [String: Double]] = [:]
        for (index, recording) in recordings.enumerated() {
            var seconds: [String: Double] = [:]
            for (other, rooms) in own.enumerated() where other != index { seconds.merge(rooms, uniquingKeysWith: +) }
            result[recording.name] = seconds
        }
        return result
    }

    /// Every recording decided by the model alone learned from all of them (in sample): what the
    /// walks can teach at best, room by room, beside what a held-out recording gets.
    public static func inSample(_ recordings: [Recording], parameters: SiteModelParameters = .default,
                                tracking: TrackingParameters = .default,
                                decision: RoomDecisionParameters = .default) -> Summary {
        let site = Site(recordings, parameters: parameters, tracking: tracking, decision: decision, physics: false)
        guard var model = site.learn(Array(recordings.indices)) else {
            return Summary(recordings: recordings.indices.map { site.score($0, model: nil) })
        }
        model.decision = .model
        model.roomDecisions = model.rooms.map { _ in .model }
        return Summary(recordings: recordings.indices.map { site.score($0, model: model) })
    }
}
