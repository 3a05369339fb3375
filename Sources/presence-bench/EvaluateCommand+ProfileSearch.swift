import ArgumentParser
import BeaconCore
import Evaluation
import Foundation
import PresenceAggregator
import RoomDecisions

/// `evaluate --candidate SPEC …`: scores decision settings on the worn walks of every site
/// over several draws (`--worn-draws`, from `--worn-draw`: draws the search did not see check its
/// choice), and on the recorded ones, beside Bermuda's rule on the same
/// adverts and the signal's own oracles (`SwitchOracle`); one JSON line per candidate, printed as
/// each is done. The worn signal is drawn once per draw and every candidate meets the same
/// adverts, so candidates differ only by their settings.
extension EvaluateCommand {
    /// `margin=1,fallRate=2,dwell=3,evidence=3,leadCap=3,fastLead=4,fastFor=1,settle=1`
    /// over `base`; a key not given keeps `base`'s value.
    static func candidate(_ spec: String, over base: RoomDecisionParameters) throws -> RoomDecisionParameters {
        var p = base
        for (key, value) in try candidatePairs(spec) {
            switch key {
            case "margin": p.rule.margin = value
            case "fallRate": p.rule.fallRate = value
            case "dwell": p.rule.dwell = value
            case "evidence": p.rule.evidenceToSwitch = value
            case "leadCap": p.rule.leadCap = value
            case "fastLead": p.rule.fastLead = value
            case "fastFor": p.rule.fastFor = value
            case "settle": p.settleTime = value
            case "riseLead": p.rule.riseLead = value
            case "risePending": p.rule.risePending = value
            case "riseQuery": p.rule.riseQuery = value
            case _ where riseKeys.contains(key) || siteKeys.contains(key): break
            default: throw ValidationError("--candidate: unknown key '\(key)'")
            }
        }
        return p
    }

    /// A candidate's `key=number` pairs, in order: the one reading of a spec that `candidate`,
    /// `candidateSite` and `candidateTracking` each take their own keys from.
    static func candidatePairs(_ spec: String) throws -> [(key: String, value: Double)] {
        try spec.split(separator: ",").filter { !$0.isEmpty }.map { part in
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, let value = Double(pair[1]) else {
                throw ValidationError("--candidate: '\(part)' is not key=number")
            }
            return (pair[0], value)
        }
    }

    /// The keys of who reports rises: `foreign` (0: every node is our agent; 1, 2: one half of the
    /// rooms' nodes are foreign, `foreignNodes(of:half:)`; 3: every node), `riseRule` (0: the worn
    /// profile even while the nodes report rises; 1, default: `SwitchingRule.wornRise`).
    /// `announce` (1, default: our agents announce their rise reports in their `info`, so the
    /// aggregator knows them from the start, even just restarted; 0: it learns each from its first
    /// rise report, as with agents older than the announcement); `known` is the same key (its older
    /// name, so earlier searches' specs still read).
    static let siteKeys: Set<String> = ["foreign", "riseRule", "announce", "known", "queryDelay"]

    /// A candidate's `foreign`, `riseRule` and `announce` keys.
    static func candidateSite(_ spec: String) throws
        -> (foreign: Int, riseRule: Bool, announce: Bool, queryDelay: Double) {
        var result = (foreign: 0, riseRule: true, announce: true, queryDelay: 0.1)
        for (key, value) in try candidatePairs(spec) {
            if key == "queryDelay" { result.queryDelay = value }
            if key == "foreign" { result.foreign = Int(value) }
            if key == "riseRule" { result.riseRule = value != 0 }
            if key == "announce" || key == "known" { result.announce = value != 0 }
        }
        return result
    }

    /// The nodes replayed as foreign ones (they report no rises): with `half` 1 those of every second
    /// room in name order starting with the second, with 2 the others, with 3 all; 0: none.
    static func foreignNodes(of set: TraceSet, half: Int) -> Set<String> {
        guard half > 0 else { return [] }
        let rooms = Set(set.samples.map(\.room)).sorted()
        var nodes = Set<String>()
        for sample in set.samples {
            guard let index = rooms.firstIndex(of: sample.room) else { continue }
            if half >= 3 || index % 2 == (half == 1 ? 1 : 0) { nodes.insert(sample.node) }
        }
        return nodes
    }

    /// The agent's rise-report keys a candidate may carry (`RiseReport.Parameters`): `rise` (0: none),
    /// `riseOver`, `riseAdverts`, `riseWithin`, `riseEvery`.
    static let riseKeys: Set<String> = ["rise", "riseOver", "riseAdverts", "riseWithin", "riseEvery"]

    /// `tracking` with a candidate's rise-report keys applied (the rest of the spec is `candidate`'s).
    static func candidateTracking(_ spec: String, over tracking: TrackingParameters) throws -> TrackingParameters {
        var t = tracking
        for (key, value) in try candidatePairs(spec) where riseKeys.contains(key) {
            switch key {
            case "rise": t.rise.rise = value
            case "riseOver": t.rise.over = value
            case "riseAdverts": t.rise.adverts = max(1, Int(value))
            case "riseWithin": t.rise.within = value
            default: t.rise.every = value
            }
        }
        return t
    }

    /// One candidate's figures on one site: over the draws, mean accuracy and median switch
    /// averaged, flaps and missed changes summed (the Room decisions article's four-draw tables).
    struct DrawFigures: Encodable {
        var accuracy: Double
        var flaps: Int
        var medianSwitch: Double?
        var missed: Int
        init(_ summaries: [SiteScore]) {
            let n = Double(max(summaries.count, 1))
            accuracy = rounded(summaries.map(\.meanAccuracy).reduce(0, +) / n, 4)
            flaps = summaries.map(\.flaps).reduce(0, +)
            let medians = summaries.compactMap(\.medianSwitchLatency)
            medianSwitch = medians.isEmpty ? nil : rounded(medians.reduce(0, +) / Double(medians.count), 3)
            missed = summaries.map(\.missedChanges).reduce(0, +)
        }
    }

    struct CandidateLine: Encodable {
        var candidate: String
        var worn: [String: DrawFigures]
        var recorded: [String: DrawFigures]?
        /// The candidate's agent keys: measurements per beacon per node per minute at rest, marked
        /// worn (`SpeedBenchmarks.messagesAtRest`; the budget is 2).
        var messagesAtRestWorn: Double?
        /// Measurements per beacon per node per minute on the first draw's worn walks, by site.
        var messagesPerBeaconNodeMinuteWorn: [String: Double]?
    }

    /// Runs the search and prints its lines: first Bermuda's (`candidate: "bermuda"`), then the
    /// oracles', then one per rise-gated oracle (on every advert, then on what the nodes publish),
    /// then one per candidate.
    static func searchCandidates(_ specs: [String], riseOracles: [String] = [], sites: [Site], draws: Range<Int>, recorded: Bool,
                                 wornSignal: WornTagSignal, tracking: TrackingParameters, base: RoomDecisionParameters,
                                 data: String? = nil) throws {
        // A candidate is scored as a beacon marked worn, so its keys go over the worn profile
        // (`wornRule`): an empty candidate is the defaults. Over the general defaults, a partial
        // candidate (`foreign=1`) once met a worn profile without its fast clock, and looked broken.
        let parsed = try specs.map {
            (spec: $0, parameters: try candidate($0, over: base.worn), tracking: try candidateTracking($0, over: tracking))
        }
        let rises = try riseOracles.map { (spec: $0, oracle: try RiseGatedOracle(spec: $0)) }
        // Every draw of every site's walks, worn: drawn once, met by every candidate.
        let wornSites: [[Site]] = draws.map { draw in
            sites.map { site in
                var worn = site
                for index in worn.recordings.indices {
                    let recording = worn.recordings[index]
                    worn.recordings[index].samples = wornSignal.apply(
                        to: recording.samples, truth: recording.truth, name: draw == 0 ? recording.name : "\(recording.name)#\(draw)")
                }
                return worn
            }
        }
        // The same walks as what the nodes publish (each measurement's raw `rssi`): what the decision sees.
        func published(_ site: Site) -> Site {
            var copy = site
            for index in copy.recordings.indices { copy.recordings[index].samples = publishedAdverts(site.recordings[index], tracking: tracking) }
            return copy
        }
        let wornPublished = wornSites.map { $0.map(published) }
        let recordedPublished = recorded ? sites.map(published) : []
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        func emit(_ name: String, _ result: (worn: [String: DrawFigures], recorded: [String: DrawFigures]?),
                  atRest: TrackingParameters? = nil, moving: [String: Double]? = nil) throws {
            // Unbuffered, so a long search shows each candidate as it is done.
            var line = CandidateLine(candidate: name, worn: result.worn, recorded: result.recorded)
            line.messagesPerBeaconNodeMinuteWorn = moving
            if let atRest, let data {
                line.messagesAtRestWorn = (try? SpeedBenchmarks.messagesAtRest(dataDirectory: data, tracking: atRest, worn: true))
                    .map { rounded($0, 3) }
            }
            FileHandle.standardOutput.write(try encoder.encode(line) + Data("\n".utf8))
        }
        func figures(publishedOnly: Bool = false, _ score: (TraceSet) -> RoomDecisionScore)
            -> (worn: [String: DrawFigures], recorded: [String: DrawFigures]?)
        {
            let drawn = publishedOnly ? wornPublished : wornSites
            var worn: [String: DrawFigures] = [:]
            for (index, site) in sites.enumerated() {
                worn[site.name] = DrawFigures(drawn.map { SiteScore($0[index].recordings.map(score)) })
            }
            let plain = recorded ? (publishedOnly ? recordedPublished : sites) : []
            return (worn, recorded ? Dictionary(uniqueKeysWithValues: plain.map { ($0.name, DrawFigures([SiteScore($0.recordings.map(score))])) }) : nil)
        }
        func adverts(_ decide: @escaping ([TraceSample]) -> [(time: Instant, room: String)]) -> (TraceSet) -> RoomDecisionScore {
            { set in perBeacon(set) { beacon in decide(set.samples.filter { $0.beacon == beacon }) } }
        }
        try emit("bermuda", figures(scoreBermuda))
        // How soon the adverts themselves show a move (SwitchOracle): no rule can be faster.
        for oracle in SwitchOracle.allCases {
            try emit("oracle-\(oracle.rawValue)", figures(adverts(oracle.decisions)))
        }
        for oracle in [SwitchOracle.raw, .held1s] {
            try emit("oracle-published-\(oracle.rawValue)", figures(publishedOnly: true, adverts(oracle.decisions)))
        }
        for (spec, oracle) in rises {
            try emit("rise:\(spec)", figures(adverts(oracle.decisions)))
            try emit("rise-published:\(spec)", figures(publishedOnly: true, adverts(oracle.decisions)))
        }
        for (spec, parameters, own) in parsed {
            // The walker's tag marked worn, as a known beacon: the nodes' tracks report its rises
            // (the candidate's agent keys) and the decider meets it with the candidate's rule.
            // A candidate with a rise switch (`riseLead`) is also the rule while the nodes report
            // rises; without one, that rule is `wornRiseRule`.
            let site = try candidateSite(spec)
            let riseRule = parameters.rule.riseLead.isFinite ? parameters.rule : SwitchingRule.wornRise
            try emit(spec.isEmpty ? "defaults" : spec, figures {
                replay($0, tracking: own, parameters: parameters, worn: true,
                       wornRiseRule: site.riseRule ? riseRule : nil, foreign: site.foreign,
                       announce: site.announce, queryDelay: site.queryDelay).score
            }, atRest: own, moving: Dictionary(uniqueKeysWithValues: (wornSites.first ?? []).map { walk in
                let runs = walk.recordings.map {
                    replay($0, tracking: own, parameters: parameters, worn: true,
                           wornRiseRule: site.riseRule ? riseRule : nil, foreign: site.foreign, announce: site.announce,
                           queryDelay: site.queryDelay)
                }
                let minutes = runs.map(\.beaconNodeMinutes).reduce(0, +)
                return (walk.name, rounded(Double(runs.map(\.messages).reduce(0, +)) / max(minutes, 1e-9), 2))
            }))
        }
    }

    /// The raw advert of every measurement the nodes publish (not their silences), as adverts.
    static func publishedAdverts(_ set: TraceSet, tracking: TrackingParameters) -> [TraceSample] {
        var replay = TraceReplay(tracking: tracking)
        replay.keepsPublished = true
        for sample in set.samples { _ = replay.step(sample) }
        return replay.takePublished().compactMap { measurement in
            let e = measurement.evidence
            guard let rssi = e.rssi, e.distance != nil else { return nil }
            return TraceSample(time: measurement.time, node: e.node, room: e.room, beacon: e.beacon,
                               rssi: Int(rssi.rounded()), measuredPower: nil)
        }
    }
}
