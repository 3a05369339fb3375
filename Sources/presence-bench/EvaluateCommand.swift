import ArgumentParser
import BeaconCore
import Evaluation
import RoomDecisions
import Foundation
import PresenceAggregator

/// Scores room decisions on every shared site's recordings against their ground truth, in one JSON
/// object.
///
/// A site is a directory of `NAME.trace.csv` files each with its `NAME.truth.csv` (docs/Files.md); by
/// default the three shared sites, `danis` (`<data>/traces`, nine walks in an open hall), `sal`
/// (`<data>/traces-sal`, a car and a person in and out of a test bay) and `flat`
/// (`<data>/traces-flat`, a robot carrying the tag through a furnished flat of five rooms), with
/// `--house DIR` a real house (`EvaluateCommand+House.swift`, `EvaluateCommand+HouseRooms.swift`),
/// or one directory given with `--traces`;
/// `--site` picks sites by name. Per site and per mode (`defaults`: the agent's tracking and the
/// aggregator's decision replayed with `TraceReplay`; the learned site model's modes) every
/// recording is scored as the shared yardstick scores it (`RoomDecisionScore`: accuracy at every
/// truth row, every change of the decision timeline), and the site summarised as the yardstick
/// pools it (`SiteScore`): mean of per-recording accuracy, flaps summed, median of per-recording
/// median switch latency, missed changes summed (and the pooled accuracy and latency beside them). The "strongest raw RSSI in the last 1 s" baseline is
/// scored the same way; it validates the scorer against the published reference figures.
///
/// Bermuda 0.8's rule (`BermudaRuleBaseline`) is scored beside ours on the same advertisements,
/// under `bermuda`, as is Home Assistant's `mqtt_room` rule (`MQTTRoomBaseline`) under `mqttRoom`.
///
/// JSON shape: `{ parameters, filter, publish, messagesPerBeaconNodeMinuteAtRest, sites: { NAME: {
/// directory, recordings, modes: { MODE: { recordings: [Row], summary: Summary,
/// messagesPerBeaconNodeMinuteMoving? } }, baseline: { recordings, summary }, bermuda: { recordings, summary }, mqttRoom: { recordings, summary } } }, grid? }`.
/// A further mode (the learned site model, judged leave-one-recording-out) adds its own key under
/// `modes` beside `defaults`, built with `ModeReport(recordings:)` from its own scores. The learned
/// modes add `rooms` (per true room, the share of its time decided right), and `learnTogether` is
/// `learn`'s own leave-one-out of the model and physics each in its rooms. `--site-model-parameter
/// key=value` sets a site model hyper-parameter for the learned modes, to measure one.
struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Scores room decisions on every shared site's recordings; prints one JSON object."
    )

    @Option(help: "The shared data directory: the sites are its traces/ (danis), traces-sal/ (sal) and traces-flat/ (flat).")
    var data: String = "data"

    @Option(help: "Score only this directory of NAME.trace.csv + NAME.truth.csv pairs (one site, named after it).")
    var traces: String?

    @Option(help: "Margin in dB (default: RoomDecisionParameters.default).")
    var margin: Double?

    @Option(help: "How fast the current room's held score may fall, dB/s (inf: no hold).")
    var fallRate: Double?

    @Option(help: "Dwell in seconds.")
    var dwell: Double?

    @Option(help: "Evidence to switch in dB·s.")
    var evidence: Double?

    @Option(help: "Lead cap in dB.")
    var leadCap: Double?

    @Option(help: "Settle time in seconds.")
    var settleTime: Double?

    @Option(help: "The agents' publish step floor in dB (default: MeasurementPublishPolicy.Parameters.default).")
    var rssiStep: Double?

    @Option(help: "The agents' publish step σ multiple k.")
    var sigmaMultiple: Double?

    @Option(help: "The agents' step while moving, dB.")
    var movingStep: Double?

    @Option(help: "How long a step publish keeps the moving step, seconds.")
    var movingFor: Double?

    @Option(help: "The agents' heartbeat in seconds.")
    var heartbeat: Double?

    @Option(help: "The agents' Kalman process noise q in dB²/s (default: RSSIKalmanFilter.Parameters.default).")
    var processNoise: Double?

    @Option(help: "The agents' Kalman measurement noise r in dB².")
    var measurementNoise: Double?

    @Flag(help: "Skip the learned site model's modes (quicker, for trying decision settings).")
    var physicsOnly = false

    @Flag(help: "Also score every site with motion sensors simulated from each walk's truth (modes defaultsMotion and learnedMotion; SimulatedMotion, seeded), beside the same modes without.")
    var motion = false

    @Option(name: .customLong("site-model-parameter"), help: ArgumentHelp("The learned modes: learn with this site model hyper-parameter instead of its default, named as a model file's parameters name it (key=value, e.g. evidenceRate=3; repeat for more): how the Site model article measured them.", valueName: "key=value"))
    var siteModelSettings: [String] = []

    @Flag(help: "The learned modes: also let each training set choose its evidence rate (learnedChosenRate, learnedModelAloneChosenRate, learnedTogetherChosenRate), score the two together held out (learnedTogetherHeldOut) and in sample (learnedInSample), and give each held-out recording's training seconds per room (the Site model article's study).")
    var siteModelStudy = false

    @Option(name: .customLong("motion-setting"), help: ArgumentHelp("With --motion: also score this variant of the motion parameters (key=value,…: hold, onsetWindow, onsetFactor, quietAfter, quietFactor, modelMotion, modelQuiet, modelOnset, modelQuietNeedsMotionElsewhere, confirmedOnsetFactor, quietNeedsMotionHere) as modes defaultsMotion[SPEC] and learnedMotion[SPEC]; repeat for more.", valueName: "spec"))
    var motionSettings: [String] = []

    @Option(help: ArgumentHelp("With --motion: write each walk's simulated motion and every mode's decisions as CSV under DIR/SITE, to look at one walk's decisions beside its motion.", valueName: "dir"))
    var dumpDecisions: String?

    @Flag(help: "Also score a grid of margin × dwell × evidence settings on every site (the grid that chose the defaults: docs/research/2026-11-24-room-rule-where-the-seconds-go.md).")
    var grid = false

    @Flag(help: "Also replay every site as ESPresense nodes would have reported it (mode espresense; the ESPresense and BLE gateways article).")
    var espresense = false

    @Option(help: ArgumentHelp("Also score a real house (EvaluateCommand+House.swift): DIR holds its receivers/ and rooms/ recordings with their motion files; sites house (radio alone) and house-pir in the receivers' rooms, house-rooms and house-rooms-pir in its nine rooms (EvaluateCommand+HouseRooms.swift).", valueName: "dir"))
    var house: String?

    @Flag(help: "Print the sites' results as the Markdown results page (docs/Results.md) instead of JSON.")
    var markdown = false

    @Option(name: .customLong("site"), help: ArgumentHelp("Score only this site (repeat for more): danis, sal, flat; with --house also house, house-pir, house-rooms, house-rooms-pir.", valueName: "name"))
    var onlySites: [String] = []

    /// The shared sites: name and directory under `--data`.
    static let sharedSites = [
        (name: "danis", directory: "traces"), (name: "sal", directory: "traces-sal"), (name: "flat", directory: "traces-flat"),
    ]

    /// The shared sites' names and the house's: what `--site` may name.
    static var siteNames: [String] { sharedSites.map(\.name) + houseSites.map(\.name) + houseRoomSites.map(\.name) }

    func validate() throws {
        for name in onlySites where !Self.siteNames.contains(name) {
            throw ValidationError("--site: '\(name)' is not one of \(Self.siteNames.joined(separator: ", "))")
        }
        if traces != nil, !onlySites.isEmpty { throw ValidationError("--site and --traces: give one or the other") }
        if house == nil, let name = onlySites.first(where: { name in (Self.houseSites + Self.houseRoomSites).contains { $0.name == name } }) {
            throw ValidationError("--site \(name): give the house's folder with --house")
        }
    }

    func run() throws {
        var parameters = RoomDecisionParameters.default
        if let margin { parameters.rule.margin = margin }
        if let fallRate { parameters.rule.fallRate = fallRate }
        if let dwell { parameters.rule.dwell = dwell }
        if let evidence { parameters.rule.evidenceToSwitch = evidence }
        if let leadCap { parameters.rule.leadCap = leadCap }
        if let settleTime { parameters.settleTime = settleTime }

        var tracking = TrackingParameters.default
        if let rssiStep { tracking.publish.rssiStep = rssiStep }
        if let sigmaMultiple { tracking.publish.sigmaMultiple = sigmaMultiple }
        if let heartbeat { tracking.publish.heartbeat = heartbeat }
        if let movingStep { tracking.publish.movingStep = movingStep }
        if let movingFor { tracking.publish.movingFor = movingFor }
        if let processNoise { tracking.filter.processNoise = processNoise }
        if let measurementNoise { tracking.filter.measurementNoise = measurementNoise }

        let siteModel = try siteModelParameters()
        var sites: [Site]
        if let traces {
            let name = URL(fileURLWithPath: traces).standardizedFileURL.lastPathComponent
            sites = [Site(name: name, directory: traces, recordings: try Self.loadTraces(directory: traces))]
        } else {
            let wanted = Set(onlySites.isEmpty ? Self.siteNames : onlySites)
            sites = try Self.sharedSites.filter { wanted.contains($0.name) }.map { site in
                let directory = data + "/" + site.directory
                return Site(name: site.name, directory: directory, recordings: try Self.loadTraces(directory: directory))
            }
        }
        var report = Report(parameters: .init(parameters), filter: tracking.filter, publish: tracking.publish, sites: [:])
        // The at-rest rate is the still beacons' (static-rssi), the same for every site, with the
        // agents' tracking as replayed (a filter or publish flag changes it too).
        report.messagesPerBeaconNodeMinuteAtRest =
            (try? SpeedBenchmarks.messagesAtRest(dataDirectory: data, tracking: tracking)).map { rounded($0, 3) }
        var motionFigures: [String: MotionFiguresReport] = [:]
        for site in sites {
            var modes: [String: ModeReport] = [:]
            modes["defaults"] = Self.defaultsMode(site, tracking: tracking, parameters: parameters)
            // The site model learned from the site's other recordings (EvaluateCommand+Learned.swift).
            let learnedDecisions = physicsOnly ? nil
                : Self.learnedModes(site, into: &modes, tracking: tracking, decision: parameters, siteModel: siteModel)
            if !physicsOnly, let together = Self.learnTogether(site.recordings.map { ($0.name, $0.samples, $0.truth, $0.motion) },
                                                               tracking: tracking, decision: parameters, siteModel: siteModel) {
                modes["learnTogether"] = together
            }
            var trainingSeconds: [String: [String: Double]]?
            if siteModelStudy, !physicsOnly {
                trainingSeconds = Self.studySiteModel(site.recordings, modes: &modes, tracking: tracking,
                                                      decision: parameters, siteModel: siteModel)
            }
            if espresense { modes["espresense"] = Self.espresenseMode(site, parameters: parameters) }
            if motion {
                // Each walk with a PIR per room simulated from its truth (EvaluateCommand+Motion.swift).
                motionFigures[site.name] = try scoreMotion(site, modes: &modes, learned: learnedDecisions,
                                                            tracking: tracking, parameters: parameters, siteModel: siteModel)
            }
            let baseline = site.recordings.map { (name: $0.name, score: Self.scoreBaseline($0)) }
            let bermuda = site.recordings.map { (name: $0.name, score: Self.scoreBermuda($0)) }
            report.sites[site.name] = SiteReport(
                directory: site.directory, recordings: site.recordings.count, modes: modes,
                baseline: ModeReport(recordings: baseline.map { RecordingResult(name: $0.name, score: $0.score) },
                                     name: "strongest raw RSSI in the last 1 s"),
                bermuda: ModeReport(recordings: bermuda.map { RecordingResult(name: $0.name, score: $0.score) },
                                    name: Self.bermudaName),
                mqttRoom: Self.mqttRoomMode(site),
                trainingSeconds: trainingSeconds)
        }
        if let house {
            try scoreHouse(house, into: &report, tracking: tracking, parameters: parameters, siteModel: siteModel)
            try scoreHouseRooms(house, into: &report, tracking: tracking, parameters: parameters, siteModel: siteModel)
        }
        if motion { report.motion = motionFigures }
        if grid {
            var rows: [GridRow] = []
            for margin in [0.0, 0.25, 0.5, 1, 2] {
                for dwell in [0.0, 1, 1.5, 2, 3] {
                    for evidence in [0.5, 1.5, 3] {
                        var p = parameters
                        p.rule.margin = margin
                        p.rule.dwell = dwell
                        p.rule.evidenceToSwitch = evidence
                        var summaries: [String: Summary] = [:]
                        for site in sites {
                            summaries[site.name] = Summary(site.recordings.map { Self.replay($0, tracking: tracking, parameters: p).score })
                        }
                        rows.append(GridRow(margin: margin, dwell: dwell, evidenceToSwitch: evidence, sites: summaries))
                    }
                }
            }
            report.grid = rows
        }
        if markdown {
            print(Self.resultsPage(report, commit: Self.currentCommit()), terminator: "")
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let json = try encoder.encode(report)
        print(String(decoding: json, as: UTF8.self))
    }

    /// The `defaults` mode of a site: each recording replayed through the agents' tracking and the
    /// aggregator's decision, and what the nodes published while the beacons moved.
    static func defaultsMode(_ site: Site, tracking: TrackingParameters, parameters: RoomDecisionParameters) -> ModeReport {
        var results: [RecordingResult] = []
        var totalMessages = 0, totalMinutes = 0.0
        for set in site.recordings {
            let (score, messages, minutes, _) = replay(set, tracking: tracking, parameters: parameters)
            var result = RecordingResult(name: set.name, score: score)
            result.messagesPerBeaconNodeMinute = minutes > 0 ? Double(messages) / minutes : nil
            results.append(result)
            totalMessages += messages
            totalMinutes += minutes
        }
        var mode = ModeReport(recordings: results)
        mode.messagesPerBeaconNodeMinuteMoving = totalMinutes > 0 ? rounded(Double(totalMessages) / totalMinutes, 2) : nil
        return mode
    }

    /// One site: its name and its recordings.
    struct Site {
        var name: String
        var directory: String
        var recordings: [TraceSet]
    }

    struct TraceSet {
        var name: String
        var samples: [TraceSample]
        var truth: [TruthSample]
        /// Its motion file's rows (`NAME.motion.csv` beside it, or simulated with `--motion`).
        var motion: [MotionSample] = []
        /// How its motion weighs (the defaults, or a variant `--motion-setting` scores).
        var motionParameters = MotionParameters.default
    }

    /// Every `NAME.trace.csv` of `directory` that has a `NAME.truth.csv` beside it, in name order.
    static func loadTraces(directory: String) throws -> [TraceSet] {
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw ValidationError("cannot read the trace directory \(directory)")
        }
        let names = files.filter { name in
            name.hasSuffix(".trace.csv") && files.contains(String(name.dropLast(".trace.csv".count)) + ".truth.csv")
        }.sorted()
        guard !names.isEmpty else { throw ValidationError("no NAME.trace.csv with a NAME.truth.csv in \(directory)") }
        var floors = TraceFile.SiteFloors()
        return try names.map { name in
            let base = String(name.dropLast(".trace.csv".count))
            let trace = directory + "/" + name
            let truth = directory + "/" + base + ".truth.csv"
            let samples: [TraceSample]
            do { samples = try TraceFile.samples(path: trace) } catch let error as TraceError {
                throw ValidationError("\(trace): \(error)")
            }
            let motion: [MotionSample]
            do { motion = try TraceFile.motion(besideTrace: trace) ?? [] } catch { throw ValidationError("\(error)") }
            // Rooms without a receiver are the truth's to name (issue 36); a likely typo is a warning
            // on stderr, beside the JSON on stdout.
            let checked: TraceFile.CheckedTruth
            do { checked = try TraceFile.checkedTruth(path: truth, nodeRooms: TraceFile.rooms(of: samples)) } catch let error as TraceError {
                throw ValidationError("\(truth): \(error)")
            }
            for warning in checked.warnings { FileHandle.standardError.write(Data("warning: \(truth): \(warning)\n".utf8)) }
            do { try floors.add(checked, path: truth) } catch { throw ValidationError("\(error)") }
            return TraceSet(name: base, samples: samples, truth: checked.rows, motion: motion)
        }
    }

    /// Replays the trace: its score, and the measurements the nodes published over how many
    /// beacon-node-minutes (each (beacon, node) pair counted from the trace's first sample to its last).
    /// `nodeOffsets`: each node's calibration, taken off its measurements as they reach the decision;
    /// `agentOffsets`: pushed to each node's agent as its `rssiOffset` instead.
    static func replay(_ set: TraceSet, tracking: TrackingParameters, parameters: RoomDecisionParameters,
                       nodeOffsets: [String: Double] = [:], agentOffsets: [String: Double] = [:])
        -> (score: RoomDecisionScore, messages: Int, beaconNodeMinutes: Double, decisions: [(time: Instant, decision: RoomDecision)])
    {
        var replay = TraceReplay(tracking: tracking, decision: parameters)
        replay.nodeOffsets = nodeOffsets
        replay.agentOffsets = agentOffsets
        replay.motionParameters = set.motionParameters
        replay.motion = set.motion
        var rows: [(time: Instant, decision: RoomDecision)] = []
        for sample in set.samples {
            for timed in replay.step(sample).decisions { rows.append((timed.time, timed.decision)) }
        }
        let result = score(set, decisions: rows)
        var pairs = Set<String>()
        for sample in set.samples { pairs.insert(sample.beacon.rawValue + "\u{0}" + sample.node) }
        let duration = (set.samples.last?.time).map { $0.since(set.samples[0].time) } ?? 0
        return (result, replay.published, Double(pairs.count) * duration / 60, rows)
    }

    static func scoreBaseline(_ set: TraceSet) -> RoomDecisionScore {
        perBeacon(set) { beacon in
            StrongestRecentRSSIBaseline.decisions(of: set.samples.filter { $0.beacon == beacon })
        }
    }

    /// Bermuda 0.8's area rule on the recording's advertisements (`BermudaRuleBaseline`).
    static func scoreBermuda(_ set: TraceSet) -> RoomDecisionScore {
        perBeacon(set) { beacon in
            BermudaRuleBaseline.decisions(of: set.samples.filter { $0.beacon == beacon })
        }
    }

    /// Home Assistant's `mqtt_room` rule on every recording of the site (`MQTTRoomBaseline`).
    static func mqttRoomMode(_ site: Site) -> ModeReport {
        ModeReport(recordings: site.recordings.map { set in
            RecordingResult(name: set.name, score: perBeacon(set) { beacon in
                MQTTRoomBaseline.decisions(of: set.samples.filter { $0.beacon == beacon })
            })
        }, name: mqttRoomName)
    }

    static let mqttRoomName = "Home Assistant's mqtt_room rule: a nearer report, one from the same room, or any once the kept one is 5 s old"

    static let bermudaName = "Bermuda 0.8's rule: bottom-hugging distance, a challenger nearer by 30 % of the two distances' mean (15 % with its history), adverts up to 10 s old, every 1.05 s"

    /// Scores a timeline of decisions (every beacon's, in time order) against the recording's truth,
    /// beacon by beacon, pooled: what any mode that decides rooms is judged by.
    static func score(_ set: TraceSet, decisions rows: [(time: Instant, decision: RoomDecision)]) -> RoomDecisionScore {
        perBeacon(set) { beacon in
            rows.filter { $0.decision.beacon == beacon }.map { ($0.time, $0.decision.room) }
        }
    }

    static func perBeacon(_ set: TraceSet, decisions: (BeaconID) -> [(time: Instant, room: String)]) -> RoomDecisionScore {
        let beacons = Set(set.truth.map(\.beacon)).sorted()
        return RoomDecisionScore.pooled(beacons.map { beacon in
            RoomDecisionScore(decisions: decisions(beacon), truth: set.truth.filter { $0.beacon == beacon })
        })
    }
}
