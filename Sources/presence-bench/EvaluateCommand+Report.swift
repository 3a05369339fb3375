import ArgumentParser
import BeaconCore
import Evaluation
import RoomDecisions
import Foundation
import PresenceAggregator

/// The JSON `presence-bench evaluate` prints: the settings replayed, every site's modes beside the
/// peers' rules, per recording and summed.
extension EvaluateCommand {
    struct Report: Encodable {
        var parameters: Parameters
        /// The agents' Kalman filter used in the replay.
        var filter: RSSIKalmanFilter.Parameters
        /// The agents' publish policy used in the replay.
        var publish: MeasurementPublishPolicy.Parameters
        /// Measurements a still beacon makes a node publish per minute (the median of the 60
        /// static-rssi series, `presence-bench speed`'s figure with the default tracking), with the
        /// tracking replayed here; nil without `<data>/static-rssi`.
        var messagesPerBeaconNodeMinuteAtRest: Double?
        var sites: [String: SiteReport]
        /// With `--motion`: per site, the figures as the simulated sensors gave them.
        var motion: [String: MotionFiguresReport]?
        var grid: [GridRow]?
    }

    /// The simulated sensors measured as the issue measured a real house's: per labelled second,
    /// the true room's sensor active within the last 10 s (issue: 0.58) and 30 s (0.79), another
    /// room's within 10 s (0.23).
    struct MotionFiguresReport: Encodable {
        var seconds: Int
        var trueRoomWithin10s, trueRoomWithin30s, otherRoomWithin10s: Double
        /// The site model's motion weights measured on all the site's walks (`MotionWeights`; each
        /// leave-one-out model measures its own on its training walks).
        var modelWeights: [String: Double]?
        /// Per mode (physics and the site model, without and with motion): when the true room's
        /// sensor fired against the true change and against the decision's switch (`MotionTiming`).
        var timing: [String: MotionTiming.Summary]?
        init(_ figures: SimulatedMotion.Figures, weights: MotionWeights?) {
            seconds = figures.seconds
            trueRoomWithin10s = rounded(figures.share(figures.trueWithin10), 3)
            trueRoomWithin30s = rounded(figures.share(figures.trueWithin30), 3)
            otherRoomWithin10s = rounded(figures.share(figures.otherWithin10), 3)
            modelWeights = weights.map { ["active": rounded($0.active, 3), "recent": rounded($0.recent, 3), "quiet": rounded($0.quiet, 3)] }
        }
    }

    struct SiteReport: Encodable {
        var directory: String
        var recordings: Int
        /// Per way of deciding (`defaults`, and any further mode): its rows and summary.
        var modes: [String: ModeReport]
        /// The strongest raw RSSI in the last 1 s.
        var baseline: ModeReport
        /// Bermuda 0.8's rule on the same advertisements.
        var bermuda: ModeReport
        /// Home Assistant's `mqtt_room` rule on the same advertisements.
        var mqttRoom: ModeReport
        /// With `--site-model-study`: per held-out recording, the seconds of each room its training recordings hold.
        var trainingSeconds: [String: [String: Double]]?
    }

    /// One recording's score in a mode.
    struct RecordingResult {
        var name: String
        var score: RoomDecisionScore
        /// Measurements published per beacon per node per minute, when the mode replays the nodes.
        var messagesPerBeaconNodeMinute: Double?
    }

    /// One mode on one site: a row per recording and the site's summary.
    struct ModeReport: Encodable {
        var name: String?
        var recordings: [TraceRow]
        var summary: Summary
        /// Measurements per beacon per node per minute over the site's recordings (people or cars
        /// moving), heard and `unknown` alike: the broker load while moving (issue 6).
        var messagesPerBeaconNodeMinuteMoving: Double?
        /// The learned modes: per true room, the share of its truth rows decided right (all recordings).
        var rooms: [String: Double]?
        /// The learned modes that choose it: per recording, the evidence rate of the model that decided it.
        var evidenceRates: [String: Double]?
        /// With `--site-model-study`: per recording, each true room's share of its time decided right.
        var roomsByRecording: [String: [String: Double]]?

        init(recordings results: [RecordingResult], name: String? = nil) {
            self.name = name
            recordings = results.map(TraceRow.init)
            summary = Summary(results.map(\.score))
        }
    }

    struct Parameters: Encodable {
        var margin, fallRate, dwell, evidenceToSwitch, leadCap, settleTime, staleAfter, awayTimeout, pathLossExponent: Double
        init(_ p: RoomDecisionParameters) {
            let rule = p.rule
            margin = rule.margin; fallRate = rule.fallRate; dwell = rule.dwell; evidenceToSwitch = rule.evidenceToSwitch
            leadCap = rule.leadCap
            settleTime = p.settleTime
            staleAfter = p.staleAfter; awayTimeout = p.awayTimeout; pathLossExponent = p.pathLossExponent
        }
    }

    struct TraceRow: Encodable {
        var name: String
        var accuracy: Double
        var flaps: Int
        var medianSwitchLatency: Double?
        var p90SwitchLatency: Double?
        var switchLatencies: [Double]
        var missedChanges: Int
        var messagesPerBeaconNodeMinute: Double?
        init(_ result: RecordingResult) {
            let score = result.score
            name = result.name
            accuracy = rounded(score.accuracy, 4)
            flaps = score.flaps
            medianSwitchLatency = score.medianSwitchLatency.map { rounded($0, 3) }
            p90SwitchLatency = score.p90SwitchLatency.map { rounded($0, 3) }
            switchLatencies = score.switchLatencies.map { rounded($0, 3) }
            missedChanges = score.missedChanges
            messagesPerBeaconNodeMinute = result.messagesPerBeaconNodeMinute.map { rounded($0, 2) }
        }
    }

    /// A site's figures over its recordings, as the project reports them: `meanAccuracy` is the mean
    /// of per-recording accuracies, `flaps` add up, `medianSwitchLatency` is the median of the
    /// per-recording median switch latencies (recordings without a true change left out). Beside
    /// them, pooled: `pooledAccuracy` the share of all truth rows, `pooledMedianSwitchLatency` the
    /// median over every true change of every recording.
    struct Summary: Encodable {
        var recordings: Int
        var meanAccuracy: Double
        var flaps: Int
        var medianSwitchLatency: Double?
        var pooledAccuracy: Double
        var pooledMedianSwitchLatency: Double?
        var trueChanges: Int
        /// True changes with no decision for their room before the next true change.
        var missedChanges: Int
        init(_ scores: [RoomDecisionScore]) {
            let summary = SiteScore(scores)
            recordings = scores.count
            meanAccuracy = rounded(summary.meanAccuracy, 4)
            flaps = summary.flaps
            medianSwitchLatency = summary.medianSwitchLatency.map { rounded($0, 3) }
            pooledAccuracy = rounded(summary.pooled.accuracy, 4)
            pooledMedianSwitchLatency = summary.pooled.medianSwitchLatency.map { rounded($0, 3) }
            trueChanges = summary.pooled.trueChanges
            missedChanges = summary.missedChanges
        }
    }

    struct GridRow: Encodable {
        var margin, dwell, evidenceToSwitch: Double
        var sites: [String: Summary]
    }
}
