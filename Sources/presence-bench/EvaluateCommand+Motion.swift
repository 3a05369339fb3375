import ArgumentParser
import BeaconCore
import Evaluation
import Foundation
import PresenceAggregator
import RoomDecisions

/// `evaluate --motion`: every site's walks with a PIR per room simulated from the truth
/// (`SimulatedMotion`), scored with physics and the site model beside the same modes without, the
/// issue's figures for the simulated sensors, and when the true room's sensor fires against each
/// decision's switch (`MotionTiming`). `--motion-setting SPEC` (repeatable) scores
/// variants of `MotionParameters` as further modes; `--dump-decisions DIR` writes each walk's
/// simulated motion and every mode's decisions as CSV, to look at single moments.
extension EvaluateCommand {
    /// `hold=3,onsetWindow=5,…` over `base`; a key not given keeps `base`'s value (flags: 0 or 1).
    static func motionVariant(_ spec: String, over base: MotionParameters = .default) throws -> MotionParameters {
        var m = base
        for part in spec.split(separator: ",") where !part.isEmpty {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, let value = Double(pair[1]) else {
                throw ValidationError("--motion-setting: '\(part)' is not key=number")
            }
            switch pair[0] {
            case "hold": m.hold = value
            case "onsetWindow": m.onsetWindow = value
            case "onsetFactor": m.onsetFactor = value
            case "quietAfter": m.quietAfter = value
            case "quietFactor": m.quietFactor = value
            case "modelMotion": m.modelMotion = value
            case "modelQuiet": m.modelQuiet = value
            case "modelOnset": m.modelOnset = value
            case "modelQuietNeedsMotionElsewhere": m.modelQuietNeedsMotionElsewhere = value != 0
            case "confirmedOnsetFactor": m.confirmedOnsetFactor = value
            case "quietNeedsMotionHere": m.quietNeedsMotionHere = value != 0
            default: throw ValidationError("--motion-setting: unknown key '\(pair[0])'")
            }
        }
        return m
    }

    /// The motion modes of one site, added to `modes`: `defaultsMotion` and `learnedMotion` with the
    /// default motion parameters, and `defaultsMotion[SPEC]`, `learnedMotion[SPEC]` per variant.
    /// Returns the site's figures for the report's `motion`.
    /// `learned`: the learned mode's rows without motion, as `run` scored them.
    func scoreMotion(_ site: Site, modes: inout [String: ModeReport], learned: [[(time: Instant, decision: RoomDecision)]]?,
                     tracking: TrackingParameters, parameters: RoomDecisionParameters,
                     siteModel: SiteModelParameters = .default) throws -> MotionFiguresReport {
        var withMotion = site
        var figures = SimulatedMotion.Figures()
        let simulation = SimulatedMotion()
        for index in withMotion.recordings.indices {
            let recording = withMotion.recordings[index]
            withMotion.recordings[index].motion = simulation.motion(
                truth: recording.truth, rooms: TraceFile.rooms(of: recording.samples), name: recording.name)
            figures.add(SimulatedMotion.figures(truth: recording.truth, motion: withMotion.recordings[index].motion))
        }
        // Every decision's rows per mode, for the timing and the dump: physics without motion first.
        var timelines: [String: [[(time: Instant, decision: RoomDecision)]]] = [:]
        timelines["defaults"] = site.recordings.map { Self.replay($0, tracking: tracking, parameters: parameters).decisions }
        if let learned { timelines["learned"] = learned }
        let variants = [("", MotionParameters.default)] + (try motionSettings.map { ($0, try Self.motionVariant($0)) })
        for (spec, motionParameters) in variants {
            let suffix = spec.isEmpty ? "" : "[\(spec)]"
            var variant = withMotion
            for index in variant.recordings.indices { variant.recordings[index].motionParameters = motionParameters }
            var results: [RecordingResult] = []
            var rows: [[(time: Instant, decision: RoomDecision)]] = []
            for set in variant.recordings {
                let replayed = Self.replay(set, tracking: tracking, parameters: parameters)
                results.append(RecordingResult(name: set.name, score: replayed.score))
                rows.append(replayed.decisions)
            }
            modes["defaultsMotion" + suffix] = ModeReport(
                recordings: results, name: "defaults, with motion sensors simulated from the truth" + (spec.isEmpty ? "" : ", \(spec)"))
            timelines["defaultsMotion" + suffix] = rows
            if !physicsOnly {
                let learned = Self.learnedSummary(variant.recordings, tracking: tracking, decision: parameters,
                                                  judging: true, siteModel: siteModel).recordings
                modes["learnedMotion" + suffix] = ModeReport(
                    recordings: learned.map { RecordingResult(name: $0.name, score: $0.score) },
                    name: Self.learnedModeName + ", with motion sensors simulated from the truth" + (spec.isEmpty ? "" : ", \(spec)"))
                timelines["learnedMotion" + suffix] = learned.map(\.decisions)
            }
        }
        var report = MotionFiguresReport(
            figures, weights: MotionWeights.measured(withMotion.recordings.map { ($0.truth, $0.motion) }))
        var timing: [String: MotionTiming.Summary] = [:]
        for (mode, rows) in timelines {
            var changes: [MotionTiming.Change] = []
            for (index, recording) in withMotion.recordings.enumerated() {
                changes += MotionTiming.changes(truth: recording.truth, motion: recording.motion, decisions: rows[index])
            }
            timing[mode] = MotionTiming.Summary(changes)
        }
        report.timing = timing
        if let dumpDecisions { try Self.dump(withMotion, timelines: timelines, into: dumpDecisions + "/" + site.name) }
        return report
    }

    /// The learned modes of every recording (learn's verdict when `judging`, else the model alone),
    /// with the decision rows each was scored on and the per-room tally.
    static func learnedSummary(_ recordings: [TraceSet], tracking: TrackingParameters, decision: RoomDecisionParameters,
                               judging: Bool, siteModel: SiteModelParameters = .default) -> SiteModelEvaluation.Summary
    {
        SiteModelEvaluation.leaveOneOut(
            recordings.map {
                SiteModelEvaluation.Recording(name: $0.name, samples: $0.samples, truth: $0.truth, motion: $0.motion,
                                              motionParameters: $0.motionParameters)
            },
            parameters: siteModel, tracking: tracking, decision: decision, judging: judging)
    }

    /// Writes `DIR/NAME.motion.csv` and `DIR/NAME.MODE.decisions.csv` (`time,beacon,room`) per walk.
    static func dump(_ site: Site, timelines: [String: [[(time: Instant, decision: RoomDecision)]]], into directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (index, recording) in site.recordings.enumerated() {
            var motion = "time,room,occupied\n"
            for row in recording.motion { motion += "\(row.time.seconds),\(row.room),\(row.occupied ? 1 : 0)\n" }
            try motion.write(toFile: "\(directory)/\(recording.name).motion.csv", atomically: true, encoding: .utf8)
            for (mode, rows) in timelines {
                var text = "time,beacon,room\n"
                for row in rows[index] { text += "\(row.time.seconds),\(row.decision.beacon.rawValue),\(row.decision.room)\n" }
                try text.write(toFile: "\(directory)/\(recording.name).\(mode).decisions.csv", atomically: true, encoding: .utf8)
            }
        }
    }
}

/// When the true room's motion sensor fires, against the true room change and against a decision's
/// switch into that room: where motion can still make a switch faster (the sensor fired before the
/// decision switched) and where it cannot (it fired later, or not at all during the visit).
enum MotionTiming {
    struct Change {
        /// Seconds from the true change to the first start of the new room's sensor during the visit
        /// (from 5 s before it: already on from a doorway or an earlier visit); nil: it never fired.
        var sensor: Double?
        /// Seconds from the true change until the decision showed the new room during the visit (0:
        /// it already did); nil: not during the visit.
        var decision: Double?
    }

    static func changes(truth: [TruthSample], motion: [MotionSample],
                        decisions: [(time: Instant, decision: RoomDecision)]) -> [Change] {
        var result: [Change] = []
        for (beacon, rows) in Dictionary(grouping: truth, by: \.beacon).sorted(by: { $0.key < $1.key }) {
            let decided = decisions.filter { $0.decision.beacon == beacon }
            func room(at time: Double) -> String? { decided.last { $0.time.seconds <= time }?.decision.room }
            for index in rows.indices.dropFirst() where rows[index].room != rows[index - 1].room {
                let new = rows[index].room
                guard new != RoomDecision.notHome else { continue }
                let start = rows[index].time.seconds
                let end = rows[index...].first { $0.room != new }?.time.seconds ?? rows[rows.count - 1].time.seconds
                let onset = motion.first { $0.room == new && $0.occupied && $0.time.seconds >= start - 5 && $0.time.seconds <= end }
                var shown: Double?
                if room(at: start) == new {
                    shown = 0
                } else if let row = decided.first(where: { $0.time.seconds > start && $0.time.seconds <= end && $0.decision.room == new }) {
                    shown = row.time.seconds - start
                }
                result.append(Change(sensor: onset.map { $0.time.seconds - start }, decision: shown))
            }
        }
        return result
    }

    /// A site's changes for one mode: how many, how often and how soon the sensor fired, and how
    /// often it fired before the decision switched (by how much, the median).
    struct Summary: Encodable {
        var changes: Int
        var sensorFired: Int
        var medianSensorDelay: Double?
        var switched: Int
        var medianSwitchDelay: Double?
        /// Switched during the visit with the sensor firing earlier: what motion may still speed.
        var sensorFirst: Int
        var medianSensorLead: Double?
        /// Switched during the visit before the sensor fired, or with no sensor firing at all.
        var sensorLateOrNever: Int
        /// Never switched during the visit, though the sensor fired.
        var missedWithSensor: Int

        init(_ changes: [Change]) {
            self.changes = changes.count
            let fired = changes.compactMap(\.sensor)
            sensorFired = fired.count
            medianSensorDelay = Self.median(fired)
            let shown = changes.compactMap(\.decision)
            switched = shown.count
            medianSwitchDelay = Self.median(shown)
            var leads: [Double] = []
            var late = 0, missed = 0
            for change in changes {
                switch (change.sensor, change.decision) {
                case let (sensor?, decision?) where sensor < decision: leads.append(decision - sensor)
                case (_, _?): late += 1
                case (_?, nil): missed += 1
                default: break
                }
            }
            sensorFirst = leads.count
            medianSensorLead = Self.median(leads)
            sensorLateOrNever = late
            missedWithSensor = missed
        }

        /// To the hundredth of a second; nil for none.
        static func median(_ values: [Double]) -> Double? {
            guard !values.isEmpty else { return nil }
            return (TrackingCalibration.median(values) * 100).rounded() / 100
        }
    }
}
