import BeaconCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Learns a `SiteModel` from labelled recordings: the measurements the nodes published (in time
/// order) and the ground truth (`time,beacon,room`).
///
/// Per recording and beacon it takes a snapshot of the features every `sampleInterval` seconds
/// from the beacon's first measurement to its last (within the truth's span): each node's latest
/// filtered RSSI, or "not heard" (never heard yet, reported `unknown`, or older than
/// `staleAfter`) — exactly what `SiteModelFilter` sees live — and files it under the true room at
/// that time. A node counts only in recordings where it published something, so a node added
/// later is not learned as "never hears anything" from older walks. `not_home` truth is skipped
/// (going away is the away timeout's business). A gap of more than `elsewhereGap` seconds between two
/// truth rows is time in none of the truth's rooms, filed under `SiteModel.Elsewhere`, and the rooms on
/// either side of it become its neighbours. Every `classifierInterval` seconds the snapshot is
/// also kept as a moment for the room classifier, fitted when the model is made (a node absent
/// from a recording is unknown in its moments, not unheard).
public struct SiteModelLearner: Sendable {
    struct Stats: Sendable {
        var snapshots = 0.0
        var heard = 0.0
        var sum = 0.0
        var sumOfSquares = 0.0

        mutating func add(_ rssi: Double?) {
            snapshots += 1
            guard let rssi else { return }
            heard += 1
            sum += rssi
            sumOfSquares += rssi * rssi
        }
    }

    /// One published measurement of a recording.
    public struct Measurement: Sendable {
        /// When the node published it.
        public var time: Instant
        /// What the node published.
        public var evidence: NodeEvidence

        /// Creates a measurement of a recording.
        public init(time: Instant, evidence: NodeEvidence) {
            self.time = time
            self.evidence = evidence
        }
    }

    /// The parameters written into the learned model.
    public let parameters: SiteModelParameters
    /// Per room name, per node name: relative to the nodes hearing the beacon (`stats`), and as
    /// published (`levelStats`, for a model of levels).
    private var stats: [String: [String: Stats]] = [:]
    private var levelStats: [String: [String: Stats]] = [:]
    /// The same, per node, for time in none of the truth's rooms (`SiteModel.Elsewhere`).
    private var elsewhereStats: [String: Stats] = [:]
    private var elsewhereLevelStats: [String: Stats] = [:]
    private var elsewhereSnapshots = 0
    /// The rooms the truth left for a gap, or came back from one to.
    private var elsewhereNeighbours: Set<String> = []
    /// Snapshots per room.
    private var roomSnapshots: [String: Int] = [:]
    /// Per room, the floor the truth first gave it (a truth file keeps one floor per room; across
    /// files the first wins, as `learn` checks them alike).
    private var roomFloors: [String: String] = [:]
    private var nodeNames: Set<String> = []
    /// Pairs of rooms (sorted names) the truth went between directly, either way.
    private var walkedPairs: Set<[String]> = []
    /// Per node, the room its measurements name (the physics features of the classifier need it).
    private var nodeRooms: [String: String] = [:]
    /// The classifier's moments: the true room (nil: elsewhere), and per node of that recording its
    /// RSSI or nil for "not heard" (a node absent from the recording is unknown there, not unheard).
    private var moments: [(room: String?, values: [String: Double?])] = []

    /// Creates a learner that has seen nothing yet.
    public init(parameters: SiteModelParameters = .default) {
        self.parameters = parameters
    }

    /// Adds one recording: its published measurements in time order and its truth rows.
    public mutating func add(measurements: [Measurement], truth: [TruthSample]) {
        let nodes = Set(measurements.map(\.evidence.node)).sorted()
        nodeNames.formUnion(nodes)
        for measurement in measurements where !measurement.evidence.room.isEmpty {
            nodeRooms[measurement.evidence.node] = measurement.evidence.room
        }
        var byBeacon: [BeaconID: [Measurement]] = [:]
        for measurement in measurements { byBeacon[measurement.evidence.beacon, default: []].append(measurement) }
        var truthByBeacon: [BeaconID: [TruthSample]] = [:]
        for row in truth { truthByBeacon[row.beacon, default: []].append(row) }
        for row in truth { if let floor = row.floor, roomFloors[row.room] == nil { roomFloors[row.room] = floor } }
        // The floor plan as walked: each change of the true room joins the two rooms (going away
        // and coming back, through not_home, joins none).
        for rows in truthByBeacon.values {
            for (previous, row) in zip(rows, rows.dropFirst()) where previous.room != row.room
                && previous.room != RoomDecision.notHome && row.room != RoomDecision.notHome {
                walkedPairs.insert([previous.room, row.room].sorted())
            }
            for (previous, row) in zip(rows, rows.dropFirst()) where row.time.since(previous.time) > parameters.elsewhereGap
                && previous.room != RoomDecision.notHome && row.room != RoomDecision.notHome {
                elsewhereNeighbours.formUnion([previous.room, row.room])
            }
        }
        let interval = parameters.sampleInterval > 0 ? parameters.sampleInterval : 0.5
        let every = max(1, Int((max(parameters.classifierInterval, 0) / interval).rounded()))
        for beacon in byBeacon.keys.sorted() {
            guard let rows = truthByBeacon[beacon], let lastTruth = rows.last?.time,
                let events = byBeacon[beacon], let first = events.first?.time, let last = events.last?.time
            else { continue }
            var latest: [String: (rssi: Double?, at: Instant)] = [:]
            var next = 0, truthIndex = -1
            var step = 0
            while true {
                let time = first.advanced(by: Double(step) * interval)
                step += 1
                guard time <= last, time <= lastTruth else { break }
                while next < events.count, events[next].time <= time {
                    let evidence = events[next].evidence
                    latest[evidence.node] = (evidence.isSilence || !evidence.rssiFiltered.isFinite ? nil : evidence.rssiFiltered,
                                             events[next].time)
                    next += 1
                }
                while truthIndex + 1 < rows.count, rows[truthIndex + 1].time <= time { truthIndex += 1 }
                guard truthIndex >= 0 else { continue }
                let truthRoom = rows[truthIndex].room
                guard truthRoom != RoomDecision.notHome else { continue }
                // Inside a gap in the truth: in none of its rooms (the row after it is within the walk,
                // `time <= lastTruth`).
                let inGap = truthIndex + 1 < rows.count && rows[truthIndex + 1].room != RoomDecision.notHome
                    && rows[truthIndex + 1].time.since(rows[truthIndex].time) > parameters.elsewhereGap
                let room: String? = inGap ? nil : truthRoom
                if let room { roomSnapshots[room, default: 0] += 1 } else { elsewhereSnapshots += 1 }
                let values = nodes.map { node -> Double? in
                    guard let held = latest[node], time.since(held.at) <= parameters.staleAfter else { return nil }
                    return held.rssi
                }
                let reference = SiteModel.reference(values.compactMap { $0 })
                if (step - 1) % every == 0 {
                    var moment: [String: Double?] = [:]
                    for (index, node) in nodes.enumerated() { moment[node] = values[index] }
                    moments.append((room, moment))
                }
                for (index, node) in nodes.enumerated() {
                    if let room {
                        stats[room, default: [:]][node, default: Stats()].add(values[index].map { $0 - reference })
                        levelStats[room, default: [:]][node, default: Stats()].add(values[index])
                    } else {
                        elsewhereStats[node, default: Stats()].add(values[index].map { $0 - reference })
                        elsewhereLevelStats[node, default: Stats()].add(values[index])
                    }
                }
            }
        }
    }

    /// Rooms with at least one snapshot, sorted.
    public var rooms: [String] { roomSnapshots.keys.sorted() }

    /// Snapshots taken in the rooms and elsewhere (`SiteModel.Elsewhere`), for `learn`'s report.
    public var snapshotCounts: (rooms: Int, elsewhere: Int) {
        (roomSnapshots.values.reduce(0, +), elsewhereSnapshots)
    }

    /// The model learned so far; nil when no snapshot was taken (no truth overlapping the measurements).
    /// `levels`: learn levels (true) or the classifier's relative looks (false); nil: levels where a
    /// walked room has no receiver of its own, the rule when there is nothing to judge the two by.
    public func model(levels chosen: Bool? = nil) -> SiteModel? {
        let rooms = self.rooms
        let nodes = nodeNames.sorted()
        guard !rooms.isEmpty, !nodes.isEmpty else { return nil }
        let placed: [String?] = nodes.map { node in nodeRooms[node].flatMap { rooms.contains($0) ? $0 : nil } }
        // Levels where a walked room has no receiver of its own (`SiteModel.levels`).
        let levels = chosen ?? rooms.contains { !placed.contains($0) }
        let stats = levels ? levelStats : self.stats
        // Per node, its statistics over every room (what a room's look is shrunk towards).
        let overalls = nodes.map { node in
            var overall = Stats()
            for other in rooms {
                let stat = stats[other]?[node] ?? Stats()
                overall.heard += stat.heard
                overall.sum += stat.sum
                overall.sumOfSquares += stat.sumOfSquares
            }
            return overall
        }
        let looks = rooms.map { room in
            nodes.indices.map { look(stats[room]?[nodes[$0]] ?? Stats(), overall: overalls[$0]) }
        }
        let elsewhereLooks = nodes.indices.map { index in
            look((levels ? elsewhereLevelStats : elsewhereStats)[nodes[index]] ?? Stats(), overall: overalls[index])
        }
        // An elsewhere class only when the walks had such time; its label follows the rooms'.
        let hasElsewhere = elsewhereSnapshots > 0
        let roomIndices = placed.map { $0.flatMap { rooms.firstIndex(of: $0) } }
        var rows: [[Double?]] = [], labels: [Int] = []
        for moment in levels ? [] : moments {
            let label: Int
            if let room = moment.room {
                guard let index = rooms.firstIndex(of: room) else { continue }
                label = index
            } else {
                label = rooms.count
            }
            let heard = nodes.map { moment.values[$0] ?? nil }
            let available = nodes.map { moment.values[$0] != nil }
            rows.append(SiteModelClassifier.features(heard: heard, available: available, nodeRooms: roomIndices,
                                                     roomCount: rooms.count))
            labels.append(label)
        }
        let classifier = levels ? nil : SiteModelClassifier.fit(rows: rows, labels: labels,
                                                 roomCount: rooms.count + (hasElsewhere ? 1 : 0),
                                                 penalty: parameters.classifierPenalty,
                                                 iterations: Int(parameters.classifierIterations))
        let neighbours = rooms.map { room in
            walkedPairs.compactMap { pair in
                pair.contains(room) ? (pair[0] == room ? pair[1] : pair[0]) : nil
            }.compactMap { rooms.firstIndex(of: $0) }.sorted()
        }
        return SiteModel(rooms: rooms, nodes: nodes, looks: looks, samples: rooms.map { roomSnapshots[$0] ?? 0 },
                         parameters: parameters, nodeRooms: placed, classifier: classifier,
                         floors: rooms.map { roomFloors[$0] },
                         neighbours: neighbours, levels: levels,
                         elsewhere: hasElsewhere ? SiteModel.Elsewhere(
                            looks: elsewhereLooks, samples: elsewhereSnapshots,
                            neighbours: elsewhereNeighbours.compactMap { rooms.firstIndex(of: $0) }.sorted()) : nil)
    }

    /// A room's look from its statistics, shrunk towards the node's overall mean and spread.
    private func look(_ stat: Stats, overall: Stats) -> SiteModel.Look {
        // The node's overall Gaussian; a node never heard gets a quiet, wide one (it never matters
        // much: `heard` is then near 0 in every room).
        let overallMean = overall.heard > 0 ? overall.sum / overall.heard : -20
        let overallVariance = overall.heard > 1
            ? max(0, overall.sumOfSquares / overall.heard - overallMean * overallMean) : 100
        let prior = max(0, parameters.priorSnapshots)
        let weight = stat.heard + prior
        let mean = weight > 0 ? (stat.sum + prior * overallMean) / weight : overallMean
        // Squared deviations from the shrunk mean, plus the prior's spread.
        let deviations = stat.sumOfSquares - 2 * mean * stat.sum + stat.heard * mean * mean
        let variance = weight > 0 ? (max(0, deviations) + prior * overallVariance) / weight : overallVariance
        let sigma = max(variance.squareRoot(), parameters.minimumSigma, 0.1)
        // Laplace's rule: never exactly 0 or 1, so no single node can rule a room out for ever; and
        // within what the file keeps (a node that heard a room in 30 000 samples of 30 000 would
        // otherwise be 0.99997, written as 1, which no reader may accept).
        let heard = SiteModel.Look.boundedHeard((stat.heard + 1) / (stat.snapshots + 2))
        return SiteModel.Look(heard: heard, mean: mean, sigma: sigma)
    }
}
