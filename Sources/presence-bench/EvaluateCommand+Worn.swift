import BeaconCore
import Foundation
import PresenceAggregator
import RoomDecisions

/// `evaluate --house DIR`: the house's wristband marked `worn: true` in the aggregator's file, beside
/// the rows where it is not. Its agents then publish it by its level (the mean of its adverts over the
/// last second, `WornLevel`; docs/MQTT.md `level`), `TraceReplay` replays it so, and a site model
/// learns from and decides on that level (`learn --config`). Modes `defaultsWorn` (physics) in the
/// receivers' rooms and the nine rooms, and `learnedOneWalkWorn` in the nine rooms.
extension EvaluateCommand {
    /// The key and name of the defaults with the wristband marked worn (`TraceSet.markedWorn`).
    static let wornMode = (key: "defaultsWorn", name: "defaults, the wristband marked worn (its agents publish its level)")

    /// The key and name of the nine rooms' one-walk model with the wristband marked worn.
    static let oneWalkWornMode = (key: "learnedOneWalkWorn",
                                  name: "site model learned from one walk with the wristband marked worn (learn --config), "
                                      + "scoring the other walk made with the same receivers, the wristband marked worn")

    /// The `defaults` mode with every recording's wristband marked worn.
    static func wornDefaultsMode(_ site: Site, tracking: TrackingParameters, parameters: RoomDecisionParameters) -> ModeReport {
        var marked = site
        marked.recordings = site.recordings.map(\.markedWorn)
        var mode = defaultsMode(marked, tracking: tracking, parameters: parameters)
        mode.name = wornMode.name
        return mode
    }

    /// The nine rooms' site model learned from one walk (as `learn` writes it from one recording, with
    /// the recordings' known beacons as `learn --config` takes them), each deciding the other walk of
    /// its pair.
    struct OneWalkModels {
        let recordings: [TraceSet]
        let pairs: [(from: Int, to: Int)]
        let site: SiteModelEvaluation.Site
        /// One model per walk learned from, whichever site (radio, PIRs) reads it.
        let models: [Int: SiteModel?]

        init(_ recordings: [TraceSet], pairs: [(from: Int, to: Int)], tracking: TrackingParameters,
             parameters: RoomDecisionParameters, siteModel: SiteModelParameters) {
            self.recordings = recordings
            self.pairs = pairs
            site = SiteModelEvaluation.Site(
                recordings.map {
                    SiteModelEvaluation.Recording(name: $0.name, samples: $0.samples, truth: $0.truth, motion: $0.motion,
                                                  knownBeacons: $0.knownBeacons)
                },
                parameters: siteModel, tracking: tracking, decision: parameters, physics: false)
            let site = site
            models = Dictionary(uniqueKeysWithValues: Set(pairs.map(\.from)).map { ($0, site.learn([$0])) })
        }

        /// Every pair scored (the walk learned from → the walk decided), with or without the PIRs,
        /// and the floors right over `sets` (the same recordings as the site reads them).
        func mode(_ sets: [TraceSet], motion: Bool, name: String) -> ModeReport {
            var learned: [RecordingResult] = [], floors = FloorTally()
            for pair in pairs {
                let result = site.score(pair.to, model: models[pair.from] ?? nil, motion: motion)
                learned.append(RecordingResult(name: "\(recordings[pair.from].name) → \(recordings[pair.to].name)", score: result.score))
                floors.add(sets[pair.to], decisions: result.decisions.map { ($0.time, $0.decision) })
            }
            var mode = ModeReport(recordings: learned, name: name)
            mode.floors = floors.share
            return mode
        }
    }
}

extension EvaluateCommand.TraceSet {
    /// This recording with every beacon its truth follows marked `worn: true` in the aggregator's
    /// file: its agents publish it by its level (`WornLevel`), as `replay --config` replays it.
    var markedWorn: Self {
        var set = self
        set.knownBeacons = Set(truth.map(\.beacon)).sorted().map { KnownBeacon(beacon: $0, worn: true) }
        return set
    }
}
