import BeaconCore
import Evaluation
import Foundation
import PresenceAggregator
import RoomDecisions

/// `evaluate --house DIR`: the house's nine rooms (`DIR/rooms`, issue 53), most without a receiver,
/// as a user's own walk would teach them. The site model is learned from one walk (as `learn` writes
/// it from one recording) and scores the other walk made with the same receivers, every ordered pair
/// of such walks (the house's two pairs: four scorings); physics (no model) and Bermuda's rule are
/// scored on the same walks. `house-rooms` on the radio alone, `house-rooms-pir` with the house's PIR
/// sensors read beside it (the walk learned from is the same; only the deciding reads them).
///
/// Beside the yardstick's figures each mode has `floors`: the share of truth rows, pooled over the
/// walks scored, whose decided room is on the true floor, the landing's (`stairs`) rows left out and a
/// decided `stairs` counted wrong (it is neither floor); physics' `upstairs` (the upstairs
/// receiver's room) counts as the first floor.
extension EvaluateCommand {
    /// The nine rooms' sites: name, and whether its motion files are read.
    static let houseRoomSites = [(name: "house-rooms", motion: false), (name: "house-rooms-pir", motion: true)]

    /// The house's floors (its truth files give none): the landing is on neither, and physics'
    /// `upstairs` (the upstairs receiver's room) is on the first.
    static let houseFloors: [String: String] = [
        "living": "ground", "study": "ground", "kitchen": "ground", "hall": "ground",
        "bed1": "first", "bed2": "first", "bath": "first", "toilet": "first", "upstairs": "first",
    ]

    /// The key and name of the mode the nine rooms add.
    static let oneWalkMode = (key: "learnedOneWalk",
                              name: "site model learned from one walk, scoring the other walk made with the same receivers")

    /// Scores the nine rooms' sites that `--site` leaves in into `report`.
    func scoreHouseRooms(_ folder: String, into report: inout Report, tracking: TrackingParameters,
                         parameters: RoomDecisionParameters, siteModel: SiteModelParameters) throws {
        let wanted = Self.houseRoomSites.filter { onlySites.isEmpty || onlySites.contains($0.name) }
        guard !wanted.isEmpty else { return }
        let directory = folder + "/rooms"
        let recordings = try Self.loadTraces(directory: directory)
        let pairs = Self.sameReceiverPairs(recordings)
        let scored = Array(Set(pairs.map(\.to))).sorted()
        let site = SiteModelEvaluation.Site(
            recordings.map { SiteModelEvaluation.Recording(name: $0.name, samples: $0.samples, truth: $0.truth, motion: $0.motion) },
            parameters: siteModel, tracking: tracking, decision: parameters, physics: false)
        // One model per walk learned from, whichever site reads it.
        let models = Dictionary(uniqueKeysWithValues: Set(pairs.map(\.from)).map { ($0, site.learn([$0])) })
        for house in wanted {
            var sets = recordings
            if !house.motion { for index in sets.indices { sets[index].motion = [] } }
            var learned: [RecordingResult] = [], learnedFloors = FloorTally()
            for pair in pairs {
                let result = site.score(pair.to, model: models[pair.from] ?? nil, motion: house.motion)
                learned.append(RecordingResult(name: "\(recordings[pair.from].name) → \(recordings[pair.to].name)", score: result.score))
                learnedFloors.add(sets[pair.to], decisions: result.decisions.map { ($0.time, $0.decision) })
            }
            var physics: [RecordingResult] = [], physicsFloors = FloorTally()
            var bermuda: [RecordingResult] = [], bermudaFloors = FloorTally()
            var baseline: [RecordingResult] = [], baselineFloors = FloorTally()
            var mqttRoom: [RecordingResult] = [], mqttRoomFloors = FloorTally()
            for index in scored {
                let set = sets[index]
                let replayed = Self.replay(set, tracking: tracking, parameters: parameters)
                physics.append(RecordingResult(name: set.name, score: replayed.score))
                physicsFloors.add(set, decisions: replayed.decisions)
                bermuda.append(RecordingResult(name: set.name, score: Self.scoreBermuda(set)))
                bermudaFloors.add(set) { beacon in BermudaRuleBaseline.decisions(of: set.samples.filter { $0.beacon == beacon }) }
                let mqttRoomDecisions = { (beacon: BeaconID) in MQTTRoomBaseline.decisions(of: set.samples.filter { $0.beacon == beacon }) }
                mqttRoom.append(RecordingResult(name: set.name, score: Self.perBeacon(set, decisions: mqttRoomDecisions)))
                mqttRoomFloors.add(set, decisions: mqttRoomDecisions)
                baseline.append(RecordingResult(name: set.name, score: Self.scoreBaseline(set)))
                baselineFloors.add(set) { beacon in StrongestRecentRSSIBaseline.decisions(of: set.samples.filter { $0.beacon == beacon }) }
            }
            var oneWalk = ModeReport(recordings: learned, name: Self.oneWalkMode.name)
            oneWalk.floors = learnedFloors.share
            var defaults = ModeReport(recordings: physics, name: "physics (no model; names only the receivers' rooms)")
            defaults.floors = physicsFloors.share
            var bermudaMode = ModeReport(recordings: bermuda, name: Self.bermudaName)
            bermudaMode.floors = bermudaFloors.share
            var baselineMode = ModeReport(recordings: baseline, name: "strongest raw RSSI in the last 1 s")
            baselineMode.floors = baselineFloors.share
            var mqttRoomMode = ModeReport(recordings: mqttRoom, name: Self.mqttRoomName)
            mqttRoomMode.floors = mqttRoomFloors.share
            report.sites[house.name] = SiteReport(
                directory: directory + (house.motion ? "" : " (motion files ignored)"), recordings: learned.count,
                modes: ["defaults": defaults, Self.oneWalkMode.key: oneWalk], baseline: baselineMode, bermuda: bermudaMode,
                mqttRoom: mqttRoomMode)
        }
    }

    /// Every ordered pair of recordings (indices) made with the same receivers: learned from `from`,
    /// scoring `to`. A recording whose receivers no other shares is in none.
    static func sameReceiverPairs(_ recordings: [TraceSet]) -> [(from: Int, to: Int)] {
        let receivers = recordings.map { Set($0.samples.map(\.node)) }
        return recordings.indices.flatMap { to in
            recordings.indices.filter { $0 != to && receivers[$0] == receivers[to] }.map { (from: $0, to: to) }
        }
    }

    /// Truth rows with a floor (`houseFloors`), and those whose decided room was on that floor.
    struct FloorTally {
        var rows = 0, right = 0

        var share: Double? { rows > 0 ? rounded(Double(right) / Double(rows), 4) : nil }

        mutating func add(_ set: TraceSet, decisions: [(time: Instant, decision: RoomDecision)]) {
            add(set) { beacon in decisions.filter { $0.decision.beacon == beacon }.map { ($0.time, $0.decision.room) } }
        }

        mutating func add(_ set: TraceSet, decisions: (BeaconID) -> [(time: Instant, room: String)]) {
            for beacon in Set(set.truth.map(\.beacon)).sorted() {
                var tally = SiteModelEvaluation.RoomTally()
                tally.add(decisions: decisions(beacon), truth: set.truth.filter { $0.beacon == beacon }, floors: EvaluateCommand.houseFloors)
                rows += tally.floorRows.values.reduce(0, +)
                right += tally.floorCorrect.values.reduce(0, +)
            }
        }
    }
}
