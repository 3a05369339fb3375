import ArgumentParser
import BeaconCore
import RoomDecisions
import Foundation
import PresenceAggregator

/// `presence-aggregator learn`: learns a site model from labelled recordings (every
/// `NAME.trace.csv` with its `NAME.truth.csv` in a directory), writes it as JSON, and prints what
/// it learned and its own leave-one-recording-out score.
struct LearnCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "learn",
        abstract: "Learns a site model from labelled recordings (NAME.trace.csv + NAME.truth.csv) and writes it as JSON.",
        discussion: """
            Prints the rooms, nodes and samples per room it learned, and each recording's score under \
            a model learned from the others (leave-one-recording-out) beside the physics decision's: \
            accuracy, flaps and median switch latency as presence-bench evaluate defines them. Each room \
            is served by the decision right more of its time there (physics, or the model: always where \
            no receiver stands); the file says which. The verdict keeps the cheapest of physics alone, \
            the model alone and the two together on the typical recording (cost: share of a recording's \
            time decided wrong, a flap counting as 5 s of it; the median over the recordings of each \
            one's cost against physics'); when \
            that is physics the file says "decision": "physics" and --model decides with physics. Where a walked room has no \
            receiver, levels (how loud each receiver hears each room) and the classifier are both judged so and the better is \
            kept (with one recording: levels). The model's hyper-parameters are one fixed set for every site.
            """
    )

    @Option(help: "Directory of labelled recordings: NAME.trace.csv and NAME.truth.csv (docs/Files.md).")
    var traces: String

    @Option(help: "The model file to write (JSON).")
    var output: String

    @Flag(help: "Skip the leave-one-recording-out score and the verdict (it replays every recording once per recording); the model then decides.")
    var noScore = false

    func run() throws {
        let tracking = TrackingParameters.default
        let recordings: [SiteModelEvaluation.Recording]
        do {
            let names = try FileManager.default.contentsOfDirectory(atPath: traces)
            recordings = try SiteModelEvaluation.loadRecordings(directory: traces, names: names) {
                StandardOutput.error("learn: warning: \($0)\n")
            }
        } catch let error as SiteModelEvaluation.LoadError {
            StandardOutput.error("learn: \(error)\n")
            throw ExitCode(2)
        } catch {
            StandardOutput.error("learn: \(traces): \(error.localizedDescription)\n")
            throw ExitCode(2)
        }
        let judgement: SiteModelEvaluation.Judgement?
        if noScore {
            judgement = SiteModelEvaluation.learn(recordings, tracking: tracking)
                .map { SiteModelEvaluation.Judgement(model: $0) }
        } else {
            // A model that does not beat physics on its own site's recordings would make decisions
            // worse: the file then says so and `run --model` decides with physics.
            judgement = SiteModelEvaluation.judge(recordings, tracking: tracking)
        }
        guard let judgement else {
            StandardOutput.error("learn: \(traces): nothing to learn (no measurement falls within its truth)\n")
            throw ExitCode(2)
        }
        let model = judgement.model
        do {
            try Data(model.json.utf8).write(to: URL(fileURLWithPath: output))
        } catch {
            StandardOutput.error("learn: \(output): \(error.localizedDescription)\n")
            throw ExitCode(2)
        }
        var out = StandardOutput()
        out.write("learned \(output) from \(recordings.count) recording(s) in \(traces)")
        out.write("nodes (\(model.nodes.count)): \(model.nodes.joined(separator: ", "))")
        out.write("rooms (\(model.rooms.count)), samples of \(Self.format(model.parameters.sampleInterval)) s each:")
        for (index, room) in model.rooms.enumerated() { out.write("  \(room): \(model.samples[index])") }
        if let elsewhere = model.elsewhere {
            // Time the truth named no room for: learned as a state that holds the decided room.
            let share = Double(elsewhere.samples) / Double(max(1, model.samples.reduce(0, +) + elsewhere.samples))
            out.write("  elsewhere: \(elsewhere.samples) (\(ReplayCSV.fixed(100 * share, decimals: 1)) % of the walks: gaps of more "
                + "than \(Self.format(model.parameters.elsewhereGap)) s in the truth, in none of its rooms; never decided, "
                + "the decided room stays while it is the likeliest)")
        }
        if let neighbours = model.neighbours {
            // The floor plan as walked: the filter moves a beacon between these rooms (the site model article).
            let pairs = neighbours.enumerated().flatMap { room, next in
                next.filter { $0 > room }.map { "\(model.rooms[room])–\(model.rooms[$0])" }
            }
            out.write("rooms walked between: \(pairs.isEmpty ? "none" : pairs.joined(separator: ", "))")
        }
        if let leaveOneOut = judgement.leaveOneOut, let physics = judgement.physics {
            out.write("leave-one-recording-out (each recording decided by a model learned from the others),")
            out.write("beside the physics decision (no model) on the same recording:")
            out.write("  recording: model accuracy / flaps / median switch latency | physics | both, each in the rooms it serves")
            for (index, (model, alone)) in zip(leaveOneOut.recordings, physics.recordings).enumerated() {
                let both = judgement.combined.map { " | " + Self.figures($0.recordings[index].score) } ?? ""
                out.write("  \(model.name): \(Self.figures(model.score)) | \(Self.figures(alone.score))\(both)")
            }
            var summaries = [("model:  ", leaveOneOut), ("physics:", physics)]
            if let combined = judgement.combined { summaries.append(("both:   ", combined)) }
            for (name, summary) in summaries {
                out.write("  \(name) mean accuracy \(Self.format(summary.meanAccuracy)), flaps \(summary.flaps), median switch latency "
                    + (summary.medianSwitchLatency.map { Self.format($0) + " s" } ?? "-")
                    + ", cost \(Self.format(summary.cost()))"
                    + (name != "physics:"
                        ? ", saving on the typical recording \(Self.format(summary.saving(against: physics)))" : ""))
            }
            Self.writeRoomsAndFloors(judgement, recordings: recordings, into: &out)
            for unlike in judgement.unlikeTheOthers {
                out.write("note: \(unlike.name): the model learned from the other recordings decides it far worse than "
                    + "physics (\(Self.format(unlike.model)) against \(Self.format(unlike.physics))): the others did not teach "
                    + "what it holds (another carrier, route or beacon?); record more like it")
            }
            let rule = "(cost: share of a recording's time decided wrong, a flap counting as \(Int(SiteModelEvaluation.flapSeconds)) s of it; "
                + "judged on the typical recording: the median over the recordings of its cost against physics'"
                + (leaveOneOut.tally.floorAccuracy != nil ? "; and floors right at least as often" : "") + ")"
            if let other = judgement.otherLooksSaving, let kept = judgement.modelSaving {
                // Both kinds judged alike: say which was kept and what each saves at best.
                let (name, rejected) = model.levels ? ("levels (how loud each receiver hears each room)", "the classifier")
                    : ("the classifier (the pattern across the receivers)", "levels")
                out.write("looks: \(name), kept over \(rejected) (judged alike, leave-one-out; saving at best on the typical "
                    + "recording \(Self.format(kept)) against \(Self.format(other)))")
            }
            let physicsRooms = model.rooms.indices.filter { model.roomDecisions[$0] == .physics }.map { model.rooms[$0] }
            if model.decision == .model, physicsRooms.isEmpty {
                out.write("verdict: the model alone costs least on these recordings \(rule); it serves every room and decides with "
                    + "--model or decision.model")
            } else if model.decision == .model {
                out.write("verdict: the model with physics, each in the rooms it serves, costs least on these recordings \(rule); "
                    + "physics serves \(physicsRooms.joined(separator: ", ")); it decides with --model or decision.model")
            } else {
                out.write("verdict: physics alone costs least on these recordings \(rule); the file says so (\"decision\": "
                    + "\"physics\") and --model decides with physics (record longer walks, both directions through every doorway, "
                    + "and learn again)")
            }
        } else if !noScore {
            Self.writeOneWalk(recordings, model: model, tracking: tracking, into: &out)
            out.write("verdict: one recording cannot be judged leave-one-out; the model decides (record a second walk to check it)")
        }
        out.flush()
    }

    static func format(_ value: Double) -> String { ReplayCSV.fixed(value, decimals: 3) }

    /// The leave-one-out verdict room by room and floor by floor, and the rooms that need more walking.
    static func writeRoomsAndFloors(_ judgement: SiteModelEvaluation.Judgement, recordings: [SiteModelEvaluation.Recording],
                                    into out: inout StandardOutput) {
        guard let leaveOneOut = judgement.leaveOneOut, let physics = judgement.physics else { return }
        let model = leaveOneOut.tally, alone = physics.tally
        let floors = judgement.model.floors
        out.write("per room (true rows decided right, leave-one-out): model | physics, which serves it; time walked, recordings:")
        var needsWalking: [String] = []
        for room in model.rows.keys.sorted() {
            let inRecordings = recordings.filter { $0.truth.contains { $0.room == room } }.count
            let seconds = model.seconds[room] ?? 0
            let modelAccuracy = model.accuracy(room: room) ?? 0, physicsAccuracy = alone.accuracy(room: room) ?? 0
            let floor = judgement.model.roomIndex(room).flatMap { floors[$0] }.map { " (floor \($0))" } ?? ""
            let served = judgement.model.roomIndex(room).map { judgement.model.roomDecisions[$0] }
            out.write("  \(room)\(floor): \(format(modelAccuracy)) | \(format(physicsAccuracy)), "
                + (served == .physics ? "physics" : physicsAccuracy == 0 && modelAccuracy > 0 ? "model (physics never names it)" : "model")
                + "; \(ReplayCSV.fixed(seconds, decimals: 0)) s, \(inRecordings) recording(s)")
            var reasons: [String] = []
            if inRecordings < 2 { reasons.append("in \(inRecordings) recording only: leave-one-out cannot learn it from the others") }
            if seconds < minimumSecondsPerRoom { reasons.append("\(ReplayCSV.fixed(seconds, decimals: 0)) s walked, less than \(Int(minimumSecondsPerRoom)) s") }
            if served != .physics, modelAccuracy < roomAccuracyWanted {
                reasons.append("the model learned from the other recordings has it right \(format(modelAccuracy)) of its time")
            }
            if !reasons.isEmpty { needsWalking.append("\(room) (" + reasons.joined(separator: "; ") + ")") }
        }
        if !model.floorRows.isEmpty {
            out.write("per floor (true rows decided on the right floor): model | physics")
            for floor in model.floorRows.keys.sorted() {
                out.write("  \(floor): \(format(model.accuracy(floor: floor) ?? 0)) | \(format(alone.accuracy(floor: floor) ?? 0))")
            }
            out.write("  all floors: \(format(model.floorAccuracy ?? 0)) | \(format(alone.floorAccuracy ?? 0))")
        }
        for room in needsWalking {
            out.write("walk more: \(room): walk it again, a minute or more, moving about, through each of its doorways both ways")
        }
    }

    /// With one recording: per room, the share of its time the model decides right on the walk it
    /// learned from, by radio alone and, when the walk has a motion file, with the motion sensors; the
    /// rooms the sensors decide (right at least `roomAccuracyWanted` of the time only with them); and
    /// the rooms to walk again. In sample, so an upper bound: a second walk judges it fairly.
    static func writeOneWalk(_ recordings: [SiteModelEvaluation.Recording], model: SiteModel,
                             tracking: TrackingParameters, into out: inout StandardOutput) {
        // Every recording decided by the model learned from all of them, with and without its motion.
        func inSample(motion: Bool) -> SiteModelEvaluation.RoomTally {
            var tally = SiteModelEvaluation.RoomTally()
            for var recording in recordings {
                if !motion { recording.motion = [] }
                tally.add(SiteModelEvaluation.assess(recording, model: model, tracking: tracking, floors: [:]).tally)
            }
            return tally
        }
        let radio = inSample(motion: false)
        let hasMotion = recordings.contains { !$0.motion.isEmpty }
        let sensed = hasMotion ? inSample(motion: true) : nil
        out.write("per room (true rows decided right on the walk it learned from, an upper bound): radio"
            + (sensed != nil ? " | with the motion sensors" : "") + "; time walked:")
        var needsWalking: [String] = [], sensorRooms: [String] = []
        for room in radio.rows.keys.sorted() {
            let byRadio = radio.accuracy(room: room) ?? 0
            let withSensors = sensed?.accuracy(room: room)
            let seconds = radio.seconds[room] ?? 0
            out.write("  \(room): \(format(byRadio))" + (withSensors.map { " | " + format($0) } ?? "")
                + "; \(ReplayCSV.fixed(seconds, decimals: 0)) s")
            if let withSensors, byRadio < roomAccuracyWanted, withSensors >= roomAccuracyWanted { sensorRooms.append(room) }
            var reasons: [String] = []
            if seconds < minimumSecondsPerRoom { reasons.append("\(ReplayCSV.fixed(seconds, decimals: 0)) s walked, less than \(Int(minimumSecondsPerRoom)) s") }
            if max(byRadio, withSensors ?? 0) < roomAccuracyWanted {
                reasons.append("right \(format(max(byRadio, withSensors ?? 0))) of its time even on the walk it learned from")
            }
            if !reasons.isEmpty { needsWalking.append("\(room) (" + reasons.joined(separator: "; ") + ")") }
        }
        if hasMotion {
            out.write("rooms the motion sensors decide (the radio alone has them right less than \(format(roomAccuracyWanted))): "
                + (sensorRooms.isEmpty ? "none" : sensorRooms.joined(separator: ", ")))
        }
        for room in needsWalking {
            out.write("walk more: \(room): walk it again, a minute or more, moving about, through each of its doorways both ways")
        }
    }

    /// Time walked in a room, over all recordings, below which `learn` asks for more (the walking
    /// guide's minute per room).
    static let minimumSecondsPerRoom = 60.0
    /// Leave-one-out share of a room's time decided right below which `learn` asks for more walking there.
    static let roomAccuracyWanted = 0.8

    static func figures(_ score: RoomDecisionScore) -> String {
        "\(format(score.accuracy)) / \(score.flaps) / " + (score.medianSwitchLatency.map { format($0) + " s" } ?? "-")
    }
}
