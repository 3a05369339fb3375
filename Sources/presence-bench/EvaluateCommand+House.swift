import ArgumentParser
import BeaconCore
import Evaluation
import Foundation
import RoomDecisions

/// `evaluate --house DIR`: a real house as two more sites beside the shared ones (issue 52). DIR is
/// the folder of the house's recordings (SPHERE; not in this repository) holding `receivers/`: each
/// recording's trace, its truth in the receivers' rooms and its PIR sensors' motion file. `house` is
/// scored on the radio alone (the motion files ignored), `house-pir` with them, both with our
/// defaults, the site model learned from the other recordings (as for the shared sites, unless
/// `--physics-only`), Bermuda's rule, Home Assistant's `mqtt_room` rule and the strongest-RSSI baseline.
extension EvaluateCommand {
    /// The house's sites: name, and whether its motion files are read.
    static let houseSites = [(name: "house", motion: false), (name: "house-pir", motion: true)]

    /// Scores the house's sites that `--site` leaves in (all without `--site`) into `report`.
    func scoreHouse(_ folder: String, into report: inout Report, tracking: TrackingParameters, parameters: RoomDecisionParameters,
                    siteModel: SiteModelParameters) throws {
        let directory = folder + "/receivers"
        let recordings = try Self.loadTraces(directory: directory)
        for house in Self.houseSites where onlySites.isEmpty || onlySites.contains(house.name) {
            var site = Site(name: house.name, directory: directory + (house.motion ? "" : " (motion files ignored)"),
                            recordings: recordings)
            if !house.motion {
                for index in site.recordings.indices { site.recordings[index].motion = [] }
            }
            var modes: [String: ModeReport] = [:]
            modes["defaults"] = Self.defaultsMode(site, tracking: tracking, parameters: parameters)
            if !physicsOnly {
                _ = Self.learnedModes(site, into: &modes, tracking: tracking, decision: parameters, siteModel: siteModel)
            }
            let baseline = site.recordings.map { RecordingResult(name: $0.name, score: Self.scoreBaseline($0)) }
            let bermuda = site.recordings.map { RecordingResult(name: $0.name, score: Self.scoreBermuda($0)) }
            report.sites[site.name] = SiteReport(
                directory: site.directory, recordings: site.recordings.count, modes: modes,
                baseline: ModeReport(recordings: baseline, name: "strongest raw RSSI in the last 1 s"),
                bermuda: ModeReport(recordings: bermuda, name: Self.bermudaName), mqttRoom: Self.mqttRoomMode(site))
        }
    }
}
